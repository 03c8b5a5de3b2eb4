// Command server is chatcore's example server: a Zulip-compatible HTTP API on
// a SQLite file or a PostgreSQL database, seeded with a demo organization on
// first run.
//
//	go run ./examples/server [-addr 127.0.0.1:9991] [-db chatcore.db|postgres://...] [-seed FILE] [-mail-dir DIR]
//		[-webhook-allow-private] [-webhook-timeout 10s] [-rate-limit 200] [-deliver-every 1s]
//
// It prints ready-to-paste curl lines with the fixture's credentials (only
// those that log in on the opened database; the API keys only for the
// embedded demo organization, whose keys are published, never for a -seed
// fixture), delivers due scheduled messages
// and reminders every second, and shuts down gracefully on SIGINT or SIGTERM.
package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/metrics"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/chatcore/chatcore/store/postgres"
)

// demoFixture is the demo organization seeded into an empty database: a copy
// of the repository's testdata/demo.json (go:embed cannot reach outside the
// package directory).
//
//go:embed demo.json
var demoFixture []byte

// shutdownGrace bounds a graceful shutdown: in-flight requests and queued
// outgoing webhooks get this long to finish (SIGTERM stops the server within 5 s).
const shutdownGrace = 4 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// config holds the command-line settings.
type config struct {
	addr         string
	db           string
	pool         int
	writeGroups  int
	seed         string
	mailDir      string
	deliverEvery time.Duration
	// rateLimit is the requests per minute each user may make (0: unlimited).
	rateLimit int
	// webhookAllowPrivate lets outgoing webhooks reach loopback and private
	// addresses (for bots running next to the server during development).
	webhookAllowPrivate bool
	// webhookTimeout bounds one outgoing-webhook attempt.
	webhookTimeout time.Duration
	// opsConfig: -version, logging, metrics, the external URL (config.go).
	opsConfig
	// uploadsDir and maxUploadMiB configure uploads (uploads.go).
	uploadsDir   string
	maxUploadMiB int
	uploadKey    string
}

func parseFlags(args []string, out io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:9991", "listen address (port 0 picks a free port)")
	fs.StringVar(&c.db, "db", "chatcore.db", "SQLite database file (created if missing), or a PostgreSQL URL (postgres://...) or key=value DSN")
	fs.IntVar(&c.pool, "db-pool", 16, "PostgreSQL: connections in the pool")
	fs.IntVar(&c.writeGroups, "db-write-groups", 2, "PostgreSQL: write groups sharing transactions (group commit; 0: off)")
	fs.StringVar(&c.seed, "seed", "", "load this fixture `file` into a new, empty database")
	fs.StringVar(&c.mailDir, "mail-dir", "", "write each outgoing e-mail as an RFC 5322 file in this `dir` (default: log them)")
	fs.DurationVar(&c.deliverEvery, "deliver-every", time.Second, "how often due scheduled messages and reminders are delivered")
	fs.IntVar(&c.rateLimit, "rate-limit", 200, "requests per minute each user may make (0: no limit)")
	fs.BoolVar(&c.webhookAllowPrivate, "webhook-allow-private", false, "let outgoing webhooks reach loopback and private network addresses")
	fs.StringVar(&c.uploadsDir, "uploads-dir", "", "keep uploaded files in this `dir` (default: in the PostgreSQL database, or <db>-uploads beside the SQLite file)")
	fs.StringVar(&c.uploadKey, "upload-signing-key", "", "key signing temporary upload URLs (default: a key kept in the database, the same for every instance on it)")
	fs.IntVar(&c.maxUploadMiB, "max-upload-mib", chatcore.DefaultMaxFileUploadSizeMiB, "largest file upload accepted, in MiB")
	fs.DurationVar(&c.webhookTimeout, "webhook-timeout", 10*time.Second, "how long one outgoing-webhook attempt may take (Zulip's OUTGOING_WEBHOOK_TIMEOUT_SECONDS)")
	addOpsFlags(fs, &c.opsConfig)
	if err := parseArgs(fs, args, out, os.LookupEnv); err != nil {
		return c, err
	}
	if err := checkOps(c.opsConfig); err != nil {
		return c, err
	}
	if c.webhookTimeout <= 0 {
		return c, errors.New("-webhook-timeout must be positive")
	}
	if c.deliverEvery <= 0 {
		return c, errors.New("-deliver-every must be positive")
	}
	if c.rateLimit < 0 {
		return c, errors.New("-rate-limit must not be negative")
	}
	return c, nil
}

// run starts the server and blocks until ctx is cancelled (then shuts down
// gracefully) or the server fails. It prints the listening address
// ("chatcore listening on http://HOST:PORT") and the demo curl lines to stdout.
// A start that fails removes the SQLite file it created.
func run(ctx context.Context, args []string, stdout io.Writer) (err error) {
	cfg, err := parseFlags(args, stdout)
	if err != nil {
		return err
	}
	if cfg.version {
		fmt.Fprintln(stdout, "chatcore", chatcore.Version)
		return nil
	}
	logger := newLogger(cfg.opsConfig, stdout)

	if err := checkDBDir(cfg.db); err != nil {
		return err
	}
	started := false
	if remove := newSQLiteFiles(cfg.db); remove != nil {
		// Runs after store.Close (deferred below).
		defer func() {
			if err != nil && !started {
				remove()
			}
		}()
	}
	var m *metrics.Metrics
	var pgOpts []postgres.Option
	if cfg.metricsAddr != "" {
		m = metrics.New()
		pgOpts = append(pgOpts, postgres.WithGroupCommitObserver(m.WriteGroupCommitted))
	}
	store, dbDesc, err := openStore(ctx, cfg.db, cfg.pool, cfg.writeGroups, pgOpts...)
	if err != nil {
		return err
	}
	defer store.Close()

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	listenURL := defaultExternalURL(ln.Addr())
	base := listenURL
	if cfg.externalURL != "" {
		base, _ = parseExternalURL(cfg.externalURL) // checked by parseFlags
	}
	serveErr := make(chan error, 2)
	if m != nil {
		mln, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			return fmt.Errorf("-metrics-addr: %w", err)
		}
		msrv := metricsServer(mln, m, serveErr)
		defer msrv.Close()
		fmt.Fprintf(stdout, "metrics at http://%s/metrics\n", mln.Addr())
	}

	opts := []chatcore.Option{chatcore.WithLogger(logger), chatcore.WithExternalURL(base)}
	if cfg.mailDir != "" {
		if err := os.MkdirAll(cfg.mailDir, 0o755); err != nil {
			return fmt.Errorf("-mail-dir: %w", err)
		}
		opts = append(opts, chatcore.WithMailer(&dirMailer{dir: cfg.mailDir, now: time.Now}))
	} else {
		opts = append(opts, chatcore.WithMailer(logMailer{log: logger}))
	}
	var onOutcome func(string)
	svcStore := chatcore.Store(store)
	if m != nil {
		onOutcome = m.WebhookOutcome
		svcStore = m.InstrumentStore(store)
	}
	opts = append(opts, webhookOptions(cfg, onOutcome)...)
	upOpts, closeUploads, err := uploadOptions(cfg, store)
	if err != nil {
		return err
	}
	defer closeUploads()
	opts = append(opts, upOpts...)
	svc := chatcore.New(svcStore, opts...)
	go collectUploads(ctx, svc, logger)
	go resumeThumbnails(ctx, svc, logger)

	fixture, err := seed(ctx, svc, cfg)
	if err != nil {
		return err
	}

	// Queues that outlived the previous process (crash included) learn of
	// the restart after every event committed before it.
	if err := eventqueue.AnnounceRestart(ctx, svc); err != nil {
		return fmt.Errorf("announcing the restart to event queues: %w", err)
	}
	hubOpts := eventqueue.Options{}
	if pg, ok := store.(*postgres.Store); ok {
		// Wake-ups between the instances sharing the database.
		bus, err := pg.Bus(ctx)
		if err != nil {
			return fmt.Errorf("listening for other instances' events: %w", err)
		}
		defer bus.Close()
		hubOpts.Bus = bus
	}
	hub := eventqueue.New(svc, hubOpts)
	var scheduledObserved func(int)
	if m != nil {
		m.WatchHub(hub)
		m.WatchStore(store) // the raw store: scrapes are not the server's transactions
		scheduledObserved = m.ScheduledDelivered
	}
	adapterOpts := httpadapter.Options{Logger: logger, Events: hub, LogRequests: true, Metrics: m}
	if cfg.rateLimit > 0 {
		adapterOpts.RateLimit = &httpadapter.RateLimit{Requests: cfg.rateLimit, Per: time.Minute}
	}
	srv := httpadapter.NewServer(httpadapter.New(svc, adapterOpts), logger)
	// The listener answers even net/http's own 431 in the envelope.
	go func() { serveErr <- srv.Serve(httpadapter.EnvelopeListener(ln)) }()

	deliverCtx, stopDelivery := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { scheduled.RunObserved(deliverCtx, svc, cfg.deliverEvery, scheduledObserved) })
	defer func() {
		stopDelivery()
		wg.Wait()
	}()

	// A -seed fixture may be a real organization: its keys stay out of the
	// output (and so out of service logs); the demo's are published anyway.
	printCurl(ctx, stdout, svc, base, fixture, cfg.seed == "")
	warnPublishedKeys(ctx, logger, svc, ln.Addr(), cfg.seed == "")
	started = true
	// Printed last, so whoever waits for this line has seen everything before it.
	fmt.Fprintf(stdout, "chatcore %s listening on %s (database %s", chatcore.Version, listenURL, dbDesc)
	if base != listenURL {
		fmt.Fprintf(stdout, ", external URL %s", base)
	}
	fmt.Fprintln(stdout, ")")

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout, "shutting down")
	hub.Close() // answers the waiting polls, so shutdown need not wait for them
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
	}
	// Then let queued outgoing webhooks finish, in what is left of the grace period.
	if err := svc.Shutdown(shutdownCtx); err != nil {
		logger.Warn("outgoing webhooks cut short by shutdown", "err", err)
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// seed loads -seed FILE into an empty database (refusing a non-empty one), or
// the embedded demo fixture into an empty database when no -seed is given. An
// existing database without -seed is used as it is. It returns the fixture
// whose credentials the curl lines should use.
func seed(ctx context.Context, svc *chatcore.Service, cfg config) ([]byte, error) {
	empty, err := svc.IsEmpty(ctx)
	if err != nil {
		return nil, fmt.Errorf("inspecting the database: %w", err)
	}
	if cfg.seed != "" {
		if !empty {
			return nil, errors.New("-seed: the database already holds data; seed only a new database (use another -db path or remove the file)")
		}
		// The file is streamed (fixture.Load never holds its messages), so
		// a fixture of millions of messages seeds in bounded memory.
		f, err := os.Open(cfg.seed)
		if err != nil {
			return nil, fmt.Errorf("-seed: %w", err)
		}
		defer f.Close()
		if err := fixture.Load(ctx, svc, f); err != nil {
			return nil, fmt.Errorf("-seed %s: %w", cfg.seed, fixtureError(err))
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("-seed: %w", err)
		}
		return firstRealmUsers(f), nil
	}
	if empty {
		if err := fixture.Load(ctx, svc, bytes.NewReader(demoFixture)); err != nil {
			return nil, fmt.Errorf("loading the demo fixture: %w", fixtureError(err))
		}
	}
	return demoFixture, nil
}

// firstRealmUsers reads a fixture from r up to the users of its first realm
// and returns them as a fixture of their own ({"realms": [{"users": [...]}]},
// what fixtureCredentials reads), without holding the rest of the file (its
// messages) in memory; nil when it finds none.
func firstRealmUsers(r io.Reader) []byte {
	dec := json.NewDecoder(bufio.NewReader(r))
	delim := func(want json.Delim) bool {
		tok, err := dec.Token()
		return err == nil && tok == want
	}
	if !delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "realms" {
			if skipValue(dec) != nil {
				return nil
			}
			continue
		}
		if !delim('[') || !dec.More() || !delim('{') {
			return nil
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil
			}
			if key == "users" {
				var users json.RawMessage
				if dec.Decode(&users) != nil {
					return nil
				}
				return fmt.Appendf(nil, `{"realms": [{"users": %s}]}`, users)
			}
			if skipValue(dec) != nil {
				return nil
			}
		}
		return nil
	}
	return nil
}

// skipValue reads past the next value of dec token by token, holding none
// of it (Decode would read a whole list of messages into memory first).
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// fixtureError returns the user-facing text of a fixture error (it names the
// JSON path of the problem), or err itself when it is not a chatcore error.
func fixtureError(err error) error {
	if e, ok := errors.AsType[*chatcore.Error](err); ok {
		problems, _ := e.Data["errors"].([]string)
		if len(problems) <= 1 {
			return errors.New(e.Msg)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d problems", len(problems))
		if len(problems) >= maxListedProblems {
			fmt.Fprintf(&b, " (the first %d)", len(problems))
		}
		b.WriteString(":")
		for _, p := range problems {
			b.WriteString("\n  ")
			b.WriteString(p)
		}
		return errors.New(b.String())
	}
	return err
}

// credential is a login found in a fixture.
type credential struct {
	Email  string `json:"email"`
	APIKey string `json:"api_key"`
	Role   string `json:"role"`
}

// fixtureCredentials returns the owner or administrator and a member of the
// first realm of a fixture (either may be zero).
func fixtureCredentials(fixture []byte) (admin, member credential) {
	var f struct {
		Realms []struct {
			Users []credential `json:"users"`
		} `json:"realms"`
	}
	if json.Unmarshal(fixture, &f) != nil || len(f.Realms) == 0 {
		return admin, member
	}
	for _, u := range f.Realms[0].Users {
		switch {
		case admin.Email == "" && (u.Role == "owner" || u.Role == "administrator"):
			admin = u
		case member.Email == "" && u.Role == "member":
			member = u
		}
	}
	return admin, member
}

// elidedKey stands in the printed curl lines for an API key that is not shown.
const elidedKey = "<api_key>"

// printCurl prints ready-to-paste curl lines for the fixture's credentials,
// but only for those that authenticate against the opened database: the
// administrator's lines when the fixture's owner or administrator logs in, the
// member's when the fixture's member does. A database that is not the
// fixture's (reused without -seed, or changed since it was seeded) gets a
// note instead of lines that would fail. The API keys are printed only when
// showKeys is set; otherwise each line carries elidedKey in its place.
func printCurl(ctx context.Context, w io.Writer, svc *chatcore.Service, base string, fixture []byte, showKeys bool) {
	admin, member := fixtureCredentials(fixture)
	adminUser := loginAs(ctx, svc, admin)
	memberUser := loginAs(ctx, svc, member)
	if adminUser == nil && memberUser == nil {
		fmt.Fprintf(w, "(the fixture's credentials do not work on this database; no curl examples)\n")
		return
	}
	login := func(c credential) string {
		if showKeys {
			return c.Email + ":" + c.APIKey
		}
		return "'" + c.Email + ":" + elidedKey + "'"
	}
	api := base + "/api/v1"
	if !showKeys {
		fmt.Fprintf(w, "\n(API keys elided: replace %s with the user's api_key from the fixture)\n", elidedKey)
	}
	if adminUser != nil {
		a := login(admin)
		fmt.Fprintf(w, "\nTry it (%s is an organization %s):\n\n", admin.Email, adminUser.Role)
		fmt.Fprintf(w, "  curl -sS %s/server_settings\n", api)
		fmt.Fprintf(w, "  curl -sS -u %s %s/users/me\n", a, api)
		fmt.Fprintf(w, "  curl -sS -u %s -X PATCH %s/settings -d color_scheme=2 -d enter_sends=true\n", a, api)
		fmt.Fprintf(w, "  curl -sS -u %s -X POST %s/messages -d type=stream -d to=general -d topic=hello -d 'content=Hello from curl'\n", a, api)
		fmt.Fprintf(w, "  curl -sS -u %s -G %s/messages -d anchor=newest -d num_before=5 -d num_after=0\n", a, api)
		fmt.Fprintf(w, "  curl -sS -u %s %s/realm/linkifiers\n", a, api)
	}
	if memberUser != nil {
		m := login(member)
		if adminUser == nil {
			fmt.Fprintf(w, "\nTry it (%s is an organization %s):\n\n", member.Email, memberUser.Role)
			fmt.Fprintf(w, "  curl -sS %s/server_settings\n", api)
			fmt.Fprintf(w, "  curl -sS -u %s %s/users/me\n", m, api)
		}
		fmt.Fprintf(w, "  curl -sS -u %s %s/reminders\n", m, api)
		fmt.Fprintf(w, "  curl -sS -u %s %s/scheduled_messages\n", m, api)
	}
	fmt.Fprintln(w)
}

// loginAs returns the user c authenticates as on this database, or nil when c
// is empty, does not authenticate (another database, a changed e-mail or key,
// a deactivated account) or is a bot.
func loginAs(ctx context.Context, svc *chatcore.Service, c credential) *chatcore.User {
	if c.Email == "" {
		return nil
	}
	u, err := svc.Authenticate(ctx, c.Email, c.APIKey)
	if err != nil || u.IsBot {
		return nil
	}
	return u
}
