// Package testenv finds what tests need from outside the repository. A test
// that needs such a file skips, with one line naming the file and the
// environment variable that provides it, when the variable is unset, so the
// suite passes in any fresh clone; a set variable that names the wrong place
// fails the test, so a CI run that provides the files cannot pass by skipping.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// OpenAPIDirVar is the environment variable naming the directory that holds
// Zulip's OpenAPI excerpts, zulip-openapi.yaml and zulip-openapi-served.yaml.
const OpenAPIDirVar = "CHATCORE_OPENAPI_DIR"

// OpenAPIFile returns the path of the named file (such as
// "zulip-openapi.yaml") in the directory [OpenAPIDirVar] names. When the
// variable is unset it skips tb; when the file is not there it fails tb.
func OpenAPIFile(tb testing.TB, name string) string {
	tb.Helper()
	dir := os.Getenv(OpenAPIDirVar)
	if dir == "" {
		tb.Skipf("needs Zulip's OpenAPI excerpt %s: set %s to the directory holding it", name, OpenAPIDirVar)
	}
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err != nil {
		tb.Fatalf("%s=%s: %v", OpenAPIDirVar, dir, err)
	}
	return path
}

// PostgresVar is the environment variable naming the PostgreSQL database the
// PostgreSQL tests use (a libpq URL or DSN, such as
// postgres://postgres@127.0.0.1:5432/test). Each test works in a schema of
// its own, created and dropped by the test.
const PostgresVar = "CHATCORE_TEST_POSTGRES"

// PostgresURL returns the connection string [PostgresVar] holds. When the
// variable is unset it skips tb; a database that cannot be reached then fails
// the test that uses it, never skips it.
func PostgresURL(tb testing.TB) string {
	tb.Helper()
	url := os.Getenv(PostgresVar)
	if url == "" {
		tb.Skipf("needs PostgreSQL: set %s to a database URL", PostgresVar)
	}
	return url
}
