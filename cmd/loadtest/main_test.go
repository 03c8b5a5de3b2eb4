package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/testenv"
)

// TestSmallLoad runs a small load (the full one is `go run ./cmd/loadtest`)
// so the program cannot rot: every check of the full run applies.
func TestSmallLoad(t *testing.T) { smallLoad(t) }

// TestSmallLoadPostgres runs the same load on PostgreSQL (needs
// CHATCORE_TEST_POSTGRES) without group commit: concurrent sends, topic
// deletions in batches of 3 and settings writes conflict there, and every
// request must still succeed (Update retries, and runs a twice-failed write
// alone).
func TestSmallLoadPostgres(t *testing.T) {
	smallLoad(t, "-db", testenv.PostgresURL(t), "-batch", "3", "-c", "16", "-write-groups", "0")
}

// TestSmallLoadWriteGroups runs the same load with PostgreSQL group commit
// (the default -write-groups, the example server's): its writes share
// transactions, and the final state must still be exactly what the clients
// did.
func TestSmallLoadWriteGroups(t *testing.T) {
	smallLoad(t, "-db", testenv.PostgresURL(t), "-batch", "3", "-c", "16")
}

// smallLoad runs a small load with the extra arguments and checks its report.
func smallLoad(t *testing.T, args ...string) {
	is := is.New(t)
	var out strings.Builder
	err := run(t.Context(), append([]string{"-n", "400", "-c", "8"}, args...), &out)
	t.Log(out.String())
	is.NoErr(err)                                                         // no 5xx, no SQLITE_BUSY, consistent state
	is.True(strings.Contains(out.String(), "statuses: 200×400\n"))        // every request answered 200
	is.True(strings.Contains(out.String(), "OK: no 5xx, no SQLITE_BUSY")) // the verdict line
	m := regexp.MustCompile(`messages: (\d+) sent, (\d+) deleted`).FindStringSubmatch(out.String())
	is.True(m != nil)    // the message accounting is reported
	is.True(m[1] != "0") // messages were sent
	is.True(m[2] != "0") // and some deleted
	for _, col := range []string{"p50", "p90", "p99", "max", "requests/s"} {
		is.True(strings.Contains(out.String(), col)) // throughput and percentiles are printed
	}
}

// TestSmallBatches makes every topic deletion take several batches, each its
// own transaction, while sends to the same topic go on: the accounting by
// delete_message events must still match exactly.
func TestSmallBatches(t *testing.T) {
	is := is.New(t)
	var out strings.Builder
	err := run(t.Context(), []string{"-n", "400", "-c", "8", "-batch", "3"}, &out)
	t.Log(out.String())
	is.NoErr(err) // consistent with many small batches
	events := regexp.MustCompile(`\((\d+) delete_message events\)`).FindStringSubmatch(out.String())
	calls := regexp.MustCompile(`delete topic +(\d+) `).FindStringSubmatch(out.String())
	is.True(events != nil && calls != nil) // both reported
	e, _ := strconv.Atoi(events[1])
	c, _ := strconv.Atoi(calls[1])
	is.True(e > c) // more batches than calls: deletions really took several batches
}

// TestRateLimitedLoad turns the example server's per-user rate limit on with a
// small budget: 429s appear and are the only non-200 answers, and the state is
// still consistent (a refused request does nothing).
func TestRateLimitedLoad(t *testing.T) {
	is := is.New(t)
	var out strings.Builder
	err := run(t.Context(), []string{"-n", "200", "-c", "2", "-rate-limit", "20"}, &out)
	t.Log(out.String())
	is.NoErr(err)                                                                        // 429s are expected, nothing else is
	is.True(regexp.MustCompile(`statuses: 200×\d+ 429×\d+\n`).MatchString(out.String())) // both statuses, nothing else
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "0"},
		{"-c", "0"},
		{"-c", "1001"},
		{"-rate-limit", "-1"},
		{"-batch", "-1"},
		{"extra"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			is := is.New(t)
			err := run(t.Context(), args, &strings.Builder{})
			is.True(err != nil) // refused before anything starts
		})
	}
	t.Run("existing database", func(t *testing.T) {
		is := is.New(t)
		db := filepath.Join(t.TempDir(), "x.db")
		is.NoErr(os.WriteFile(db, nil, 0o600))
		err := run(t.Context(), []string{"-db", db, "-n", "1"}, &strings.Builder{})
		is.True(err != nil) // never runs against an existing database
	})
}

func TestCheckMessages(t *testing.T) {
	sent := []int64{5, 6, 7, 8}
	tests := []struct {
		name    string
		sent    []int64
		deleted []int64
		present []int64
		ok      bool
	}{
		{"consistent", sent, []int64{6, 8}, []int64{5, 7}, true},
		{"nothing deleted", sent, nil, sent, true},
		{"a deleted message survived", sent, []int64{6}, []int64{5, 6, 7, 8}, false},
		{"a message lost", sent, []int64{6}, []int64{5, 7}, false},
		{"a phantom message", sent, nil, []int64{5, 6, 7, 8, 9}, false},
		{"a phantom deletion", sent, []int64{9}, sent, false},
		{"an id sent twice", []int64{5, 5}, nil, []int64{5}, false},
		{"listed twice", sent, []int64{8}, []int64{5, 6, 6, 7}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			deleted := map[int64]bool{}
			for _, id := range tt.deleted {
				deleted[id] = true
			}
			err := checkMessages(tt.sent, deleted, tt.present)
			is.Equal(err == nil, tt.ok) // inconsistencies are caught
		})
	}
}

func TestPercentile(t *testing.T) {
	is := is.New(t)
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	is.Equal(percentile(d, 50), 50*time.Millisecond)   // nearest rank
	is.Equal(percentile(d, 90), 90*time.Millisecond)   // nearest rank
	is.Equal(percentile(d, 99), 99*time.Millisecond)   // nearest rank
	is.Equal(percentile(d, 100), 100*time.Millisecond) // the maximum
	is.Equal(percentile(d[:1], 99), time.Millisecond)  // one sample is every percentile
	is.Equal(percentile(nil, 50), time.Duration(0))    // no samples
}

func TestBusyLogLinesCounted(t *testing.T) {
	is := is.New(t)
	var b logBuffer
	_, _ = b.Write([]byte("level=INFO msg=fine\nlevel=ERROR msg=x err=\"database is locked (5) (SQLITE_BUSY)\"\nlevel=ERROR err=SQLITE_BUSY\n"))
	is.Equal(b.count(busyMarkers...), 2) // each line mentioning a busy error once
}
