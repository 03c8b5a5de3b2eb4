package sqlite_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/searchbench"
	"github.com/chatcore/chatcore/internal/testsupport/sqlitetest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
)

// searchBenchMessages is the size of the search benchmark's organisation:
// CHATCORE_SEARCH_MESSAGES, else 100,000.
func searchBenchMessages() int {
	if n, err := strconv.Atoi(os.Getenv("CHATCORE_SEARCH_MESSAGES")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

// BenchmarkSearch measures search next to its raw sibling (an FTS5 MATCH
// read in rowid order, joined to the messages of the viewer's channels, one
// statement), and sending and editing with the index (its triggers and its
// indexer) next to an identical database without any of it ("writes": run
// it with -benchtime 1x).
func BenchmarkSearch(b *testing.B) {
	st := sqlitetest.Open(b)
	o := searchbench.Generate(b, st, searchBenchMessages())
	_, readers := sqlite.DBs(st)
	raw := func(ctx context.Context, word string, recipients []store.RecipientID, limit int) ([]int64, error) {
		list := make([]string, len(recipients))
		for i, r := range recipients {
			list[i] = strconv.FormatInt(int64(r), 10)
		}
		rows, err := readers.QueryContext(ctx, `SELECT m.id FROM messages_fts CROSS JOIN messages m ON m.id = messages_fts.rowid
			WHERE messages_fts MATCH ? AND m.recipient_id IN (SELECT value FROM json_each(?))
			ORDER BY messages_fts.rowid DESC LIMIT ?`, `"`+word+`"`, "["+strings.Join(list, ",")+"]", limit)
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
		plain := sqlitetest.Open(b, sqlite.WithoutIndexer())
		po := searchbench.Generate(b, plain, searchBenchMessages()) // as many messages as st
		writer, _ := sqlite.DBs(plain)
		for _, trig := range []string{"messages_search_update", "messages_search_delete"} {
			if _, err := writer.Exec("DROP TRIGGER " + trig); err != nil {
				b.Fatal(err)
			}
		}
		// plain, as a bare store.Store, is no searchbench.Indexer: it has no
		// index to wait for.
		searchbench.CompareWrites(b, st, o, struct{ store.Store }{plain}, po, 300)
	})
}
