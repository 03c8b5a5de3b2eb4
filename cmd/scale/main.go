// Command scale is chatcore's scale benchmark: it generates an organisation
// shaped like Zulip's own community server at one or more sizes, writing it
// straight through the store, and times the requests every client makes
// against the real HTTP adapter over it, next to a raw sibling of each read
// (one hand-written SQL statement returning the same ids on the same
// database).
//
//	go run ./cmd/scale [-db DIR|postgres://...] [-messages 10000,100000] [-users 200,2000]
//		[-seed 1] [-gen | -run] [-runs 15] [-timeout 60s] [-mixed 20s]
//		[-only REGEXP] [-cpuprofile FILE]
//
// The organisation: -users humans (one administrator), one channel everybody
// is in, 59 channels of about 120 members (active users are in more of
// them), 2,000 topics with a few hot ones, 8% direct messages (1:1 and small
// groups), 5% with a mention of a member by name, links, uploaded images,
// reactions and stars; 40% of the users read everything, 20% never read, the
// rest up to a point and a few messages above it. It is a function of the
// seed and the sizes: a run over a database generated earlier finds the same
// users again. Messages are written in transactions of 10,000, through the
// store's bulk insert when it has one, with their HTML made up directly (no
// Markdown rendering).
//
// -db names a directory for SQLite files (default: a temporary one, removed
// afterwards) or a PostgreSQL database, in which each size gets a schema of
// its own. Each size's database is named after its sizes and seed
// (scale_<messages>_<users>_<seed>). -gen only generates (replacing a
// database of that name); -run only runs over databases generated before;
// with neither, sizes whose database is missing are generated first. On
// PostgreSQL the generator ends with VACUUM (ANALYZE) of the tables it
// wrote, as autovacuum would soon after a load.
//
// The runner starts the HTTP adapter in-process on 127.0.0.1 port 0 and
// makes each request -runs times in a row as the typical user (in the big
// channel and five others) or the user with the most unread messages; reads
// are then compared with their raw siblings, and the command fails when the
// ids differ or any request answers other than 200. A request slower than
// -timeout is shown as "timeout". Each GET /messages read is also timed
// without HTTP: its message queries, noted in one untimed request to a
// second adapter over a recording wrapper of the store, are replayed as
// MessageIDs in one View (the store's part: the SQL the query model builds
// and the reads it needs first). It prints one table: per size the p50 and
// p90 of each request, its raw sibling's p50 and the ratio to it, the store
// part's p50 and its ratio to the raw sibling, and the ratio of the last
// size's p50 to the one before. On the last size it then
// runs a mixed load of the reads from four concurrent clients for -mixed
// and reports the peak of the process's live heap
// (/memory/classes/heap/objects:bytes) under it.
//
// -only keeps the requests whose names match the regular expression (the
// mixed load then mixes those); -cpuprofile writes a CPU profile of the
// timed runs of the last size (not of generation or the mixed load), to read
// with go tool pprof.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chatcore/chatcore/internal/dbarg"
	"github.com/chatcore/chatcore/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// size is one organisation size.
type size struct{ messages, users int }

func (s size) String() string { return short(s.messages) + " msgs/" + short(s.users) + " users" }

// short writes 10000 as 10k and 1000000 as 1M.
func short(n int) string {
	switch {
	case n >= 1000000 && n%1000000 == 0:
		return strconv.Itoa(n/1000000) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// config holds the command-line settings.
type config struct {
	db       string
	sizes    []size
	seed     int64
	gen, run bool
	runs     int
	timeout  time.Duration
	mixed    time.Duration
	// only keeps the requests whose names match (nil: all).
	only *regexp.Regexp
	// cpuprofile names the file for the CPU profile ("": none).
	cpuprofile string
}

func parseFlags(args []string, out io.Writer) (config, error) {
	var c config
	var msgs, users string
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.db, "db", "", "`directory` for the SQLite files (default: a temporary one) or a PostgreSQL URL or key=value DSN (a schema per size)")
	fs.StringVar(&msgs, "messages", "10000", "comma-separated message counts, one per size")
	fs.StringVar(&users, "users", "200", "comma-separated user counts, one per size (one value: every size)")
	fs.Int64Var(&c.seed, "seed", 1, "seed of the generated organisation")
	fs.BoolVar(&c.gen, "gen", false, "only generate the databases (replacing them)")
	fs.BoolVar(&c.run, "run", false, "only run, over databases generated before")
	fs.IntVar(&c.runs, "runs", 15, "timed runs of each request")
	fs.DurationVar(&c.timeout, "timeout", 60*time.Second, "per-request timeout")
	fs.DurationVar(&c.mixed, "mixed", 20*time.Second, "length of the mixed load on the last size (0: none)")
	only := fs.String("only", "", "run only the requests whose names match this `regexp`")
	fs.StringVar(&c.cpuprofile, "cpuprofile", "", "write a CPU profile of the last size's timed runs to `file`")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return c, fmt.Errorf("-only: %w", err)
		}
		c.only = re
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	ms, err := ints(msgs)
	if err != nil {
		return c, fmt.Errorf("-messages: %w", err)
	}
	us, err := ints(users)
	if err != nil {
		return c, fmt.Errorf("-users: %w", err)
	}
	if len(us) == 1 {
		for len(us) < len(ms) {
			us = append(us, us[0])
		}
	}
	if len(us) != len(ms) {
		return c, errors.New("-users needs one value or one per -messages value")
	}
	for i := range ms {
		c.sizes = append(c.sizes, size{ms[i], us[i]})
	}
	switch {
	case c.gen && c.run:
		return c, errors.New("-gen and -run exclude each other")
	case c.gen && c.db == "":
		return c, errors.New("-gen needs -db (a temporary database would be removed at once)")
	case c.run && c.db == "":
		return c, errors.New("-run needs -db")
	case c.runs < 1:
		return c, errors.New("-runs must be at least 1")
	}
	return c, nil
}

func ints(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// sizeReport is what one size measured.
type sizeReport struct {
	size    size
	names   []string
	results []result
	heap    uint64 // peak live heap over the sequential runs
	// serverErr reports errors in the server's log.
	serverErr error
}

// run generates and runs the sizes cfg names and prints the report.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	cfg, err := parseFlags(args, stdout)
	if err != nil {
		return err
	}
	if cfg.db == "" {
		dir, err := os.MkdirTemp("", "chatcore-scale-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.db = dir
	}
	var reports []sizeReport
	var failures []string
	for i, s := range cfg.sizes {
		m, err := newModel(cfg.seed, s.messages, s.users)
		if err != nil {
			return err
		}
		t := newTarget(cfg.db, s, cfg.seed)
		exists, err := t.exists(ctx)
		if err != nil {
			return err
		}
		if cfg.run && !exists {
			return fmt.Errorf("%s: no database %s (generate it with -gen)", s, t)
		}
		if cfg.gen || (!cfg.run && !exists) {
			if err := generateTarget(ctx, t, m, stdout); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		if cfg.gen {
			continue
		}
		mixed := time.Duration(0)
		if i == len(cfg.sizes)-1 {
			mixed = cfg.mixed
		}
		profile := ""
		if i == len(cfg.sizes)-1 {
			profile = cfg.cpuprofile
		}
		rep, err := runTarget(ctx, t, m, cfg, mixed, profile, stdout)
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		if rep.serverErr != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", s, rep.serverErr))
		}
		for j, r := range rep.results {
			if r.err != nil {
				failures = append(failures, fmt.Sprintf("%s, %s: %v", s, rep.names[j], r.err))
			}
		}
		reports = append(reports, rep)
	}
	if len(reports) > 0 {
		printTable(stdout, reports, dbarg.IsPostgres(cfg.db))
	}
	if len(failures) > 0 {
		fmt.Fprintln(stdout, "FAILED:")
		for _, f := range failures {
			fmt.Fprintln(stdout, "  -", f)
		}
		return fmt.Errorf("%d requests failed", len(failures))
	}
	return nil
}

// generateTarget generates m into a new database t.
func generateTarget(ctx context.Context, t target, m *model, stdout io.Writer) error {
	if err := t.reset(ctx); err != nil {
		return err
	}
	st, err := t.open(ctx, false)
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(stdout, "generating %s msgs/%s users into %s\n", short(m.messages), short(len(m.users)), t)
	heap := startHeapSampler(100 * time.Millisecond)
	start := time.Now()
	counts, err := generate(ctx, st, m, stdout)
	peak := heap.end()
	if err != nil {
		return err
	}
	el := time.Since(start)
	if err := t.vacuum(ctx); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	fmt.Fprintf(stdout, "generated in %.1fs (%.0f messages/s, peak live heap %.0f MiB): %s\n",
		el.Seconds(), float64(counts.messages)/el.Seconds(), float64(peak)/(1<<20), counts)
	return nil
}

// runTarget runs the requests over the generated database t.
// A non-empty profile names the file for a CPU profile of the timed runs.
func runTarget(ctx context.Context, t target, m *model, cfg config, mixed time.Duration, profile string, stdout io.Writer) (sizeReport, error) {
	rep := sizeReport{size: size{m.messages, len(m.users)}}
	st, err := t.open(ctx, true)
	if err != nil {
		return rep, err
	}
	defer st.Close()
	rdb, err := t.openRaw(ctx)
	if err != nil {
		return rep, err
	}
	defer rdb.close()
	var recip store.RecipientID
	err = st.View(ctx, func(tx store.Tx) error {
		var err error
		recip, err = tx.DirectRecipient(ctx, realmID, m.convs[m.typicalConv].members)
		return err
	})
	if err != nil {
		return rep, fmt.Errorf("the typical user's conversation: %w", err)
	}
	srv, err := startServer(st)
	if err != nil {
		return rep, err
	}
	defer srv.close()
	rs, err := requests(ctx, m, rdb, func(int) store.RecipientID { return recip })
	if err != nil {
		return rep, err
	}
	if cfg.only != nil {
		rs = slices.DeleteFunc(rs, func(r request) bool { return !cfg.only.MatchString(r.name) })
		if len(rs) == 0 {
			return rep, fmt.Errorf("-only %q matches no request", cfg.only)
		}
	}
	unreadRs, err := rdb.userRecipients(ctx, m.unread)
	if err != nil {
		return rep, fmt.Errorf("raw: the unread user's recipients: %w", err)
	}
	unread, err := rdb.query(ctx, rawUnreadCount(m.unread, unreadRs))
	if err != nil {
		return rep, fmt.Errorf("raw: unread count: %w", err)
	}
	fmt.Fprintf(stdout, "running %s on %s: %d requests x %d runs; the unread user (%d) has %d unread messages\n",
		rep.size, t, len(rs), cfg.runs, m.unread, unread[0])
	stopProfile := func() {}
	if profile != "" {
		var err error
		if stopProfile, err = startCPUProfile(profile); err != nil {
			return rep, err
		}
		defer stopProfile()
	}
	heap := startHeapSampler(20 * time.Millisecond)
	for _, r := range rs {
		res := measure(ctx, srv, m, rdb, r, cfg.runs, cfg.timeout)
		rep.names = append(rep.names, r.name)
		rep.results = append(rep.results, res)
		fmt.Fprintf(stdout, "  %-45s p50 %s, store %s, raw %s, timeout %v, error %v\n", r.name, ms(res.p50), ms(res.store), ms(res.raw), res.timeout, res.err)
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	rep.heap = heap.end()
	stopProfile() // the mixed load after the runs is left out
	if n := srv.errs.n; n > 0 {
		rep.serverErr = fmt.Errorf("%d errors logged by the server, first: %q", n, srv.errs.first)
	}
	if mixed > 0 {
		heap := startHeapSampler(10 * time.Millisecond)
		n, err := mixedLoad(ctx, srv, m, rs, 4, mixed, cfg.timeout)
		peak := heap.end()
		if err != nil {
			return rep, fmt.Errorf("mixed load: %w", err)
		}
		fmt.Fprintf(stdout, "mixed load on %s: %d reads from 4 clients in %s (%.0f/s); peak live heap %.1f MiB (server and clients in one process)\n",
			rep.size, n, mixed, float64(n)/mixed.Seconds(), float64(peak)/(1<<20))
	}
	return rep, nil
}

// printTable prints the report's one table.
func printTable(w io.Writer, reps []sizeReport, postgres bool) {
	db := "SQLite"
	if postgres {
		db = "PostgreSQL"
	}
	fmt.Fprintf(w, "\n%s, p50 (p90) of sequential requests; raw: the raw sibling's p50; store: the p50 of the store's part of a GET /messages (its message queries replayed as MessageIDs in one View)\n\n", db)
	fmt.Fprint(w, "| request |")
	for _, r := range reps {
		fmt.Fprintf(w, " %s p50 (p90) | raw | ×raw | store | store ×raw |", r.size)
	}
	if len(reps) > 1 {
		fmt.Fprintf(w, " %s / %s |", short(reps[len(reps)-1].size.messages), short(reps[len(reps)-2].size.messages))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|")
	for range reps {
		fmt.Fprint(w, "---|---|---|---|---|")
	}
	if len(reps) > 1 {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for i, name := range reps[0].names {
		fmt.Fprintf(w, "| %s |", name)
		for _, rep := range reps {
			r := rep.results[i]
			switch {
			case r.err != nil:
				fmt.Fprint(w, " FAILED | | | | |")
				continue
			case r.timeout && r.p50 == 0:
				fmt.Fprint(w, " timeout |")
			case r.timeout:
				fmt.Fprintf(w, " %s (timeout) |", ms(r.p50))
			default:
				fmt.Fprintf(w, " %s (%s) |", ms(r.p50), ms(r.p90))
			}
			if !r.hasRaw {
				fmt.Fprint(w, " | | | |")
				continue
			}
			fmt.Fprintf(w, " %s | %s |", ms(r.raw), ratio(r.p50, r.raw, r.timeout))
			if !r.hasStore {
				fmt.Fprint(w, " | |")
				continue
			}
			fmt.Fprintf(w, " %s | %s |", ms(r.store), ratio(r.store, r.raw, false))
		}
		if len(reps) > 1 {
			a, b := reps[len(reps)-1].results[i], reps[len(reps)-2].results[i]
			fmt.Fprintf(w, " %s |", ratio(a.p50, b.p50, a.timeout || b.timeout))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, rep := range reps {
		fmt.Fprintf(w, "peak live heap over the sequential runs of %s: %.1f MiB\n", rep.size, float64(rep.heap)/(1<<20))
	}
}

// ms formats a duration in milliseconds.
func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f >= 100:
		return fmt.Sprintf("%.0f ms", f)
	case f >= 10:
		return fmt.Sprintf("%.1f ms", f)
	}
	return fmt.Sprintf("%.2f ms", f)
}

func ratio(a, b time.Duration, timeout bool) string {
	if timeout || b == 0 || a == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f×", float64(a)/float64(b))
}

// startCPUProfile starts a CPU profile into the file name; the returned
// function stops it and closes the file, once however often it is called.
func startCPUProfile(name string) (func(), error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return sync.OnceFunc(func() {
		pprof.StopCPUProfile()
		f.Close()
	}), nil
}
