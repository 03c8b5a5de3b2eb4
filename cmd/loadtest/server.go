package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/chatcore/chatcore/webhooks"
)

// maxClients bounds -c: each client is a user of the generated fixture.
const maxClients = 1000

// The generated organization: an owner, an administrator who deletes topics,
// and one member per client, all in channel loadChannel; message anchorMessage
// in channel quietChannel is what reminders point at (never deleted).
const (
	ownerID       = 11
	adminID       = 12
	firstClientID = 101
	loadChannel   = 61
	quietChannel  = 62
	anchorMessage = 1001
)

// busyMarkers are the texts of SQLite's busy errors; none may ever appear.
var busyMarkers = []string{"database is locked", "SQLITE_BUSY"}

// apiKey returns the generated API key of user id (32 letters and digits).
func apiKey(id int) string { return fmt.Sprintf("loadKEY%025d", id) }

// email returns the generated e-mail of user id.
func email(id int) string { return fmt.Sprintf("user%d@load.test", id) }

// orgUserIDs returns the ids of the generated organization's users for
// clients clients: the owner, the administrator, then one per client.
func orgUserIDs(clients int) []int {
	ids := []int{ownerID, adminID}
	for i := range clients {
		ids = append(ids, firstClientID+i)
	}
	return ids
}

// orgFixture returns the organization for clients clients in the fixture format.
func orgFixture(clients int) ([]byte, error) {
	type user struct {
		ID       int    `json:"id"`
		Email    string `json:"email"`
		FullName string `json:"full_name"`
		Role     string `json:"role"`
		APIKey   string `json:"api_key"`
	}
	users := []user{
		{ownerID, email(ownerID), "Load Owner", "owner", apiKey(ownerID)},
		{adminID, email(adminID), "Load Admin", "administrator", apiKey(adminID)},
	}
	for i, id := range orgUserIDs(clients)[2:] {
		users = append(users, user{id, email(id), fmt.Sprintf("Client %d", i), "member", apiKey(id)})
	}
	subscribers := orgUserIDs(clients)
	return json.Marshal(map[string]any{"realms": []any{map[string]any{
		"id": 1, "string_id": "load", "name": "Load Test Inc",
		"users": users,
		"channels": []any{
			map[string]any{"id": loadChannel, "name": "load", "invite_only": false, "history_public_to_subscribers": true, "subscribers": subscribers},
			map[string]any{"id": quietChannel, "name": "quiet", "invite_only": false, "history_public_to_subscribers": true, "subscribers": subscribers},
		},
		"messages": []any{map[string]any{"id": anchorMessage, "sender_id": ownerID, "channel_id": quietChannel,
			"topic": "anchor", "content": "Remind me about this.", "timestamp": 1767225600}},
	}}})
}

// openStore opens the run's store: the SQLite file, or the PostgreSQL
// database in the run's schema with a pool as large as the example server's
// default and cfg.groups write groups.
func openStore(ctx context.Context, cfg config) (interface {
	chatcore.Store
	Close() error
}, error) {
	if cfg.pgSchema != "" {
		st, err := postgres.Open(ctx, cfg.db, postgres.WithSchema(cfg.pgSchema), postgres.WithMaxConns(16),
			postgres.WithWriteGroups(cfg.groups))
		if err != nil {
			return nil, fmt.Errorf("opening PostgreSQL schema %s: %w", cfg.pgSchema, err)
		}
		return st, nil
	}
	st, err := sqlite.Open(ctx, cfg.db)
	if err != nil {
		return nil, fmt.Errorf("opening database %s: %w", cfg.db, err)
	}
	return st, nil
}

// server is the running adapter over the run's store.
type server struct {
	base    string
	svc     *chatcore.Service
	http    *http.Server
	logs    *logBuffer
	deleted *deletions
	stop    func()
}

// startServer starts the server the way examples/server does (its store,
// outgoing webhooks on, the HTTP adapter with the same http.Server timeouts,
// the delivery ticker, graceful shutdown),
// but on 127.0.0.1 port 0, over a generated organization, with a recorder of
// deletion events and without the rate limit unless cfg.rate is set.
func startServer(ctx context.Context, cfg config) (*server, error) {
	logs := &logBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	store, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		store.Close()
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	deleted := &deletions{ids: map[int64]bool{}}
	svc := chatcore.New(store, chatcore.WithLogger(logger), chatcore.WithExternalURL(base), chatcore.WithEventSink(deleted),
		webhooks.Delivery(webhooks.Options{}), chatcore.WithTopicDeletion(cfg.batch, 0))
	data, err := orgFixture(cfg.clients)
	if err == nil {
		err = fixture.Load(ctx, svc, bytes.NewReader(data))
	}
	if err != nil {
		ln.Close()
		store.Close()
		return nil, fmt.Errorf("loading the generated organization: %w", err)
	}
	opts := httpadapter.Options{Logger: logger}
	if cfg.rate > 0 {
		opts.RateLimit = &httpadapter.RateLimit{Requests: cfg.rate, Per: time.Minute}
	}
	hs := httpadapter.NewServer(httpadapter.New(svc, opts), logger)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(httpadapter.EnvelopeListener(ln)) }()

	// The example server delivers due scheduled messages and reminders every
	// second; do the same, so its writes compete with the clients'.
	deliverCtx, stopDelivery := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { scheduled.Run(deliverCtx, svc, time.Second) })
	s := &server{base: base, svc: svc, http: hs, logs: logs, deleted: deleted}
	s.stop = func() {
		stopDelivery()
		wg.Wait()
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(shutdownCtx); err != nil {
			hs.Close()
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			logger.Error("serving", "err", err)
		}
		if err := svc.Shutdown(shutdownCtx); err != nil {
			logger.Warn("outgoing webhooks cut short by shutdown", "err", err)
		}
		store.Close()
	}
	return s, nil
}

func (s *server) close() { s.stop() }

// deletions is an EventSink that records the ids of the channel messages
// delete_message events report deleted (events come only after commit).
type deletions struct {
	mu     sync.Mutex
	ids    map[int64]bool
	events int
	dups   int // ids reported deleted twice
}

// Publish implements chatcore.EventSink.
func (d *deletions) Publish(_ context.Context, events []chatcore.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, e := range events {
		if e.Data["type"] != "delete_message" {
			continue
		}
		d.events++
		for _, id := range int64s(e.Data["message_ids"]) {
			if d.ids[id] {
				d.dups++
			}
			d.ids[id] = true
		}
	}
}

// snapshot returns the recorded ids, the number of events and of duplicate ids.
func (d *deletions) snapshot() (map[int64]bool, int, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[int64]bool, len(d.ids))
	for id := range d.ids {
		out[id] = true
	}
	return out, d.events, d.dups
}

// int64s reads a list of message ids from an event payload.
func int64s(v any) []int64 {
	var out []int64
	switch ids := v.(type) {
	case []chatcore.MessageID:
		for _, id := range ids {
			out = append(out, int64(id))
		}
	case []int64:
		out = append(out, ids...)
	case []any:
		for _, id := range ids {
			switch n := id.(type) {
			case chatcore.MessageID:
				out = append(out, int64(n))
			case int64:
				out = append(out, n)
			case int:
				out = append(out, int64(n))
			}
		}
	}
	return out
}

// logBuffer is a goroutine-safe sink for the server's log.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// count returns the number of log lines containing any of markers.
func (b *logBuffer) count(markers ...string) int {
	n := 0
	for line := range strings.SplitSeq(b.String(), "\n") {
		for _, m := range markers {
			if strings.Contains(line, m) {
				n++
				break
			}
		}
	}
	return n
}
