package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
)

// BenchmarkCreateMessages compares the bulk path (COPY) with one
// CreateMessage per message and with its raw sibling of the other kind, a
// multi-row INSERT of the messages from arrays (unnest), on batches of
// 5,000 messages a tenth of which have two reactions (the INSERT writes no
// reactions, so it gets a head start). Run it with:
//
//	go test -run '^$' -bench CreateMessages -benchtime 10x ./store/postgres/
func BenchmarkCreateMessages(b *testing.B) {
	const batch = 5000
	run := func(b *testing.B, write func(ctx context.Context, tx store.Tx, ms []*store.Message) error) {
		ctx := context.Background()
		s := pgtest.OpenUnpooled(b)
		var st store.Stream
		var sender store.UserID
		err := s.Update(ctx, func(tx store.Tx) error {
			r := &store.Realm{StringID: "bulk", Name: "Bulk", DateCreated: epoch}
			if err := tx.CreateRealm(ctx, r); err != nil {
				return err
			}
			u := &store.User{RealmID: r.ID, Email: "sender@example.com", FullName: "Sender", Role: store.RoleMember,
				IsActive: true, APIKeyHash: "sender", AvatarSource: "G", DateJoined: epoch, Settings: store.DefaultSettings()}
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
			if write == nil {
				rawInsert(b, s.Pool(), ms)
				continue
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
	b.Run("CreateMessages", func(b *testing.B) {
		run(b, func(ctx context.Context, tx store.Tx, ms []*store.Message) error { return tx.CreateMessages(ctx, ms) })
	})
	b.Run("raw/unnest-insert", func(b *testing.B) { run(b, nil) })
}

// rawInsert inserts the messages (not their reactions) with one INSERT ...
// SELECT FROM unnest of one array per column, in a transaction of its own.
func rawInsert(b *testing.B, pool interface {
	Begin(context.Context) (pgx.Tx, error)
}, ms []*store.Message) {
	ctx := context.Background()
	n := len(ms)
	realm, sender, rcpt, stream := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	typ, topic, key, content, html, client := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, m := range ms {
		realm[i], sender[i], rcpt[i], stream[i] = int64(m.RealmID), int64(m.SenderID), int64(m.RecipientID), int64(m.StreamID)
		typ[i], topic[i], key[i], content[i], html[i], client[i] = string(m.Type), m.Topic, store.TopicKey(m.Topic), m.Content, m.RenderedContent, m.Client
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `INSERT INTO messages (realm_id, sender_id, type, recipient_id, stream_id, topic, topic_key,
		content, rendered_content, client, sent_at, is_me_message, default_flags)
		SELECT r, s, t, rc, st, tp, k, c, h, cl, $11, false, 0
		FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[],
			$8::text[], $9::text[], $10::text[]) AS u(r, s, t, rc, st, tp, k, c, h, cl)`,
		realm, sender, typ, rcpt, stream, topic, key, content, html, client, epoch)
	if err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		b.Fatal(err)
	}
}
