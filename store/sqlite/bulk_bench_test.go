package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
)

// BenchmarkCreateMessages compares the bulk path with one CreateMessage per
// message, and the bulk path's statement sizes (rows per multi-row INSERT;
// 1 is a prepared single-row statement reused in the transaction), on
// batches of 5,000 messages a tenth of which have two reactions. Run it
// with:
//
//	go test -run '^$' -bench CreateMessages -benchtime 10x ./store/sqlite/
func BenchmarkCreateMessages(b *testing.B) {
	const batch = 5000
	run := func(b *testing.B, write func(ctx context.Context, tx store.Tx, ms []*store.Message) error) {
		ctx := context.Background()
		s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bulk.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		var st store.Stream
		var sender store.UserID
		err = s.Update(ctx, func(tx store.Tx) error {
			r := &store.Realm{StringID: "bulk", Name: "Bulk", DateCreated: epoch}
			if err := tx.CreateRealm(ctx, r); err != nil {
				return err
			}
			u := human(r.ID, "sender@example.com")
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			sender = u.ID
			st = store.Stream{RealmID: r.ID, Name: "general", DateCreated: epoch}
			return tx.CreateStream(ctx, &st)
		})
		if err != nil {
			b.Fatal(err)
		}
		content := strings.Repeat("Some words of a chat message. ", 6)
		b.ResetTimer()
		for range b.N {
			ms := make([]*store.Message, batch)
			for i := range ms {
				ms[i] = &store.Message{RealmID: st.RealmID, SenderID: sender, Type: store.MessageTypeStream,
					RecipientID: st.RecipientID, StreamID: st.ID, Topic: fmt.Sprintf("topic %d", i%50),
					Content: content, RenderedContent: "<p>" + content + "</p>", Client: "import", SentAt: epoch}
				if i%10 == 0 {
					ms[i].Reactions = []store.Reaction{
						{UserID: sender, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"},
						{UserID: sender, EmojiName: "tada", EmojiCode: "1f389", ReactionType: "unicode_emoji"},
					}
				}
			}
			if err := s.Update(ctx, func(tx store.Tx) error { return write(ctx, tx, ms) }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/msg")
	}
	b.Run("CreateMessage", func(b *testing.B) {
		run(b, func(ctx context.Context, tx store.Tx, ms []*store.Message) error {
			for _, m := range ms {
				if err := tx.CreateMessage(ctx, m); err != nil {
					return err
				}
			}
			return nil
		})
	})
	for _, rows := range []int{1, 16, 64, 256, 1024} {
		b.Run(fmt.Sprintf("CreateMessages/rows=%d", rows), func(b *testing.B) {
			defer sqlite.SetBulkRows(rows)()
			run(b, func(ctx context.Context, tx store.Tx, ms []*store.Message) error { return tx.CreateMessages(ctx, ms) })
		})
	}
}
