package main

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/dbarg"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/jackc/pgx/v5"
)

// openStore opens the store -db names and returns it with a description for
// the log that carries no password; on PostgreSQL with a pool of poolSize
// connections and writeGroups write groups (see postgres.WithWriteGroups).
func openStore(ctx context.Context, db string, poolSize, writeGroups int, pgOpts ...postgres.Option) (chatcore.Store, string, error) {
	if !dbarg.IsPostgres(db) {
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
	st, err := postgres.Open(ctx, db, append([]postgres.Option{postgres.WithMaxConns(poolSize), postgres.WithWriteGroups(writeGroups)}, pgOpts...)...)
	if err != nil {
		return nil, "", fmt.Errorf("opening %s: %w", desc, err)
	}
	return st, desc, nil
}
