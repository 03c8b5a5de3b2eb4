package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/jackc/pgx/v5"
)

// dsnPattern matches a libpq key=value connection string ("host=... dbname=...").
var dsnPattern = regexp.MustCompile(`^\s*[a-z_]+\s*=`)

// isPostgres reports whether -db names a PostgreSQL database: a libpq URL
// (postgres:// or postgresql://) or a key=value DSN. Anything else is a
// SQLite file (write ./name for a file whose name looks like a DSN).
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") || dsnPattern.MatchString(db)
}

// openStore opens the store -db names and returns it with a description for
// the log that carries no password.
func openStore(ctx context.Context, db string, poolSize int) (chatcore.Store, string, error) {
	if !isPostgres(db) {
		st, err := sqlite.Open(ctx, db)
		if err != nil {
			return nil, "", fmt.Errorf("opening database %s: %w", db, err)
		}
		return st, db, nil
	}
	desc := "PostgreSQL"
	if c, err := pgx.ParseConfig(db); err == nil {
		desc = fmt.Sprintf("PostgreSQL %s@%s:%d/%s", c.User, c.Host, c.Port, c.Database)
	}
	st, err := postgres.Open(ctx, db, postgres.WithMaxConns(poolSize))
	if err != nil {
		return nil, "", fmt.Errorf("opening %s: %w", desc, err)
	}
	return st, desc, nil
}
