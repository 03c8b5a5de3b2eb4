package sqlite_test

// Crash consistency: a child process (this test binary, re-executed in child
// mode by TestMain) deletes a large topic in small batches, or deactivates a
// user together with their channel messages, and is killed with SIGKILL while
// a write transaction is open. The child reports each deleted batch and waits
// for the parent's go-ahead, so the kill point does not depend on how the two
// processes are scheduled. The reopened database must pass SQLite's own
// checks, hold no orphaned rows, hold every message either with all of its
// rows or not at all, keep exactly the committed batches (topic deletion: the
// acknowledged ones; deactivation, one transaction: none), and let a repeated
// call finish the job.

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// crashChildEnv, when set in the environment, makes the test binary act as
// the crash child: it names the database file to work on.
const crashChildEnv = "CHATCORE_SQLITE_CRASH_CHILD"

// The world of the crash test.
const (
	crashBigTopic   = "Big Topic"
	crashSmallCount = 50 // messages in each of the other topics
	crashBatch      = 25
)

var crashOtherTopics = []string{"other one", "other two", "big topic (not)"}

func TestMain(m *testing.M) {
	if v := os.Getenv(crashChildEnv); v != "" {
		mode, path, _ := strings.Cut(v, ":")
		os.Exit(crashChild(mode, path))
	}
	os.Exit(m.Run())
}

// The crash test's operations (the child's modes).
const (
	crashDeleteTopic = "delete-topic"    // DeleteTopic of the big topic
	crashDeactivate  = "deactivate-user" // DeactivateUser of the member, deleting their channel messages
)

// crashChild runs the operation of mode on the database at path until it
// finishes (or, as intended, is killed). It returns the process exit code.
func crashChild(mode, path string) int {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash child: open:", err)
		return 2
	}
	defer s.Close()
	ids, err := crashIDs(ctx, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		return 2
	}
	paced := &crashPacedStore{Store: s, acks: bufio.NewReader(os.Stdin)}
	svc := chatcore.New(paced, chatcore.WithTopicDeletion(crashBatch, time.Hour))
	if err := crashOperation(ctx, svc, mode, ids); err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		return 2
	}
	fmt.Fprintln(os.Stderr, "crash child: finished before being killed")
	return 0
}

// crashPacedStore is the child's store: after each DeleteMessages call (one
// batch) it reports the batch on stdout as "batch N tx T deleted D acked A"
// (N counts batches, T the write transactions the store began, A the
// go-aheads read so far, which lets the parent check that the child really
// waited) and waits for a line on stdin before going on, inside the open
// transaction. So the parent decides
// how far the child gets, however the two processes are scheduled, and kills
// it while a write transaction is open. If no go-ahead can come (stdin ends
// or fails, as when the parent has died or given up), the child exits at once
// without committing the open transaction: it never gets further than the
// parent allowed. It is used by one goroutine only.
type crashPacedStore struct {
	store.Store
	acks    *bufio.Reader
	updates int // write transactions begun
	batches int // DeleteMessages calls made
	acked   int // go-aheads read
}

// Update implements store.Store.
func (p *crashPacedStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	p.updates++
	n := p.updates
	return p.Store.Update(ctx, func(tx store.Tx) error { return fn(crashPacedTx{tx, p, n}) })
}

type crashPacedTx struct {
	store.Tx
	p  *crashPacedStore
	tx int // which of the store's write transactions this is
}

// crashAck is the parent's go-ahead for one batch.
const crashAck = "go on\n"

// DeleteMessages implements store.MessageStore.
func (t crashPacedTx) DeleteMessages(ctx context.Context, f store.MessageFilter, limit int) ([]store.DeletedMessage, error) {
	deleted, err := t.Tx.DeleteMessages(ctx, f, limit)
	t.p.batches++
	// os.Stdout is unbuffered: the line is in the pipe before the wait.
	fmt.Printf("batch %d tx %d deleted %d acked %d\n", t.p.batches, t.tx, len(deleted), t.p.acked)
	if ack, rerr := t.p.acks.ReadString('\n'); rerr != nil || ack != crashAck {
		fmt.Fprintf(os.Stderr, "crash child: no go-ahead after batch %d (%q, %v): exiting without commit\n", t.p.batches, ack, rerr)
		os.Exit(3)
	}
	t.p.acked++
	return deleted, err
}

// crashOperation runs the operation of mode to completion.
func crashOperation(ctx context.Context, svc *chatcore.Service, mode string, w crashWorld) error {
	switch mode {
	case crashDeleteTopic:
		res, err := channels.DeleteTopic(ctx, svc, w.admin, w.stream, crashBigTopic)
		if err == nil && !res.Complete {
			err = errors.New("topic deletion incomplete")
		}
		return err
	case crashDeactivate:
		return accounts.DeactivateUser(ctx, svc, w.admin, w.member, accounts.DeactivateUserRequest{
			Actions: &accounts.DeactivationActions{DeletePublicChannelMessages: true},
		})
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// crashWorld holds the ids the parent and the child share.
type crashWorld struct {
	realm  store.RealmID
	admin  store.UserID
	member store.UserID
	stream store.StreamID
}

// crashIDs finds the world's ids in an existing database.
func crashIDs(ctx context.Context, s store.Store) (crashWorld, error) {
	var w crashWorld
	err := s.View(ctx, func(tx store.Tx) error {
		r, err := tx.RealmByStringID(ctx, "crash")
		if err != nil {
			return err
		}
		u, err := tx.UserByEmail(ctx, r.ID, "admin@crash.test")
		if err != nil {
			return err
		}
		m, err := tx.UserByEmail(ctx, r.ID, "member@crash.test")
		if err != nil {
			return err
		}
		st, err := tx.StreamByName(ctx, r.ID, "general")
		if err != nil {
			return err
		}
		w = crashWorld{realm: r.ID, admin: u.ID, member: m.ID, stream: st.ID}
		return nil
	})
	return w, err
}

// crashSetup writes the world: an administrator and a member subscribed to a
// public channel with the big topic (each message with a reaction, an
// edit-history entry and a submessage) and a few smaller topics, plus a
// direct message. It returns the channel.
func crashSetup(t *testing.T, s *sqlite.Store) crashWorld {
	t.Helper()
	is := is.New(t)
	ctx := context.Background()
	var (
		w         crashWorld
		templates []store.MessageID
	)
	is.NoErr(s.Update(ctx, func(tx store.Tx) error {
		r := &store.Realm{StringID: "crash", Name: "Crash", DateCreated: epoch}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		admin := human(r.ID, "admin@crash.test")
		admin.Role = store.RoleAdministrator
		member := human(r.ID, "member@crash.test")
		for _, u := range []*store.User{admin, member} {
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
		}
		st := &store.Stream{RealmID: r.ID, Name: "general", HistoryPublicToSubscribers: true, DateCreated: epoch}
		if err := tx.CreateStream(ctx, st); err != nil {
			return err
		}
		for _, u := range []store.UserID{admin.ID, member.ID} {
			if err := tx.PutSubscription(ctx, store.Subscription{StreamID: st.ID, UserID: u, Active: true}); err != nil {
				return err
			}
		}
		w = crashWorld{realm: r.ID, admin: admin.ID, member: member.ID, stream: st.ID}
		send := func(topic string, i int) (store.MessageID, error) {
			prev := fmt.Sprintf("draft %d", i)
			m := &store.Message{
				RealmID: r.ID, SenderID: member.ID, Type: store.MessageTypeStream,
				RecipientID: st.RecipientID, StreamID: st.ID, Topic: topic,
				Content: fmt.Sprintf("message %d", i), RenderedContent: fmt.Sprintf("<p>message %d</p>", i),
				Client: "test", SentAt: epoch.Add(time.Duration(i) * time.Second), LastEditedAt: epoch.Add(time.Duration(i+1) * time.Second),
				Reactions: []store.Reaction{{UserID: admin.ID, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}},
				EditHistory: []store.EditHistoryEntry{{UserID: member.ID, Timestamp: epoch.Add(time.Duration(i+1) * time.Second),
					PrevContent: prev, PrevRenderedContent: "<p>" + prev + "</p>"}},
				Submessages: []store.Submessage{{SenderID: member.ID, MsgType: "widget", Content: `{"type":"vote"}`}},
			}
			err := tx.CreateMessage(ctx, m)
			return m.ID, err
		}
		// One message per topic through the Store; the big topic's comes first
		// and is the channel's oldest.
		var firstID store.MessageID
		for i, topic := range append([]string{crashBigTopic}, crashOtherTopics...) {
			id, err := send(topic, i)
			if err != nil {
				return err
			}
			if i == 0 {
				firstID = id
			}
			templates = append(templates, id)
		}
		st.FirstMessageID = firstID
		if err := tx.UpdateStream(ctx, st); err != nil {
			return err
		}
		rid, err := tx.DirectRecipient(ctx, r.ID, []store.UserID{admin.ID, member.ID})
		if err != nil {
			return err
		}
		return tx.CreateMessage(ctx, &store.Message{RealmID: r.ID, SenderID: admin.ID, Type: store.MessageTypePrivate,
			RecipientID: rid, DirectMembers: []store.UserID{admin.ID, member.ID}, Content: "dm", RenderedContent: "<p>dm</p>",
			Client: "test", SentAt: epoch})
	}))
	// Copy the template messages with SQL, children included, which takes a
	// fraction of a second instead of 80,000 statements. Column lists come
	// from the schema itself. The other topics are copied between two halves
	// of the big one, so the topics interleave.
	writer, _ := sqlite.DBs(s)
	tx, err := writer.BeginTx(ctx, nil)
	is.NoErr(err)
	defer tx.Rollback()
	clone := func(template store.MessageID, copies int) {
		is.NoErr(crashClone(ctx, tx, template, copies)) // the template is copied
	}
	clone(templates[0], crashBigCount/2-1)
	for _, id := range templates[1:] {
		clone(id, crashSmallCount-1)
	}
	clone(templates[0], crashBigCount/2)
	is.NoErr(tx.Commit()) // the copies commit
	return w
}

// crashClone inserts copies of message template, each with copies of the
// template's reactions, edit history and submessages.
func crashClone(ctx context.Context, tx *sql.Tx, template store.MessageID, copies int) error {
	cols := func(table string, skip ...string) (string, error) {
		rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
		if err != nil {
			return "", err
		}
		defer rows.Close()
		var names []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				return "", err
			}
			if !slices.Contains(skip, n) {
				names = append(names, n)
			}
		}
		return strings.Join(names, ", "), rows.Err()
	}
	msgCols, err := cols("messages", "id")
	if err != nil {
		return err
	}
	var before store.MessageID
	if err := tx.QueryRowContext(ctx, "SELECT max(id) FROM messages").Scan(&before); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO messages (`+msgCols+`) SELECT `+msgCols+` FROM messages, n WHERE id = ? ORDER BY i`, copies, template)
	if err != nil {
		return err
	}
	for _, child := range []string{"reactions", "edit_history", "submessages"} {
		c, err := cols(child, "message_id", "id")
		if err != nil {
			return err
		}
		prefixed := "c." + strings.ReplaceAll(c, ", ", ", c.")
		_, err = tx.ExecContext(ctx, `INSERT INTO `+child+` (message_id, `+c+`) SELECT m.id, `+prefixed+`
			FROM messages m JOIN `+child+` c ON c.message_id = ? WHERE m.id > ?`, template, before)
		if err != nil {
			return fmt.Errorf("%s: %w", child, err)
		}
	}
	return nil
}

// crashReader opens a read-only connection pool on the database file, as a
// separate observer of what the child has committed.
func crashReader(t *testing.T, path string) *sql.DB {
	t.Helper()
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func crashCount(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestCrashDuringTopicDeletion(t *testing.T) { crashTest(t, crashDeleteTopic) }

func TestCrashDuringDeactivation(t *testing.T) { crashTest(t, crashDeactivate) }

// crashTest runs the operation of mode in a child process, kills the child
// part-way through and checks the database.
func crashTest(t *testing.T, mode string) {
	is := is.New(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crash.db")
	s, err := sqlite.Open(ctx, path)
	is.NoErr(err) // the store opens
	start := time.Now()
	w := crashSetup(t, s)
	is.NoErr(s.Close()) // the set-up store closes
	t.Logf("set-up: %d messages in %v", crashBigCount+crashSmallCount*len(crashOtherTopics)+1, time.Since(start))

	// scope selects the messages the operation deletes.
	scope, arg := "topic_key = ?", any(store.TopicKey(crashBigTopic))
	if mode == crashDeactivate {
		scope, arg = "sender_id = ? AND stream_id != 0", any(w.member)
	}
	reader := crashReader(t, path)
	total := crashCount(t, reader, "SELECT count(*) FROM messages")
	inScope := crashCount(t, reader, "SELECT count(*) FROM messages WHERE "+scope, arg)
	is.True(inScope >= crashBigCount) // the messages to delete are in place

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), crashChildEnv+"="+mode+":"+path)
	var stderr strings.Builder
	child.Stderr = &stderr
	acks, err := child.StdinPipe()
	is.NoErr(err)
	batches, err := child.StdoutPipe()
	is.NoErr(err)
	is.NoErr(child.Start()) // the child starts
	t.Cleanup(func() {
		// A failed check must not leave the child running (or the temporary
		// directory in use).
		if child.ProcessState == nil {
			_ = child.Process.Kill()
			_ = child.Wait()
		}
	})

	// Let the child delete killAfter batches, one at a time, and kill it
	// while it waits inside the transaction of batch killAfter+1, before that
	// batch is acknowledged. Topic deletion commits each batch in its own
	// transaction, and the child can only begin the transaction of batch n+1
	// after committing batch n: so at the kill exactly the killAfter
	// acknowledged batches have committed. Deactivation runs every batch in
	// one transaction, still open at the kill: nothing has committed. Every
	// reported batch must be full, so the end was not reached.
	killAfter := min(40, crashBigCount/crashBatch/3)
	lines := bufio.NewScanner(batches)
	for n := 1; n <= killAfter+1; n++ {
		if !lines.Scan() {
			t.Fatalf("the child stopped after %d batches: %v: %s", n-1, child.Wait(), stderr.String())
		}
		var got, txn, deleted, acked int
		if _, err := fmt.Sscanf(lines.Text(), "batch %d tx %d deleted %d acked %d", &got, &txn, &deleted, &acked); err != nil {
			t.Fatalf("the child said %q instead of reporting batch %d: %v", lines.Text(), n, err)
		}
		wantTx := n // topic deletion: one transaction per batch
		if mode == crashDeactivate {
			wantTx = 1 // deactivation: one transaction for everything
		}
		is.Equal(got, n)              // the child reports its batches in order
		is.Equal(acked, n-1)          // the child waited for the go-ahead of every earlier batch
		is.Equal(txn, wantTx)         // the batch runs in the expected transaction
		is.Equal(deleted, crashBatch) // the batch is full: the scope is not exhausted
		if n <= killAfter {
			_, err := io.WriteString(acks, crashAck)
			is.NoErr(err) // the child is told to go on
		}
	}
	is.NoErr(child.Process.Signal(syscall.SIGKILL)) // the child is killed mid-way
	err = child.Wait()
	status, ok := err.(*exec.ExitError)
	is.True(ok && status.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL) // the child died of SIGKILL, not of its own accord
	is.NoErr(reader.Close())                                                     // the observer lets go before recovery
	t.Logf("child killed in batch %d after %v", killAfter+1, time.Since(start))

	// Reopen: recovery of the WAL happens here.
	s, err = sqlite.Open(ctx, path)
	is.NoErr(err) // the database reopens after the crash
	t.Cleanup(func() { s.Close() })
	db, _ := sqlite.DBs(s)
	crashCheck(t, db)
	remaining := crashCount(t, db, "SELECT count(*) FROM messages WHERE "+scope, arg)
	t.Logf("killed with %d of %d messages left", remaining, inScope)
	if mode == crashDeleteTopic {
		is.Equal(remaining, inScope-killAfter*crashBatch) // every acknowledged batch committed, the open one did not
	} else {
		is.Equal(remaining, inScope) // the deactivation's one transaction was open at the kill: nothing of it committed
	}
	var activeAfterCrash bool
	is.NoErr(s.View(ctx, func(tx store.Tx) error {
		u, err := tx.User(ctx, w.member)
		activeAfterCrash = err == nil && u.IsActive
		return err
	}))
	is.True(activeAfterCrash) // the deactivation did not commit
	// Batches go newest first and each is atomic: what is left is exactly
	// the oldest messages of the scope.
	var maxLeft int
	is.NoErr(db.QueryRow("SELECT coalesce(max(id), 0) FROM messages WHERE "+scope, arg).Scan(&maxLeft))
	is.Equal(crashCount(t, db, "SELECT count(*) FROM messages WHERE id <= ? AND "+scope, maxLeft, arg), remaining) // the remaining messages are the oldest ones
	is.Equal(crashCount(t, db, "SELECT count(*) FROM messages"), total-(inScope-remaining))                        // nothing outside the scope was touched
	t.Logf("checks done after %v", time.Since(start))

	// A repeated call finishes the job.
	svc := chatcore.New(s, chatcore.WithTopicDeletion(500, time.Hour))
	is.NoErr(crashOperation(ctx, svc, mode, w)) // the repeated call completes
	t.Logf("repeated call done after %v", time.Since(start))
	crashCheck(t, db)
	is.Equal(crashCount(t, db, "SELECT count(*) FROM messages WHERE "+scope, arg), 0) // every message of the scope is gone
	is.Equal(crashCount(t, db, "SELECT count(*) FROM messages"), total-inScope)       // and nothing else
	var first store.MessageID
	var active bool
	is.NoErr(s.View(ctx, func(tx store.Tx) error {
		st, err := tx.Stream(ctx, w.stream)
		if err != nil {
			return err
		}
		first = st.FirstMessageID
		u, err := tx.User(ctx, w.member)
		active = err == nil && u.IsActive
		return err
	}))
	oldest := store.MessageID(crashCount(t, db, "SELECT coalesce(min(id), 0) FROM messages WHERE stream_id = ?", w.stream))
	is.Equal(first, oldest)                   // first_message_id names the channel's oldest surviving message
	is.Equal(active, mode != crashDeactivate) // the deactivation (only) deactivated the member
}

// crashCheck runs the consistency checks of a database after a crash:
// SQLite's integrity and foreign key checks, no reaction, edit-history entry
// or submessage without its message, and every channel message whole (each
// was written with one of each).
func crashCheck(t *testing.T, db *sql.DB) {
	t.Helper()
	is := is.New(t)
	var integrity string
	is.NoErr(db.QueryRow("PRAGMA integrity_check").Scan(&integrity))
	is.Equal(integrity, "ok") // SQLite's integrity check passes
	rows, err := db.Query("PRAGMA foreign_key_check")
	is.NoErr(err)
	fkProblems := 0
	for rows.Next() {
		fkProblems++
	}
	is.NoErr(rows.Err())
	is.NoErr(rows.Close())
	is.Equal(fkProblems, 0) // no foreign key violations
	channelMessages := crashCount(t, db, "SELECT count(*) FROM messages WHERE stream_id != 0")
	for _, child := range []string{"reactions", "edit_history", "submessages"} {
		orphans := crashCount(t, db, "SELECT count(*) FROM "+child+" WHERE message_id NOT IN (SELECT id FROM messages)")
		is.Equal(orphans, 0)                                                        // no child row outlives its message
		is.Equal(crashCount(t, db, "SELECT count(*) FROM "+child), channelMessages) // one per surviving channel message
	}
	partial := crashCount(t, db, `SELECT count(*) FROM messages m WHERE m.stream_id != 0 AND (
		(SELECT count(*) FROM reactions r WHERE r.message_id = m.id) != 1 OR
		(SELECT count(*) FROM edit_history e WHERE e.message_id = m.id) != 1 OR
		(SELECT count(*) FROM submessages x WHERE x.message_id = m.id) != 1)`)
	is.Equal(partial, 0) // no message lost some of its rows
}
