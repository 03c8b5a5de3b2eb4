// Command loadtest is a bounded load test of chatcore's example server set-up:
// it starts the HTTP adapter over a SQLite database in a temporary directory,
// listening on 127.0.0.1 port 0 (loopback only), sends a fixed number of
// requests from many concurrent clients, checks the result and stops.
//
//	go run ./cmd/loadtest [-n 5000] [-c 16] [-seed 1] [-rate-limit 0] [-batch 100] [-db FILE|postgres://...]
//	go run ./cmd/loadtest -floor [-n 3000] [-c 16] [-only TEXT] [-db FILE|postgres://...]
//	go run ./cmd/loadtest ... [-write-groups N] [-cpuprofile FILE] [-memprofile FILE]
//
// -db names a new SQLite file, or a PostgreSQL database (a URL or key=value
// DSN): the run then works in a schema of its own, created for it and dropped
// at the end.
//
// The clients mix message sends, topic deletions, settings updates, reminder
// creations and listings, and message reads. The run fails (exit status 1)
// when any response is a 5xx or anything other than 200 (429 too, when
// -rate-limit is set), when "database is locked" or SQLITE_BUSY appears in
// any response or log line, or when the final state disagrees with what the
// clients did: the messages present must be exactly those sent minus those the
// topic deletions reported deleted, every client's reminders must be listed,
// and every client's settings must be the last ones it set. It prints the
// status counts, throughput and latency percentiles (p50/p90/p99/max) per
// operation.
//
// With -floor it instead compares the adapter with the simplest correct
// net/http server for a non-blocking GET /events on a queue with nothing new
// (each client's queue registered first), PATCH /settings enter_sends=true
// (also toggled, so that every request changes the setting), POST
// /messages/flags starring and unstarring a message in turn, and POST
// /messages to a channel with short Markdown, on the same database with the
// same clients; on PostgreSQL also that send against a floor that keeps
// chatcore's event log guarantee (it appends the message's event in the
// insert's transaction, under the realm's append lock that makes the log's ids
// follow commit order), which shows what the guarantee costs the floor itself.
// Three rounds per request, rotating which server goes first, each round -n
// requests. It prints requests/s per round, the medians and their ratio
// chatcore/floor, and fails on any answer other than a successful 200. On
// Linux it also prints the CPU time per request of each round and their
// medians: this process's and, for a PostgreSQL server on the same host, the
// database server's (under a CPU-bound load the two servers' CPU times per
// request set their rates' ratio). -only limits it to the requests whose name
// contains the given text. The floor server (floor.go) authenticates by e-mail
// and the SHA-256 of the API key and runs one statement per step (on SQLite:
// reads through a read-only pool, writes on one writer connection); it is a
// yardstick, not a chat server.
//
// Beside the floor it measures the ceiling (ceiling.go): the same net/http
// server with HTTP Basic auth against an in-memory map of the users' key
// hashes, form parsing and a fixed JSON answer, with no store at all. No
// correct server does less per request; the report's last columns give
// chatcore's rate over the ceiling's (the floor's variants have no ceiling
// row).
//
// -write-groups sets the real server's PostgreSQL write groups (group
// commit), as the example server's -db-write-groups does, and defaults to
// its default (0 turns group commit off).
//
// -cpuprofile and -memprofile write pprof profiles of the whole process
// (servers and clients) over the load; the server's share is what lies under
// the httpadapter and net/http server frames.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"

	"github.com/chatcore/chatcore/internal/dbarg"
	"github.com/jackc/pgx/v5"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// config holds the command-line settings.
type config struct {
	requests int    // total requests sent by the clients
	clients  int    // concurrent clients
	seed     int64  // seed of the clients' random choices
	rate     int    // per-user requests per minute, 0 for no rate limit
	db       string // SQLite file ("" for one in a temporary directory) or PostgreSQL URL
	pgSchema string // on PostgreSQL, the schema the run works in
	batch    int    // topic deletion batch size (0: Zulip's 100)
	groups   int    // PostgreSQL write groups (0: off; default the example server's)
	floor    bool   // compare with the floor server instead of the mixed load
	only     string // with floor: run only the requests whose name contains it
	cpuProf  string // CPU profile file ("" for none)
	memProf  string // allocation profile file ("" for none)
}

func parseFlags(args []string, out io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.IntVar(&c.requests, "n", 5000, "number of requests to send")
	fs.IntVar(&c.clients, "c", 16, "number of concurrent clients (each acts as its own user)")
	fs.Int64Var(&c.seed, "seed", 1, "seed of the clients' random choices")
	fs.IntVar(&c.rate, "rate-limit", 0, "per-user rate limit in requests per minute, as the example server's 200 (0: off; 429s are then expected)")
	fs.IntVar(&c.batch, "batch", 0, "topic deletion batch size; small values make deletions take many batches, interleaved with sends (default: Zulip's 100)")
	fs.IntVar(&c.groups, "write-groups", 2, "PostgreSQL: write groups sharing transactions, as the example server's -db-write-groups (0: off)")
	fs.BoolVar(&c.floor, "floor", false, "compare PATCH /settings and POST /messages with the simplest correct server on the same database (-n requests per round)")
	fs.StringVar(&c.only, "only", "", "with -floor, compare only the requests whose name contains `text` (say \"POST /messages (\")")
	fs.StringVar(&c.cpuProf, "cpuprofile", "", "write a CPU profile of the load to `file`")
	fs.StringVar(&c.memProf, "memprofile", "", "write an allocation profile of the load to `file`")
	fs.StringVar(&c.db, "db", "", "SQLite database `file` to create (default: one in a temporary directory, removed afterwards), or a PostgreSQL URL or key=value DSN (the run works in a new schema, dropped afterwards)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.requests < 1:
		return c, errors.New("-n must be at least 1")
	case c.clients < 1 || c.clients > maxClients:
		return c, fmt.Errorf("-c must be between 1 and %d", maxClients)
	case c.rate < 0:
		return c, errors.New("-rate-limit must not be negative")
	case c.batch < 0:
		return c, errors.New("-batch must not be negative")
	case c.only != "" && !c.floor:
		return c, errors.New("-only needs -floor")
	case !slices.ContainsFunc(floorRequests(nil, dbarg.IsPostgres(c.db)), func(r floorRequest) bool { return strings.Contains(r.name, c.only) }):
		return c, fmt.Errorf("-only %q names no request of the floor comparison", c.only)
	}
	return c, nil
}

// run starts the server, runs the load and the final checks, prints the
// report to stdout and returns an error when any check failed.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	cfg, err := parseFlags(args, stdout)
	if err != nil {
		return err
	}
	switch {
	case dbarg.IsPostgres(cfg.db):
		drop, err := createSchema(ctx, &cfg)
		if err != nil {
			return err
		}
		defer drop()
	case cfg.db == "":
		dir, err := os.MkdirTemp("", "chatcore-loadtest-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.db = dir + string(os.PathSeparator) + "load.db"
	default:
		if _, err := os.Stat(cfg.db); err == nil {
			return fmt.Errorf("-db %s already exists; the load test needs a new database", cfg.db)
		}
	}
	srv, err := startServer(ctx, cfg)
	if err != nil {
		return err
	}
	defer srv.close()
	stopProfiles, err := startProfiles(cfg)
	if err != nil {
		return err
	}
	defer stopProfiles()

	if cfg.floor {
		return runFloorReport(ctx, srv, cfg, stdout)
	}
	res, err := drive(ctx, srv, cfg)
	if err != nil {
		return err
	}
	problems := verify(ctx, srv, res, cfg)
	if busy := srv.logs.count(busyMarkers...); busy > 0 {
		problems = append(problems, fmt.Sprintf("%d log lines report SQLITE_BUSY / database is locked", busy))
	}
	if internal := srv.logs.count("internal error"); internal > 0 {
		problems = append(problems, fmt.Sprintf("%d internal errors logged", internal))
	}
	res.print(stdout, cfg)
	if len(problems) > 0 {
		fmt.Fprintln(stdout, "FAILED:")
		for _, p := range problems {
			fmt.Fprintln(stdout, "  -", p)
		}
		if logs := srv.logs.String(); logs != "" {
			fmt.Fprintf(stdout, "server log:\n%s", tail(logs, 4000))
		}
		return fmt.Errorf("%d checks failed", len(problems))
	}
	fmt.Fprintln(stdout, "OK: no 5xx, no SQLITE_BUSY, final state consistent")
	return nil
}

// runFloorReport runs the floor comparison and reports its problems, as run
// does for the mixed load.
func runFloorReport(ctx context.Context, srv *server, cfg config, stdout io.Writer) error {
	problems, err := runFloor(ctx, srv, cfg, stdout)
	if err != nil {
		return err
	}
	if busy := srv.logs.count(busyMarkers...); busy > 0 {
		problems = append(problems, fmt.Sprintf("%d log lines report SQLITE_BUSY / database is locked", busy))
	}
	if internal := srv.logs.count("internal error"); internal > 0 {
		problems = append(problems, fmt.Sprintf("%d internal errors logged", internal))
	}
	if len(problems) > 0 {
		fmt.Fprintln(stdout, "FAILED:")
		for _, p := range problems {
			fmt.Fprintln(stdout, "  -", p)
		}
		return fmt.Errorf("%d checks failed", len(problems))
	}
	fmt.Fprintln(stdout, "OK: every request of every server answered 200 success")
	return nil
}

// kind names the database of the run, for the report.
func (c config) kind() string {
	if c.pgSchema != "" {
		return "PostgreSQL, schema " + c.pgSchema
	}
	return "SQLite file"
}

// createSchema creates a new schema for the run in the PostgreSQL database
// cfg.db names and records it in cfg; the function it returns drops it.
func createSchema(ctx context.Context, cfg *config) (drop func(), err error) {
	conn, err := pgx.Connect(ctx, cfg.db)
	if err != nil {
		return nil, fmt.Errorf("connecting to -db: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "chatcore_loadtest_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return nil, fmt.Errorf("creating schema %s: %w", schema, err)
	}
	cfg.pgSchema = schema
	return func() {
		ctx := context.WithoutCancel(ctx)
		conn, err := pgx.Connect(ctx, cfg.db)
		if err == nil {
			_, err = conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
			conn.Close(ctx)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadtest: dropping schema %s: %v\n", schema, err)
		}
	}, nil
}

// tail returns at most the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "...\n" + s[len(s)-n:]
}

// startProfiles starts the CPU profile and resets the allocation counters
// when cfg asks for them; the function it returns writes them.
func startProfiles(cfg config) (func(), error) {
	var cpu *os.File
	if cfg.cpuProf != "" {
		f, err := os.Create(cfg.cpuProf)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		cpu = f
	}
	if cfg.memProf != "" {
		runtime.MemProfileRate = 64 << 10
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if cfg.memProf != "" {
			if f, err := os.Create(cfg.memProf); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}
	}, nil
}
