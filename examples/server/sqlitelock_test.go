package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestSecondServerOnSQLiteFileRefused: a second server on the SQLite file
// another server process serves refuses to start, naming the file and the
// first server's pid (it would serve stale rows from its cache); once the
// first has stopped, the file serves again.
func TestSecondServerOnSQLiteFileRefused(t *testing.T) {
	is := is.New(t)
	path := filepath.Join(t.TempDir(), "chat.db")
	first := spawn(t, buildServer(t), "-db", path)
	status, _ := first.call(t, "GET", "/users/me", demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200) // the first server serves the file

	err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-db", path}, io.Discard)
	is.True(err != nil)                                                                    // the second refuses to start
	is.True(strings.Contains(err.Error(), "database in use"))                              // saying why
	is.True(strings.Contains(err.Error(), path))                                           // naming the file
	is.True(strings.Contains(err.Error(), "process "+strconv.Itoa(first.cmd.Process.Pid))) // and the server holding it

	is.NoErr(first.cmd.Process.Signal(os.Interrupt))
	is.NoErr(first.cmd.Wait()) // the first server stops cleanly
	second := start(t, "-db", path)
	status, _ = second.call(t, "GET", "/users/me", demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200) // and the file serves again
}
