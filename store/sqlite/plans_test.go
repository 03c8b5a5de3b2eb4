package sqlite_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/plantest"
	"github.com/chatcore/chatcore/internal/testsupport/sqlitetest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
)

// The hot calls (plantest.Calls, by name) known to fail a check on
// SQLite today: knownSeqScans read a big table from end to end,
// knownFullSorts sort every matching row of one before a LIMIT keeps a few,
// knownBatchWalks run one statement more than plantest.MaxRepeats times
// (reading in batches what they filter in Go). An entry whose call passes
// is logged (plans at this size can change with the sampled statistics),
// and goes once it keeps passing.
var (
	knownSeqScans   = map[string]bool{}
	knownFullSorts  = map[string]bool{}
	knownBatchWalks = map[string]bool{}
)

// TestHotCallPlans: the statements of every hot call, on an organisation of
// realistic shape, reach messages, flags, reactions, the event log and the
// scheduled messages through indexes, never sort every match of one before
// a LIMIT, and no call reads in batches (see plantest.Run), but for the
// known failures listed above.
func TestHotCallPlans(t *testing.T) {
	if testing.Short() {
		t.Skip("generates an organisation of 100k messages")
	}
	ctx := context.Background()
	path := sqlitetest.Path(t)
	gen, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	writer, _ := sqlite.DBs(gen)
	var traced *sqlite.Store
	t.Cleanup(func() {
		if traced == nil { // generating failed: gen is still open
			gen.Close()
		}
	})
	plantest.Run(t, plantest.Harness{
		Store: gen,
		Exec: func(ctx context.Context, q string) error {
			_, err := writer.ExecContext(ctx, q)
			return err
		},
		Dialect: plantest.Dialect{
			Pair: func(a, b string) string { return "json_array(" + a + ", " + b + ")" },
			Time: func(s string) string { return s },
		},
		Traced: func(t *testing.T, rec *plantest.Recorder) store.Store {
			// Opened again, so that the row cache holds nothing the
			// generator's statements changed behind its back, with the
			// generator's messages indexed and without the indexer, whose
			// statements would count as those of whichever call ran.
			if err := gen.IndexSearch(ctx); err != nil {
				t.Fatal(err)
			}
			if err := gen.Close(); err != nil {
				t.Fatal(err)
			}
			traced, err = sqlite.Open(ctx, path, sqlite.WithoutIndexer(), sqlite.WithTrace(func(query string, args []any) {
				rec.Add(plantest.Statement{SQL: query, Args: args})
			}))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { traced.Close() })
			return traced
		},
		Explain: func(ctx context.Context, s plantest.Statement) (plantest.Findings, string, error) {
			w, _ := sqlite.DBs(traced)
			details, err := queryPlan(ctx, w, s.SQL, s.Args)
			if err != nil {
				return plantest.Findings{}, "", err
			}
			plan := ""
			for _, d := range details {
				plan += d + "\n"
			}
			return plantest.SQLitePlan(s.SQL, details), plan, nil
		},
	}, plantest.CI, plantest.Known{Scans: knownSeqScans, Sorts: knownFullSorts, Walks: knownBatchWalks})
}

// queryPlan returns the EXPLAIN QUERY PLAN detail lines of query run with
// args.
func queryPlan(ctx context.Context, db *sql.DB, query string, args []any) ([]string, error) {
	rows, err := db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var details []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return nil, err
		}
		details = append(details, detail)
	}
	return details, rows.Err()
}
