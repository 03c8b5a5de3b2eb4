package testenv_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/testenv"
	"github.com/matryer/is"
)

// recorder is a testing.TB that records how a test ended instead of ending it.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, args...)
	panic(r)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	panic(r)
}

// run calls OpenAPIFile on a recorder and returns the path and the recorder.
func run(t *testing.T, name string) (path string, r *recorder) {
	r = &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil && v != r {
			panic(v)
		}
	}()
	return testenv.OpenAPIFile(r, name), r
}

func TestOpenAPIFile(t *testing.T) {
	dir := t.TempDir()
	is.New(t).NoErr(os.WriteFile(filepath.Join(dir, "zulip-openapi.yaml"), []byte("openapi: 3.0.1\n"), 0o600))
	for _, tt := range []struct {
		name, env, file string
		wantPath        bool
		skipped, failed bool
	}{
		{"unset", "", "zulip-openapi.yaml", false, true, false},
		{"provided", dir, "zulip-openapi.yaml", true, false, false},
		{"missing file", dir, "zulip-openapi-served.yaml", false, false, true},
		{"missing directory", filepath.Join(dir, "nowhere"), "zulip-openapi.yaml", false, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			t.Setenv(testenv.OpenAPIDirVar, tt.env)
			path, r := run(t, tt.file)
			is.Equal(r.skipped, tt.skipped) // skips only when the variable is unset
			is.Equal(r.failed, tt.failed)   // a wrong directory fails
			if tt.wantPath {
				is.Equal(path, filepath.Join(dir, tt.file)) // the file in the directory
			}
			if tt.skipped {
				is.True(strings.Contains(r.msg, tt.file))               // the skip names the file
				is.True(strings.Contains(r.msg, testenv.OpenAPIDirVar)) // and the variable that provides it
			}
		})
	}
}
