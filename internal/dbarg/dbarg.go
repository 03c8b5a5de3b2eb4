// Package dbarg tells apart the two kinds of database the example programs'
// -db flag names: a SQLite file or a PostgreSQL connection string.
package dbarg

import (
	"regexp"
	"strings"
)

// dsnPattern matches a libpq key=value connection string ("host=... dbname=...").
var dsnPattern = regexp.MustCompile(`^\s*[a-z_]+\s*=`)

// IsPostgres reports whether db names a PostgreSQL database: a libpq URL
// (postgres:// or postgresql://) or a key=value DSN. Anything else is a
// SQLite file (write ./name for a file whose name looks like a DSN).
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") || dsnPattern.MatchString(db)
}
