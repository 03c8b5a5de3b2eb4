package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// TestInterleavedSendsCommit: two transactions that each create channel
// messages with their flag rows, interleaved so that each inserts into the
// last page of messages_pkey after the other has been there, both commit on
// their first attempt: writing a flag row reads nothing of its message, so
// the two sends share no read and write. The control re-adds a foreign key
// from the flag rows to their messages, whose check reads the message
// through that page: PostgreSQL then cancels the first send, which is what
// every pair of concurrent sends suffered before.
func TestInterleavedSendsCommit(t *testing.T) {
	for _, control := range []bool{false, true} {
		name := map[bool]string{false: "flag rows read nothing", true: "control: a foreign key reads the message"}[control]
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			url, schema := pgtest.UnpooledSchema(t) // the control changes the schema
			open := func() *postgres.Store {
				st, err := postgres.Open(ctx, url, postgres.WithSchema(schema), postgres.WithMaxAttempts(1),
					postgres.WithWriteGroups(0), postgres.WithPoolConfig(pgtest.Fast))
				is.NoErr(err)
				t.Cleanup(func() { st.Close() })
				return st
			}
			a, b := open(), open()
			w := chattest.New(t, chattest.OnStore(a))
			_, ann, general := annInGeneral(t, w, "interleaved")
			if control {
				_, err := a.Pool().Exec(ctx, `ALTER TABLE user_message_flags ADD FOREIGN KEY (message_id) REFERENCES messages (id)`)
				is.NoErr(err)
			}
			// send creates a message and its sender's flag row, and reads
			// the sender, which sends both writes to the server first.
			send := func(ctx context.Context, tx store.Tx) error {
				m := &store.Message{RealmID: general.RealmID, SenderID: ann.ID, Type: store.MessageTypeStream,
					RecipientID: general.RecipientID, StreamID: general.ID, Topic: "t", Content: "hi",
					RenderedContent: "<p>hi</p>", Client: "test", SentAt: time.Now()}
				if err := tx.CreateMessage(ctx, m); err != nil {
					return err
				}
				if err := tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{{UserID: ann.ID, MessageID: m.ID, Flags: store.FlagRead}}); err != nil {
					return err
				}
				_, err := tx.User(ctx, ann.ID)
				return err
			}
			sent, committed := make(chan struct{}), make(chan struct{})
			first := make(chan error, 1)
			go func() {
				calls := 0
				first <- a.Update(ctx, func(tx store.Tx) error {
					if calls++; calls > 1 {
						return nil // not reached with one attempt
					}
					if err := send(ctx, tx); err != nil {
						return err
					}
					close(sent)
					<-committed
					return send(ctx, tx) // after the other's send: into the page it was in
				})
			}()
			<-sent
			second := b.Update(ctx, func(tx store.Tx) error { return send(ctx, tx) })
			close(committed)
			is.NoErr(second) // the second send commits: it ends first
			err := <-first
			if control {
				is.True(postgres.IsSerializationFailure(err)) // the control: PostgreSQL cancels the first
				return
			}
			is.NoErr(err) // both committed
			var n int
			is.NoErr(a.Pool().QueryRow(ctx, `SELECT count(*) FROM messages m JOIN user_message_flags f ON f.message_id = m.id`).Scan(&n))
			is.Equal(n, 3) // three messages, each with its flag row
		})
	}
}
