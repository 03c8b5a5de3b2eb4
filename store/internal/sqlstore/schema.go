package sqlstore

import (
	"context"
	"fmt"
	"io/fs"
)

// Schema is a SQL store's embedded migrations and what its Open checks of
// the database's schema once they are applied.
type Schema struct {
	// Files holds the migrations: the files that match Pattern (named as
	// Migrations says).
	Files   fs.FS
	Pattern string
	// Contiguous says the versions start at 1 and skip no number; otherwise
	// they may skip numbers (handed out to work done in parallel, which
	// lands in any order) and a database records the highest one applied.
	Contiguous bool
	// Newer is the error Apply returns for a database whose schema version
	// is newer than the last migration.
	Newer error
	// UserColumns is the query that selects the names of the users table's
	// columns, one per row.
	UserColumns string
}

// Migrations returns the migrations ordered by version (see [Migrations]),
// failing when Contiguous is set and a version is missing.
func (s *Schema) Migrations() ([]Migration, error) {
	ms, err := Migrations(s.Files, s.Pattern)
	if err != nil {
		return nil, err
	}
	if s.Contiguous {
		for i, m := range ms {
			if m.Version != i+1 {
				return nil, fmt.Errorf("migration %s: version %d, want %d", m.Name, m.Version, i+1)
			}
		}
	}
	return ms, nil
}

// Version returns the schema version the store migrates databases to; 0
// when the migrations are misnamed.
func (s *Schema) Version() int {
	ms, err := s.Migrations()
	if err != nil {
		return 0
	}
	return Latest(ms)
}

// Apply applies every migration above the database's version, each in a
// transaction begin starts (see [Migrate]), then fails unless the users
// table, whose columns query returns for UserColumns, has a column for
// every personal setting (see [CheckSettingColumns]).
func (s *Schema) Apply(ctx context.Context, begin func(context.Context) (MigrationTx, error), query func(ctx context.Context, sql string) (Rows, error)) error {
	ms, err := s.Migrations()
	if err != nil {
		return err
	}
	if err := Migrate(ctx, s.Files, ms, s.Newer, begin); err != nil {
		return err
	}
	rows, err := query(ctx, s.UserColumns)
	if err != nil {
		return err
	}
	defer rows.Close()
	var have []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		have = append(have, name)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return CheckSettingColumns(have)
}
