package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/filestore"
	"github.com/chatcore/chatcore/store/postgres"
)

// uploadOptions returns the Service options of uploaded files: on
// PostgreSQL the files live in the database (every instance on it serves
// every upload); on SQLite in the directory -uploads-dir, by default
// "<database>-uploads" beside the database file. close releases the
// directory.
func uploadOptions(cfg config, st chatcore.Store) (opts []chatcore.Option, close func(), err error) {
	opts = []chatcore.Option{chatcore.WithMaxFileUploadSizeMiB(cfg.maxUploadMiB)}
	if pg, ok := st.(*postgres.Store); ok && cfg.uploadsDir == "" {
		return append(opts, chatcore.WithFileStorage(pg.Files())), func() {}, nil
	}
	dir := cfg.uploadsDir
	if dir == "" {
		dir = strings.TrimSuffix(cfg.db, filepath.Ext(cfg.db)) + "-uploads"
	}
	d, err := filestore.OpenDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("-uploads-dir: %w", err)
	}
	return append(opts, chatcore.WithFileStorage(d)), func() { _ = d.Close() }, nil
}
