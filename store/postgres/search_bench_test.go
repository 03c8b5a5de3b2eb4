package postgres_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/internal/testsupport/searchbench"
	"github.com/chatcore/chatcore/store"
)

// searchBenchMessages is the size of the search benchmark's organisation:
// CHATCORE_SEARCH_MESSAGES, else 100,000.
func searchBenchMessages() int {
	if n, err := strconv.Atoi(os.Getenv("CHATCORE_SEARCH_MESSAGES")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// BenchmarkSearch measures search next to its raw sibling (the index's
// tsvector @@ plainto_tsquery over the viewer's channels, newest first, one
// statement), and sending and editing with the index next to an identical
// schema without it ("writes": run it with -benchtime 1x).
func BenchmarkSearch(b *testing.B) {
	st := pgtest.OpenUnpooled(b)
	o := searchbench.Generate(b, st, searchBenchMessages())
	ctx := context.Background()
	// As autovacuum leaves it: statistics, and the GIN index's pending
	// list of new entries merged into the index.
	if _, err := st.Pool().Exec(ctx, "VACUUM ANALYZE messages"); err != nil {
		b.Fatal(err)
	}
	raw := func(ctx context.Context, word string, recipients []store.RecipientID, limit int) ([]int64, error) {
		rows, err := st.Pool().Query(ctx, `SELECT m.id FROM messages m
			WHERE m.search_tsv @@ plainto_tsquery('english'::regconfig, $1)
			AND m.recipient_id = ANY($2) ORDER BY m.id DESC LIMIT $3`, word, recipients, limit)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, rows.Err()
	}
	searchbench.Run(b, st, o, raw)
	b.Run("writes", func(b *testing.B) {
		for b.Loop() {
		}
		plain := pgtest.OpenUnpooled(b)
		po := searchbench.Generate(b, plain, searchBenchMessages()) // as many messages as st
		if _, err := plain.Pool().Exec(ctx, "DROP INDEX messages_search"); err != nil {
			b.Fatal(err)
		}
		searchbench.CompareWrites(b, st, o, plain, po, 300)
	})
}
