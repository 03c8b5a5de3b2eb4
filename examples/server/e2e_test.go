//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/matryer/is"
)

// TestE2EZulipJS starts the example server on a fresh database (the demo
// organization) and lets the real zulip-js 2.1.0 client drive the seven
// operations (e2e/drive.mjs). It needs node and `npm ci` in e2e/; .ci/run
// provides both and runs it with -tags e2e.
func TestE2EZulipJS(t *testing.T) {
	is := is.New(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "e2e"))
	is.NoErr(err)
	_, err = os.Stat(filepath.Join(dir, "node_modules", "zulip-js"))
	is.NoErr(err) // zulip-js is installed (npm ci in e2e/)

	s := start(t, "-db", filepath.Join(t.TempDir(), "e2e.db"))
	type login struct {
		Email string `json:"email"`
		Key   string `json:"key"`
	}
	cfg, err := json.Marshal(map[string]any{
		"url":               s.base,
		"owner":             login{demoOwner, demoOwnerKey},
		"member":            login{"max@acme.test", "MK2xTY2xA6bznBRkirAgsXOhyl9F6sn2"},
		"target":            map[string]any{"id": 15},
		"channel":           map[string]any{"id": 62, "name": "engineering"},
		"reminderMessageID": 1004,
	})
	is.NoErr(err)
	cmd := exec.CommandContext(t.Context(), "node", "drive.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "E2E_CONFIG="+string(cfg))
	out, err := cmd.CombinedOutput()
	t.Logf("node drive.mjs:\n%s", out)
	is.NoErr(err) // zulip-js completed every step
}
