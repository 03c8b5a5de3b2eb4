// Command importbench measures fixture import at scale (issue 31): it
// writes a fixture of an organization shaped like Zulip's community server
// (see zulipShape) to a file, loads it with fixture.Load into a new SQLite
// database or PostgreSQL schema, and prints the wall time, the peak heap
// during the load, and what rendering the messages' Markdown costs of it.
//
//	go run ./cmd/importbench -messages 1000000 -users 10000
//	go run ./cmd/importbench -messages 1000000 -users 10000 -postgres postgres://postgres@127.0.0.1:5432/db
//
// The fixture file is kept in -dir and reused by later runs of the same
// size (delete it to write it again). A PostgreSQL run loads into a new
// schema, which it drops afterwards.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/jackc/pgx/v5"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "importbench:", err)
		os.Exit(1)
	}
}

// result is what one import measured.
type result struct {
	wall      time.Duration
	cpu       time.Duration // the process's user and system time during the load
	peakHeap  uint64        // the most heap held by objects, sampled
	renderPer time.Duration // rendering one message's content, on average
	fileSize  int64
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("importbench", flag.ContinueOnError)
	messages := fs.Int("messages", 100000, "messages in the fixture")
	users := fs.Int("users", 2000, "users in the fixture")
	dir := fs.String("dir", os.TempDir(), "directory of the fixture file and the SQLite database")
	pg := fs.String("postgres", "", "load into a new schema of this PostgreSQL database instead of SQLite")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the load to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		pf, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	path := filepath.Join(*dir, fmt.Sprintf("importbench-%du-%dm.json", *users, *messages))
	if err := ensureFixture(path, zulipShape(*users, *messages)); err != nil {
		return err
	}
	var st interface {
		chatcore.Store
		Close() error
	}
	storeName := "sqlite"
	if *pg != "" {
		storeName = "postgres"
		schema := fmt.Sprintf("importbench_%d", os.Getpid())
		s, err := postgres.Open(ctx, *pg, postgres.WithSchema(schema), postgres.WithoutNotify())
		if err != nil {
			return err
		}
		defer dropSchema(ctx, *pg, schema)
		st = s
	} else {
		db := filepath.Join(*dir, fmt.Sprintf("importbench-%d.db", os.Getpid()))
		s, err := sqlite.Open(ctx, db)
		if err != nil {
			return err
		}
		defer func() {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				_ = os.Remove(db + suffix)
			}
		}()
		st = s
	}
	defer st.Close()
	svc := chatcore.New(st)
	res, err := measure(ctx, svc, path, *users, *messages)
	if err != nil {
		return err
	}
	renderTotal := res.renderPer * time.Duration(*messages)
	fmt.Fprintf(out, "store=%s users=%d messages=%d file=%.0fMB wall=%.1fs (%.0f messages/s) cpu=%.1fs load=%s peak_heap=%.0fMiB render=%.1fµs/message (~%.1fs, %.0f%% of the wall time)\n",
		storeName, *users, *messages, float64(res.fileSize)/1e6, res.wall.Seconds(), float64(*messages)/res.wall.Seconds(),
		res.cpu.Seconds(), loadAverage(),
		float64(res.peakHeap)/(1<<20), float64(res.renderPer.Nanoseconds())/1e3, renderTotal.Seconds(),
		100*renderTotal.Seconds()/res.wall.Seconds())
	return nil
}

// ensureFixture writes the fixture of sh to path unless it is there.
func ensureFixture(path string, sh shape) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := writeFixture(f, sh); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// measure loads the fixture at path into svc's empty store, sampling the
// heap meanwhile, then times the rendering of a sample of the contents.
func measure(ctx context.Context, svc *chatcore.Service, path string, users, messages int) (result, error) {
	var res result
	f, err := os.Open(path)
	if err != nil {
		return res, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		res.fileSize = fi.Size()
	}
	runtime.GC()
	stop := sampleHeap(&res.peakHeap)
	cpu0 := cpuTime()
	start := time.Now()
	err = fixture.Load(ctx, svc, f)
	res.wall = time.Since(start)
	res.cpu = cpuTime() - cpu0
	stop()
	if err != nil {
		return res, fmt.Errorf("loading %s: %w", path, err)
	}
	res.renderPer, err = renderCost(ctx, users, min(messages, 20000))
	return res, err
}

// sampleHeap samples the bytes of heap objects every 10 ms into peak,
// until the returned function is called.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// renderCost renders n message contents of the generator's kinds and
// returns the time per message. It renders them in a memory store holding
// the realm's users, so that the figure is the Markdown work alone: the
// load answers the renderer's reads of users and linkifiers from what it
// read before, without a statement each.
func renderCost(ctx context.Context, users, n int) (time.Duration, error) {
	st := memory.New()
	svc := chatcore.New(st)
	err := st.Update(ctx, func(tx chatcore.Tx) error {
		if err := tx.CreateRealm(ctx, &chatcore.Realm{ID: 1, StringID: "scale", Name: "Scale"}); err != nil {
			return err
		}
		for u := 1; u <= users; u++ {
			name := fmt.Sprintf("User %d", u)
			err := tx.CreateUser(ctx, &chatcore.User{ID: chatcore.UserID(u), RealmID: 1, Email: fmt.Sprintf("user%d@scale.test", u),
				FullName: name, FullNameKey: chatcore.FoldKey(name), Role: chatcore.RoleMember, IsActive: true,
				APIKeyHash: fmt.Sprint(u), Settings: chatcore.DefaultSettings()})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	var per time.Duration
	err = st.View(ctx, func(tx chatcore.Tx) error {
		start := time.Now()
		for i := range n {
			content := fmt.Sprintf("Message %d with **some** words, a `code` span and a [link](https://example.com/%d).", i, i%997)
			if i%20 == 0 { // the generator's share of mentions
				content = fmt.Sprintf("@**User %d** please look at message %d.", 1+i%users, i)
			}
			if _, _, err := svc.RenderContent(ctx, tx, 1, content); err != nil {
				return err
			}
		}
		per = time.Since(start) / time.Duration(n)
		return nil
	})
	return per, err
}

// cpuTime returns the user and system time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage returns the machine's load average over the last minute, or
// "?" where the system does not say: the machine may be shared, and a busy
// one stretches the wall time.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// dropSchema drops the schema a PostgreSQL run loaded into.
func dropSchema(ctx context.Context, dsn, schema string) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "importbench: dropping schema:", err)
	}
}
