package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/filestore"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/chatcore/chatcore/uploads"
)

// uploadOptions returns the Service options of uploaded files: on
// PostgreSQL the files live in the database (every instance on it serves
// every upload); on SQLite in the directory -uploads-dir, by default
// "<database>-uploads" beside the database file. close releases the
// directory.
func uploadOptions(cfg config, st chatcore.Store) (opts []chatcore.Option, close func(), err error) {
	opts = []chatcore.Option{chatcore.WithMaxFileUploadSizeMiB(cfg.maxUploadMiB)}
	if cfg.uploadKey != "" {
		opts = append(opts, chatcore.WithUploadSigningKey([]byte(cfg.uploadKey)))
	}
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

// collectEvery is how often unreferenced uploads past Zulip's grace period
// are collected.
const collectEvery = time.Hour

// collectUploads deletes unreferenced uploads older than
// uploads.UnclaimedGrace every collectEvery, 100 at a time, until ctx ends.
func collectUploads(ctx context.Context, svc *chatcore.Service, log *slog.Logger) {
	t := time.NewTicker(collectEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for {
			n, err := uploads.Collect(ctx, svc, uploads.UnclaimedGrace, 100)
			if err != nil {
				log.WarnContext(ctx, "collecting unreferenced uploads", "err", err)
				break
			}
			if n < 100 {
				break
			}
		}
	}
}

// resumeThumbnails queues the thumbnails the last run of the server did
// not make (see uploads.ResumeThumbnails).
func resumeThumbnails(ctx context.Context, svc *chatcore.Service, log *slog.Logger) {
	n, err := uploads.ResumeThumbnails(ctx, svc)
	if err != nil && ctx.Err() == nil {
		log.WarnContext(ctx, "resuming thumbnails", "err", err)
	}
	if n > 0 {
		log.InfoContext(ctx, "resumed thumbnails", "queued", n)
	}
}
