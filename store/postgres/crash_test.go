package postgres_test

// Crash consistency on PostgreSQL: a child process (this test binary,
// re-executed in child mode by TestMain) deletes a topic through the
// Service in batches of 10, each its own transaction, and is killed with
// SIGKILL while the third batch's transaction is open, its deletes done but
// not committed. PostgreSQL rolls back the transaction of the lost
// connection: the two committed batches stay deleted, every other message
// is there with all of its rows, no lock is left behind, and a repeated
// call finishes the job.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// crashChildEnv, when set, makes the test binary the crash child; it holds
// "url|schema|owner|stream".
const crashChildEnv = "CHATCORE_POSTGRES_CRASH_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(crashChildEnv); v != "" {
		os.Exit(crashChild(v))
	}
	os.Exit(m.Run())
}

// stallingStore reports each committed Update on stdout and, in its third
// Update, prints "open" once fn has run and blocks, keeping the
// transaction open until the process is killed.
type stallingStore struct {
	store.Store
	n int
}

func (s *stallingStore) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	s.n++
	if s.n == 3 {
		return s.Store.Update(ctx, func(tx store.Tx) error {
			if err := fn(tx); err != nil {
				return err
			}
			fmt.Println("open")
			select {}
		})
	}
	err := s.Store.Update(ctx, fn)
	if err == nil {
		fmt.Println("committed")
	}
	return err
}

func crashChild(v string) int {
	parts := strings.Split(v, "|")
	owner, _ := strconv.ParseInt(parts[2], 10, 64)
	stream, _ := strconv.ParseInt(parts[3], 10, 64)
	ctx := context.Background()
	st, err := postgres.Open(ctx, parts[0], postgres.WithSchema(parts[1]))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	svc := chatcore.New(&stallingStore{Store: st}, chatcore.WithTopicDeletion(10, time.Hour))
	_, err = channels.DeleteTopic(ctx, svc, store.UserID(owner), store.StreamID(stream), "doomed")
	fmt.Println("error", err)
	return 1
}

func TestCrashMidTransaction(t *testing.T) {
	is := is.New(t)
	url, schema := pgtest.Schema(t)
	ctx := context.Background()
	st, err := postgres.Open(ctx, url, postgres.WithSchema(schema))
	is.NoErr(err) // store opens
	t.Cleanup(func() { st.Close() })

	var owner store.UserID
	var stream *store.Stream
	is.NoErr(st.Update(ctx, func(tx store.Tx) error {
		r := &store.Realm{StringID: "acme", Name: "Acme"}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		u := &store.User{RealmID: r.ID, Email: "owner@acme.test", FullName: "Owner", Role: store.RoleOwner,
			IsActive: true, AvatarSource: "G", Settings: store.DefaultSettings()}
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		owner = u.ID
		stream = &store.Stream{RealmID: r.ID, Name: "general", HistoryPublicToSubscribers: true}
		if err := tx.CreateStream(ctx, stream); err != nil {
			return err
		}
		for i := range 100 {
			topic := "doomed"
			if i%2 == 1 {
				topic = "kept"
			}
			m := &store.Message{RealmID: r.ID, SenderID: u.ID, Type: store.MessageTypeStream,
				RecipientID: stream.RecipientID, StreamID: stream.ID, Topic: topic, Content: "c", RenderedContent: "<p>c</p>",
				Reactions:   []store.Reaction{{UserID: u.ID, EmojiName: "smile", EmojiCode: "1f642", ReactionType: "unicode_emoji"}},
				EditHistory: []store.EditHistoryEntry{{UserID: u.ID, PrevContent: "b", PrevRenderedContent: "<p>b</p>"}}}
			if err := tx.CreateMessage(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})) // world written

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+strings.Join([]string{url, schema,
		strconv.FormatInt(int64(owner), 10), strconv.FormatInt(int64(stream.ID), 10)}, "|"))
	out, err := cmd.StdoutPipe()
	is.NoErr(err)
	is.NoErr(cmd.Start()) // child started
	lines := bufio.NewScanner(out)
	committed := 0
	for lines.Scan() {
		if lines.Text() == "committed" {
			committed++
			continue
		}
		is.Equal(lines.Text(), "open") // the child stalls in its third transaction
		break
	}
	is.NoErr(cmd.Process.Kill())
	_ = cmd.Wait()
	is.Equal(committed, 2) // two batches committed before the kill

	count := func(query string) int {
		var n int
		is.NoErr(st.Pool().QueryRow(ctx, query).Scan(&n))
		return n
	}
	is.Equal(count("SELECT count(*) FROM messages WHERE topic_key = 'doomed'"), 30) // 50 less the two committed batches
	is.Equal(count("SELECT count(*) FROM messages WHERE topic_key = 'kept'"), 50)   // the other topic untouched
	is.Equal(count("SELECT count(*) FROM reactions"), 80)                           // every message left has its reaction
	is.Equal(count("SELECT count(*) FROM edit_history"), 80)                        // and its edit history
	is.Equal(count(`SELECT count(*) FROM reactions r WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = r.message_id)`), 0)

	svc := chatcore.New(st, chatcore.WithTopicDeletion(10, time.Hour))
	deadline, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		res, err := channels.DeleteTopic(deadline, svc, owner, stream.ID, "doomed")
		is.NoErr(err) // no lock of the killed transaction is left
		if res.Complete {
			break
		}
	}
	is.Equal(count("SELECT count(*) FROM messages WHERE topic_key = 'doomed'"), 0) // a repeated call finishes the job
	is.Equal(count("SELECT count(*) FROM messages"), 50)
}
