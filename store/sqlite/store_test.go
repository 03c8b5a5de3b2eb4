package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/sqlitetest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// open opens a store on a fresh, migrated file (a copy of one migrated once
// per process) and closes it at the end of the test.
func open(t *testing.T, opts ...sqlite.Option) (*sqlite.Store, string) {
	t.Helper()
	is := is.New(t)
	path := sqlitetest.Path(t)
	s, err := sqlite.Open(context.Background(), path, opts...)
	is.NoErr(err) // store opens
	t.Cleanup(func() { s.Close() })
	return s, path
}

func update(t *testing.T, s store.Store, fn func(ctx context.Context, tx store.Tx) error) {
	t.Helper()
	is := is.New(t)
	is.NoErr(s.Update(context.Background(), func(tx store.Tx) error { return fn(context.Background(), tx) })) // update commits
}

func human(realm store.RealmID, email string) *store.User {
	return &store.User{RealmID: realm, Email: email, FullName: "User " + email, Role: store.RoleMember,
		IsActive: true, APIKeyHash: chatcore.HashAPIKey(email), AvatarSource: "G", DateJoined: epoch,
		Settings: store.DefaultSettings()}
}

func TestOpenRefusesMemory(t *testing.T) {
	is := is.New(t)
	_, err := sqlite.Open(context.Background(), ":memory:")
	is.True(err != nil) // an in-memory database is refused
}

func TestPragmasOnEveryConnection(t *testing.T) {
	is := is.New(t)
	s, _ := open(t, sqlite.WithReaders(6), sqlite.WithBusyTimeout(3*time.Second))
	writer, readers := sqlite.DBs(s)
	ctx := context.Background()

	// Hold six reader connections at once, so the pool has to open new ones.
	var conns []*sql.Conn
	for range 6 {
		c, err := readers.Conn(ctx)
		is.NoErr(err) // reader connection
		conns = append(conns, c)
	}
	for _, c := range conns {
		is.NoErr(sqlite.CheckConn(ctx, c, 3*time.Second, true)) // reader: WAL, foreign keys, busy timeout, query_only
		c.Close()
	}
	stats := readers.Stats()
	is.Equal(stats.MaxOpenConnections, 6) // the reader pool is bounded
	c, err := writer.Conn(ctx)
	is.NoErr(err)                                                 // writer connection
	is.NoErr(sqlite.CheckConn(ctx, c, 3*time.Second, false))      // writer: WAL, foreign keys, busy timeout, writable
	is.True(sqlite.CheckConn(ctx, c, 3*time.Second, true) != nil) // the writer is not query_only
	c.Close()
	is.Equal(writer.Stats().MaxOpenConnections, 1) // one writer connection
}

func TestMigrationVersion(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "chat.db")
	s, err := sqlite.Open(ctx, path)
	is.NoErr(err) // first open creates the schema
	is.NoErr(s.Close())

	raw, err := sql.Open("sqlite", "file:"+path)
	is.NoErr(err) // raw connection
	defer raw.Close()
	var v int
	is.NoErr(raw.QueryRow("PRAGMA user_version").Scan(&v)) // read version
	is.True(sqlite.SchemaVersion() >= 1)                   // at least one migration
	is.Equal(v, sqlite.SchemaVersion())                    // the version of the last migration is recorded

	// Reopening an up-to-date database applies nothing and works.
	s, err = sqlite.Open(ctx, path)
	is.NoErr(err) // reopen
	is.NoErr(s.Close())

	_, err = raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", sqlite.SchemaVersion()+1))
	is.NoErr(err) // pretend a newer program wrote the file
	_, err = sqlite.Open(ctx, path)
	is.True(errors.Is(err, sqlite.ErrNewerSchema)) // a newer schema is refused
}

func TestSettingColumns(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	writer, _ := sqlite.DBs(s)
	rows, err := writer.Query("SELECT name, type FROM pragma_table_info('users')")
	is.NoErr(err) // table info
	defer rows.Close()
	cols := map[string]string{}
	for rows.Next() {
		var name, typ string
		is.NoErr(rows.Scan(&name, &typ)) // column
		cols[name] = typ
	}
	is.NoErr(rows.Err()) // rows read
	settings := store.DefaultSettings()
	for i, name := range store.SettingNames() {
		typ, ok := cols[name]
		is.True(ok) // every setting has a column
		want := "INTEGER"
		if _, isString := settings.Fields()[i].(*string); isString {
			want = "TEXT"
		}
		is.Equal(typ, want) // the column type matches the field
	}
}

func TestUserRoundTripAndErrors(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ctx := context.Background()
	u := human(0, "Ärger@Example.com")
	u.Settings.ColorScheme = 3
	u.Settings.DefaultLanguage = "de"
	u.Settings.EnterSends = true
	var realm store.RealmID
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		r := &store.Realm{StringID: "zulip", Name: "Zulip", DateCreated: epoch}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		realm, u.RealmID = r.ID, r.ID
		return tx.CreateUser(ctx, u)
	})
	err := s.View(ctx, func(tx store.Tx) error {
		got, err := tx.UserByEmail(ctx, realm, "ärger@EXAMPLE.com")
		is.NoErr(err)      // found by folded e-mail (non-ASCII)
		is.Equal(*got, *u) // everything round-trips, settings included
		_, err = tx.UserByEmail(ctx, realm+1, u.Email)
		is.True(errors.Is(err, store.ErrNotFound)) // other realm: not found
		return nil
	})
	is.NoErr(err) // view

	err = s.Update(ctx, func(tx store.Tx) error {
		dup := human(realm, "ärger@example.COM")
		return tx.CreateUser(ctx, dup)
	})
	is.True(errors.Is(err, store.ErrConflict)) // duplicate e-mail by FoldKey is a conflict

	err = s.Update(ctx, func(tx store.Tx) error {
		return tx.CreateUser(ctx, human(999, "x@example.com"))
	})
	is.True(errors.Is(err, store.ErrNotFound)) // unknown realm (foreign key) is not found

	err = s.Update(ctx, func(tx store.Tx) error {
		return tx.CreateBotService(ctx, &store.BotService{BotID: 12345, Name: "x"})
	})
	is.True(errors.Is(err, store.ErrNotFound)) // unknown bot is not found
}

func TestViewRefusesWrites(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ctx := context.Background()
	err := s.View(ctx, func(tx store.Tx) error {
		return tx.CreateRealm(ctx, &store.Realm{StringID: "x"})
	})
	is.True(errors.Is(err, sqlite.ErrReadOnly)) // write through View fails
	_, readers := sqlite.DBs(s)
	_, err = readers.Exec("INSERT INTO realms (string_id, name, name_changes_disabled, email_changes_disabled, require_unique_names, empty_topic_display_name) VALUES ('x', 'x', 0, 0, 0, '')")
	is.True(err != nil) // reader connections are query_only
}

func TestRollbackOnErrorAndPanic(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ctx := context.Background()
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx store.Tx) error {
		if err := tx.CreateRealm(ctx, &store.Realm{StringID: "a"}); err != nil {
			return err
		}
		return boom
	})
	is.True(errors.Is(err, boom)) // fn's error is returned
	func() {
		defer func() { is.Equal(recover(), "panic in fn") }() // the panic is re-raised
		_ = s.Update(ctx, func(tx store.Tx) error {
			_ = tx.CreateRealm(ctx, &store.Realm{StringID: "b"})
			panic("panic in fn")
		})
	}()
	err = s.View(ctx, func(tx store.Tx) error {
		realms, err := tx.Realms(ctx)
		is.NoErr(err)            // list realms
		is.Equal(len(realms), 0) // neither write was kept
		return nil
	})
	is.NoErr(err) // view
	// The writer connection is usable after the panic.
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.CreateRealm(ctx, &store.Realm{StringID: "c"})
	})
}

// fixture creates a realm with users, a group tree and a channel.
type fixture struct {
	realm, other store.RealmID
	users        []store.UserID // 0..5 humans of realm; users[5] inactive
	bot          store.UserID
	stranger     store.UserID // user of the other realm
	outer, inner store.GroupID
	stream       *store.Stream
}

func newFixture(t *testing.T, s store.Store) *fixture {
	f := &fixture{}
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		r1 := &store.Realm{StringID: "one", Name: "One"}
		r2 := &store.Realm{StringID: "two", Name: "Two"}
		if err := tx.CreateRealm(ctx, r1); err != nil {
			return err
		}
		if err := tx.CreateRealm(ctx, r2); err != nil {
			return err
		}
		f.realm, f.other = r1.ID, r2.ID
		for i := range 6 {
			u := human(f.realm, fmt.Sprintf("u%d@example.com", i))
			u.IsActive = i != 5
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			f.users = append(f.users, u.ID)
		}
		b := human(f.realm, "bot@example.com")
		b.IsBot, b.BotType, b.BotOwnerID = true, store.BotTypeGeneric, f.users[0]
		if err := tx.CreateUser(ctx, b); err != nil {
			return err
		}
		f.bot = b.ID
		x := human(f.other, "x@example.com")
		if err := tx.CreateUser(ctx, x); err != nil {
			return err
		}
		f.stranger = x.ID
		// outer (id 100) has users 0, 1 and subgroup inner (id 101, created
		// later); inner has users 2, 5 (inactive), the bot and subgroup outer:
		// a cycle.
		outer := &store.Group{ID: 100, RealmID: f.realm, Name: "outer", Members: []store.UserID{f.users[0], f.users[1]},
			Subgroups: []store.GroupID{101}}
		if err := tx.CreateGroup(ctx, outer); err != nil {
			return err
		}
		inner := &store.Group{ID: 101, RealmID: f.realm, Name: "inner", Members: []store.UserID{f.users[2], f.users[5], f.bot},
			Subgroups: []store.GroupID{outer.ID}}
		if err := tx.CreateGroup(ctx, inner); err != nil {
			return err
		}
		f.outer, f.inner = outer.ID, inner.ID
		f.stream = &store.Stream{RealmID: f.realm, Name: "Général", HistoryPublicToSubscribers: true}
		return tx.CreateStream(ctx, f.stream)
	})
	return f
}

func TestGroupMembersAndBulkSettings(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ctx := context.Background()
	f := newFixture(t, s)

	err := s.View(ctx, func(tx store.Tx) error {
		got, err := tx.GroupMembers(ctx, []store.GroupID{f.inner})
		is.NoErr(err)                                                     // members
		is.Equal(got, []store.UserID{f.users[0], f.users[1], f.users[2]}) // active humans, recursively
		return nil
	})
	is.NoErr(err) // view

	update(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.RecordSettingEdits(ctx, f.users[1], []string{"color_scheme", "color_scheme", "enter_sends"})
	})
	var changed []store.UserID
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		var err error
		changed, err = tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{
			RealmID: f.realm, UserIDs: []store.UserID{f.users[4], f.stranger, f.bot}, GroupIDs: []store.GroupID{f.inner},
			Setting: "color_scheme", Value: 3, SkipIfEdited: true,
		})
		return err
	})
	// users 0 and 2 via groups, 4 explicitly; 1 edited it; bot and stranger skipped.
	is.Equal(changed, []store.UserID{f.users[0], f.users[2], f.users[4]}) // changed users, ascending

	update(t, s, func(ctx context.Context, tx store.Tx) error {
		var err error
		changed, err = tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{
			RealmID: f.realm, GroupIDs: []store.GroupID{f.outer}, Setting: "color_scheme", Value: 3,
		})
		return err
	})
	is.Equal(changed, []store.UserID{f.users[1]}) // without skip: only the user not yet holding the value

	err = s.View(ctx, func(tx store.Tx) error {
		u, err := tx.User(ctx, f.users[3])
		is.NoErr(err)                       // user 3
		is.Equal(u.Settings.ColorScheme, 1) // untouched user keeps the default
		u, err = tx.User(ctx, f.users[2])
		is.NoErr(err)                       // user 2
		is.Equal(u.Settings.ColorScheme, 3) // group member got the value
		edited, err := tx.EditedSettings(ctx, f.users[1])
		is.NoErr(err)                                             // edited settings
		is.Equal(edited, []string{"color_scheme", "enter_sends"}) // sorted, without duplicates
		return nil
	})
	is.NoErr(err) // view

	err = s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{RealmID: f.realm, Setting: `x"; DROP TABLE users; --`, Value: 1})
		return err
	})
	is.True(err != nil) // only whitelisted setting names reach SQL
	err = s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{RealmID: f.realm, Setting: "color_scheme", Value: "dark"})
		return err
	})
	is.True(err != nil) // a value of the wrong type is refused
}

func TestMessagesCascadeAndIDs(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ctx := context.Background()
	f := newFixture(t, s)
	topic := "Straße"
	var ids []store.MessageID
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		for i := range 5 {
			m := &store.Message{RealmID: f.realm, SenderID: f.users[0], Type: store.MessageTypeStream,
				RecipientID: f.stream.RecipientID, StreamID: f.stream.ID, Topic: topic, Content: "c", SentAt: epoch,
				Reactions:   []store.Reaction{{UserID: f.users[1], EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}},
				EditHistory: []store.EditHistoryEntry{{UserID: f.users[0], Timestamp: epoch, PrevContent: "old", PrevTopic: &topic}},
				Submessages: []store.Submessage{{SenderID: f.users[0], MsgType: "widget", Content: "{}"}},
			}
			if i == 4 {
				m.Topic = "other"
			}
			if err := tx.CreateMessage(ctx, m); err != nil {
				return err
			}
			ids = append(ids, m.ID)
		}
		return nil
	})
	err := s.View(ctx, func(tx store.Tx) error {
		m, err := tx.Message(ctx, ids[0])
		is.NoErr(err)                                  // message
		is.Equal(m.TopicKey, store.FoldKey("STRASSE")) // topic key folded in Go
		is.Equal(len(m.Reactions), 1)                  // reaction attached
		is.Equal(*m.EditHistory[0].PrevTopic, topic)   // edit history attached
		is.Equal(m.Submessages[0].MessageID, ids[0])   // submessage attached
		return nil
	})
	is.NoErr(err) // view

	key := store.FoldKey("STRASSE")
	var del []store.DeletedMessage
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		var err error
		del, err = tx.DeleteMessages(ctx, store.MessageFilter{RealmID: f.realm, StreamID: f.stream.ID, TopicKey: &key}, 3)
		return err
	})
	is.Equal(len(del), 3)       // one batch of three
	is.Equal(del[0].ID, ids[3]) // newest first
	is.Equal(del[2].ID, ids[1]) // down to the third newest of the topic

	writer, _ := sqlite.DBs(s)
	var reactions, history, subs int
	is.NoErr(writer.QueryRow("SELECT count(*) FROM reactions").Scan(&reactions))  // count reactions
	is.NoErr(writer.QueryRow("SELECT count(*) FROM edit_history").Scan(&history)) // count history
	is.NoErr(writer.QueryRow("SELECT count(*) FROM submessages").Scan(&subs))     // count submessages
	is.Equal(reactions, 2)                                                        // children of deleted messages cascaded
	is.Equal(history, 2)                                                          // history cascaded
	is.Equal(subs, 2)                                                             // submessages cascaded

	// Ids are never reused, even after deleting the newest message, and
	// explicit ids are kept with later ids going above them.
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: f.realm}, 100)
		if err != nil {
			return err
		}
		m := &store.Message{RealmID: f.realm, SenderID: f.users[0], Type: store.MessageTypeStream,
			RecipientID: f.stream.RecipientID, StreamID: f.stream.ID, Topic: "t"}
		if err := tx.CreateMessage(ctx, m); err != nil {
			return err
		}
		is.True(m.ID > ids[4]) // a deleted id is not reused
		m2 := &store.Message{ID: 1000, RealmID: f.realm, SenderID: f.users[0], Type: store.MessageTypeStream,
			RecipientID: f.stream.RecipientID, StreamID: f.stream.ID, Topic: "t"}
		if err := tx.CreateMessage(ctx, m2); err != nil {
			return err
		}
		is.Equal(m2.ID, store.MessageID(1000)) // explicit id kept
		m3 := &store.Message{RealmID: f.realm, SenderID: f.users[0], Type: store.MessageTypeStream,
			RecipientID: f.stream.RecipientID, StreamID: f.stream.ID, Topic: "t"}
		if err := tx.CreateMessage(ctx, m3); err != nil {
			return err
		}
		is.Equal(m3.ID, store.MessageID(1001)) // later ids go above it
		return nil
	})
}

func TestScheduledIDSpace(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	f := newFixture(t, s)
	var a, b store.ScheduledMessageID
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		m := &store.ScheduledMessage{RealmID: f.realm, SenderID: f.users[0], Kind: store.ScheduledSendLater,
			Type: store.MessageTypeStream, StreamID: f.stream.ID, Topic: "t", DeliverAt: epoch}
		if err := tx.CreateScheduledMessage(ctx, m); err != nil {
			return err
		}
		a = m.ID
		if err := tx.DeleteScheduledMessage(ctx, a); err != nil {
			return err
		}
		r := &store.ScheduledMessage{RealmID: f.realm, SenderID: f.users[0], Kind: store.ScheduledReminder,
			Type: store.MessageTypePrivate, DirectMembers: []store.UserID{f.users[0]}, DeliverAt: epoch}
		if err := tx.CreateScheduledMessage(ctx, r); err != nil {
			return err
		}
		b = r.ID
		return nil
	})
	is.True(b > a) // reminders and scheduled messages share one id space that never reuses ids
}

// planOf returns the EXPLAIN QUERY PLAN detail lines of query.
func planOf(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	is := is.New(t)
	rows, err := db.Query("EXPLAIN QUERY PLAN "+query, args...)
	is.NoErr(err) // explain
	defer rows.Close()
	var details []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		is.NoErr(rows.Scan(&id, &parent, &notused, &detail)) // plan row
		details = append(details, detail)
	}
	is.NoErr(rows.Err()) // plan read
	return details
}

// fullScan reports whether a plan scans table (or alias) from end to end,
// through the table or a whole index, instead of searching it.
func fullScan(plan []string, table string) bool {
	for _, d := range plan {
		if d == "SCAN "+table || strings.HasPrefix(d, "SCAN "+table+" ") {
			return true
		}
	}
	return false
}

// hasSort reports whether a plan sorts rows in a temporary b-tree.
func hasSort(plan []string) bool {
	for _, d := range plan {
		if strings.Contains(d, "TEMP B-TREE") {
			return true
		}
	}
	return false
}

func uses(plan []string, index string) bool {
	for _, d := range plan {
		if strings.Contains(d, "INDEX "+index) || strings.Contains(d, index) {
			return true
		}
	}
	return false
}

func TestQueryPlans(t *testing.T) {
	s, _ := open(t)
	f := newFixture(t, s)
	writer, _ := sqlite.DBs(s)

	t.Run("topic delete", func(t *testing.T) {
		is := is.New(t)
		key := "t"
		q, args := sqlite.DeleteSQL(store.MessageFilter{RealmID: f.realm, StreamID: f.stream.ID, TopicKey: &key}, 100)
		plan := planOf(t, writer, q, args...)
		is.True(!fullScan(plan, "messages"))         // no full scan of messages: plan %v
		is.True(uses(plan, "messages_stream_topic")) // the stream+topic index drives the batch
	})
	t.Run("topic delete from the covering index", func(t *testing.T) {
		is := is.New(t)
		key := "t"
		q, args, ok := sqlite.TopicDeleteSQL(store.MessageFilter{RealmID: f.realm, StreamID: f.stream.ID, TopicKey: &key, MinID: 2}, 100)
		is.True(ok) // a channel topic has the cheaper statement
		plan := planOf(t, writer, q, args...)
		is.True(!fullScan(plan, "messages"))                        // no full scan of messages
		is.True(uses(plan, "COVERING INDEX messages_stream_topic")) // the batch's ids come from the index alone
	})
	t.Run("reminder listing", func(t *testing.T) {
		is := is.New(t)
		q, args := sqlite.ScheduledSQL(store.ScheduledFilter{RealmID: f.realm, SenderID: f.users[0],
			Kind: store.ScheduledReminder, Delivered: new(bool)})
		plan := planOf(t, writer, q, args...)
		is.True(!fullScan(plan, "scheduled_messages")) // no full scan of scheduled messages
		is.True(uses(plan, "scheduled_sender"))        // sender+kind+delivered+deliver_at index
		is.True(!hasSort(plan))                        // the index gives the order: no sort
	})
	t.Run("due scan", func(t *testing.T) {
		is := is.New(t)
		q, args := sqlite.ScheduledSQL(store.ScheduledFilter{Delivered: new(bool), Failed: new(bool), DueBy: epoch, Limit: 100})
		plan := planOf(t, writer, q, args...)
		is.True(!fullScan(plan, "scheduled_messages")) // no full scan
		is.True(uses(plan, "scheduled_due"))           // delivered+failed+deliver_at index
	})
	t.Run("bulk settings", func(t *testing.T) {
		is := is.New(t)
		q := sqlite.BulkSettingSQL("color_scheme")
		plan := planOf(t, writer, q, f.realm, "[1,2]", fmt.Sprintf("[%d]", f.outer), 3, true, "color_scheme")
		is.True(!fullScan(plan, "users"))              // users are reached by id, not scanned
		is.True(!fullScan(plan, "user_setting_edits")) // the edit check is a key lookup
		is.True(!fullScan(plan, "m"))                  // group members by group key
	})
	t.Run("user lookups", func(t *testing.T) {
		is := is.New(t)
		is.True(uses(planOf(t, writer, "SELECT id FROM users WHERE realm_id = ? AND email_key = ?", 1, "a"), "users_realm_email")) // e-mail key index
		is.True(uses(planOf(t, writer, "SELECT id FROM users WHERE api_key_hash = ?", "h"), "users_api_key"))                      // api key index
		is.True(uses(planOf(t, writer, "SELECT id FROM users WHERE bot_owner_id = ?", 1), "users_bot_owner"))                      // bot owner index
	})
	t.Run("messages of a topic", func(t *testing.T) {
		is := is.New(t)
		key := "t"
		q, args, _ := sqlite.MessagesSQL(store.MessageQuery{RealmID: f.realm,
			Recipients: []store.RecipientID{f.stream.RecipientID}, TopicKey: &key, Newest: true, Limit: 1})
		plan := planOf(t, writer, q, args...)
		is.True(!fullScan(plan, "messages"))         // no full scan
		is.True(uses(plan, "messages_stream_topic")) // channel+topic index
		is.True(!hasSort(plan))                      // the index gives the order
	})
	t.Run("messages of a recipient", func(t *testing.T) {
		is := is.New(t)
		q, args, _ := sqlite.MessagesSQL(store.MessageQuery{RealmID: f.realm,
			Recipients: []store.RecipientID{f.stream.RecipientID}, AfterID: 10, Limit: 100})
		plan := planOf(t, writer, q, args...)
		is.True(!fullScan(plan, "messages"))      // no full scan
		is.True(uses(plan, "messages_recipient")) // recipient+id index
		is.True(!hasSort(plan))                   // the index gives the order
	})
	t.Run("messages of a sender", func(t *testing.T) {
		is := is.New(t)
		q, args := sqlite.DeleteSQL(store.MessageFilter{RealmID: f.realm, SenderID: f.users[0]}, 100)
		plan := planOf(t, writer, q, args...)
		is.True(!fullScan(plan, "m"))          // no full scan
		is.True(uses(plan, "messages_sender")) // sender index
	})
}

func TestConcurrentNoBusy(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ctx := context.Background()
	var realm store.RealmID
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		r := &store.Realm{StringID: "r", Name: "R"}
		err := tx.CreateRealm(ctx, r)
		realm = r.ID
		return err
	})
	const workers, rounds = 16, 15
	errs := make(chan error, workers*rounds*2)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range rounds {
				// Read-modify-write: the pattern that fails at once with
				// deferred transactions.
				errs <- s.Update(ctx, func(tx store.Tx) error {
					if _, err := tx.Realm(ctx, realm); err != nil {
						return err
					}
					return tx.CreateUser(ctx, human(realm, fmt.Sprintf("w%d-%d@example.com", w, i)))
				})
				errs <- s.View(ctx, func(tx store.Tx) error {
					_, err := tx.UserByEmail(ctx, realm, fmt.Sprintf("w%d-%d@example.com", w, i))
					return err
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		is.NoErr(err) // no SQLITE_BUSY (or any error) under concurrent use
	}
	err := s.View(ctx, func(tx store.Tx) error {
		users, err := tx.Users(ctx, store.UserFilter{RealmID: realm})
		is.Equal(len(users), workers*rounds) // every update committed
		return err
	})
	is.NoErr(err) // final view
}

func TestStatementCache(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ctx := context.Background()
	w0, r0 := sqlite.CachedStmts(s)
	is.Equal(w0+r0, 0) // a new store has no prepared statements
	for i := range 3 {
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			return tx.CreateRealm(ctx, &store.Realm{StringID: fmt.Sprintf("r%d", i)})
		})
		err := s.View(ctx, func(tx store.Tx) error {
			r, err := tx.RealmByStringID(ctx, fmt.Sprintf("r%d", i))
			is.NoErr(err)                               // the realm is found, through a cached statement after the first round
			is.Equal(r.StringID, fmt.Sprintf("r%d", i)) // the right realm
			return nil
		})
		is.NoErr(err) // view
	}
	w, r := sqlite.CachedStmts(s)
	is.Equal(w, 1) // the insert was prepared once and reused
	is.Equal(r, 1) // the lookup was prepared once and reused
}

func TestCancelledContext(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Update(ctx, func(tx store.Tx) error { return nil })
	is.True(errors.Is(err, context.Canceled)) // a cancelled context fails the update
	err = s.View(ctx, func(tx store.Tx) error { return nil })
	is.True(errors.Is(err, context.Canceled)) // and the view
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.CreateRealm(ctx, &store.Realm{StringID: "after"})
	}) // the writer connection is still usable
}
