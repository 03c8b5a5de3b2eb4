package sqlite_test

// Benchmarks of issue 4. Each library benchmark has a raw-SQL sibling that
// does the same work on the same data in the same run, so the ratio between
// them is what counts. The data sets are built inside the benchmarks (once per
// benchmark, not per iteration), so plain `go test` never pays for them; run
// them with, for example:
//
//	go test -run '^$' -bench . -benchtime 1x ./store/sqlite/

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/internal/testsupport/benchutil"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
)

// benchEnv is a store on a fresh file with a Service, a realm and an owner.
type benchEnv struct {
	store  *sqlite.Store
	writer *sql.DB
	reader *sql.DB
	svc    *chatcore.Service
	realm  store.RealmID
	admin  store.UserID
}

func newBenchEnv(b *testing.B, opts ...chatcore.Option) *benchEnv {
	b.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	env := &benchEnv{store: s, svc: chatcore.New(s, opts...)}
	env.writer, env.reader = sqlite.DBs(s)
	err = s.Update(ctx, func(tx store.Tx) error {
		r := &store.Realm{StringID: "bench", Name: "Bench", DateCreated: epoch}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		u := human(r.ID, "owner@example.com")
		u.Role = store.RoleOwner
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		env.realm, env.admin = r.ID, u.ID
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return env
}

// exec runs a setup statement on the writer.
func (env *benchEnv) exec(b *testing.B, query string, args ...any) sql.Result {
	b.Helper()
	res, err := env.writer.ExecContext(context.Background(), query, args...)
	if err != nil {
		b.Fatalf("%v\n%s", err, query)
	}
	return res
}

// count returns the single integer a setup query returns.
func (env *benchEnv) count(b *testing.B, query string, args ...any) int {
	b.Helper()
	var n int
	if err := env.writer.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// cloneUsers copies the owner's row n times as active members and returns
// the smallest new id; the new ids are consecutive.
func (env *benchEnv) cloneUsers(b *testing.B, n int) store.UserID {
	b.Helper()
	first := store.UserID(env.count(b, "SELECT max(id) + 1 FROM users"))
	var settingCols string
	for _, name := range store.SettingNames() {
		settingCols += ", " + name
	}
	env.exec(b, `WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x + 1 < ?)
		INSERT INTO users (id, realm_id, email, email_key, full_name, full_name_key, role, is_active, is_bot,
			bot_type, bot_owner_id, api_key_hash, password_hash, avatar_source, date_joined`+settingCols+`)
		SELECT ? + x, realm_id, 'u' || x || '@example.com', 'u' || x || '@example.com', 'User ' || x,
			'user ' || x, 400, 1, 0, 0, NULL, 'key' || x, '', 'G', date_joined`+settingCols+`
		FROM c, users WHERE users.id = ?`, n, first, env.admin)
	return first
}

// million adds the 1,000,000-message topic to BenchmarkDeleteTopic:
//
//	go test -run '^$' -bench DeleteTopic -benchtime 1x ./store/sqlite/ -million
var million = flag.Bool("million", false, "BenchmarkDeleteTopic also deletes a 1,000,000-message topic")

// BenchmarkDeleteTopic deletes a 100,000-message topic (and with -million a
// 1,000,000-message one; each message with a reaction and an edit-history
// row) from a channel that has another 100,000 messages in other topics.
// "library" calls channels.DeleteTopic until it reports completion (Zulip's
// batches of 100, each its own transaction with its events);
// "library-batch1000" does the same with batches of 1,000; "store" runs the
// store's DeleteMessages in batches of 100 without the Service; "raw-batch100"
// is the floor for Zulip's semantics: the same rows in the same batches of
// 100 newest first, each one raw DELETE ... RETURNING id (the ids an event
// needs) in its own transaction; "raw" runs one DELETE of all the rows. Each
// iteration refills the topic with the timer stopped. peak-heap-MiB is the Go
// heap in use at its highest during the deletion. "interleaved" runs library
// and raw-batch100 batch by batch in turn on two topics of the same size:
// after each library batch commits, the Service's event sink deletes one raw
// batch of the twin topic. It reports the time of each and their ratio,
// which the load of a shared machine, falling on both alike, hardly moves.
func BenchmarkDeleteTopic(b *testing.B) {
	b.Run("100k", func(b *testing.B) { benchDeleteTopic(b, 100_000) })
	if *million {
		b.Run("1M", func(b *testing.B) { benchDeleteTopic(b, 1_000_000) })
	}
}

func benchDeleteTopic(b *testing.B, topicSize int) {
	const otherSize = 100_000
	ctx := context.Background()
	env := newBenchEnv(b)
	st := &store.Stream{RealmID: env.realm, Name: "bench", HistoryPublicToSubscribers: true, DateCreated: epoch}
	if err := env.store.Update(ctx, func(tx store.Tx) error { return tx.CreateStream(ctx, st) }); err != nil {
		b.Fatal(err)
	}
	subscribers := env.cloneUsers(b, 20)
	env.exec(b, `INSERT INTO subscriptions (stream_id, user_id, active) SELECT ?, id, 1 FROM users WHERE id >= ?`,
		st.ID, subscribers)

	// fill inserts n messages to the channel in the topic the SQL expression
	// names ("'Doomed'"; "" for 100 topics "other N"), each with one
	// reaction and one edit-history row.
	fill := func(b *testing.B, n int, topic string) {
		b.Helper()
		before := env.count(b, "SELECT coalesce(max(id), 0) FROM messages")
		if topic == "" {
			topic = "'other ' || (x % 100)"
		}
		env.exec(b, `WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x + 1 < ?)
			INSERT INTO messages (realm_id, sender_id, type, recipient_id, stream_id, topic, topic_key,
				content, rendered_content, client, sent_at, is_me_message)
			SELECT ?, ?, 'stream', ?, ?, `+topic+`, lower(`+topic+`), 'hello', '<p>hello</p>', 'test', ?, 0 FROM c`,
			n, env.realm, env.admin, st.RecipientID, st.ID, epoch.Unix())
		env.exec(b, `INSERT INTO reactions (message_id, seq, user_id, emoji_name, emoji_code, reaction_type)
			SELECT id, 0, ?, 'smile', '1f604', 'unicode_emoji' FROM messages WHERE id > ?`, subscribers, before)
		env.exec(b, `INSERT INTO edit_history (message_id, seq, user_id, timestamp, prev_content,
			prev_rendered_content) SELECT id, 0, sender_id, ?, 'old', '<p>old</p>' FROM messages WHERE id > ?`,
			epoch.Unix(), before)
	}
	fill(b, otherSize, "")
	key := store.FoldKey("Doomed")

	check := func(b *testing.B) {
		b.Helper()
		if n := env.count(b, "SELECT count(*) FROM messages WHERE stream_id = ? AND topic_key = ?", st.ID, key); n != 0 {
			b.Fatalf("%d messages of the topic left", n)
		}
		if n := env.count(b, "SELECT count(*) FROM messages"); n != otherSize {
			b.Fatalf("%d messages left, want %d", n, otherSize)
		}
		if n := env.count(b, "SELECT count(*) FROM reactions"); n != otherSize {
			b.Fatalf("%d reactions left, want %d", n, otherSize)
		}
		if n := env.count(b, "SELECT count(*) FROM edit_history"); n != otherSize {
			b.Fatalf("%d edit-history rows left, want %d", n, otherSize)
		}
	}

	// rawBatch deletes the newest 100 messages of the topic in one
	// transaction and returns how many it deleted.
	rawBatch := func(b *testing.B, key string) int {
		tx, err := env.writer.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		rows, err := tx.QueryContext(ctx, `DELETE FROM messages WHERE id IN (SELECT id FROM messages
			WHERE stream_id = ? AND topic_key = ? ORDER BY id DESC LIMIT 100) RETURNING id`, st.ID, key)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if err := errors.Join(rows.Err(), rows.Close(), tx.Commit()); err != nil {
			b.Fatal(err)
		}
		return n
	}

	library := func(svc *chatcore.Service) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			var peak uint64
			t := benchutil.NewTimer(b)
			for b.Loop() {
				t.Stop()
				fill(b, topicSize, "'Doomed'")
				runtime.GC()
				h := benchutil.StartHeapSampler()
				t.Start()
				for {
					res, err := channels.DeleteTopic(ctx, svc, env.admin, st.ID, "doomed")
					if err != nil {
						b.Fatal(err)
					}
					if res.Complete {
						break
					}
				}
				t.Stop()
				peak = max(peak, h.Done())
				check(b)
				t.Start()
			}
			t.Done()
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		}
	}
	b.Run("library", library(env.svc))
	b.Run("library-batch1000", library(chatcore.New(env.store, chatcore.WithTopicDeletion(1000, 0))))
	b.Run("store", func(b *testing.B) {
		b.ReportAllocs()
		var peak uint64
		f := store.MessageFilter{RealmID: env.realm, StreamID: st.ID, TopicKey: &key}
		t := benchutil.NewTimer(b)
		for b.Loop() {
			t.Stop()
			fill(b, topicSize, "'Doomed'")
			runtime.GC()
			h := benchutil.StartHeapSampler()
			t.Start()
			for n := 100; n == 100; {
				err := env.store.Update(ctx, func(tx store.Tx) error {
					del, err := tx.DeleteMessages(ctx, f, 100)
					n = len(del)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			t.Stop()
			peak = max(peak, h.Done())
			check(b)
			t.Start()
		}
		t.Done()
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	})
	b.Run("raw-batch100", func(b *testing.B) {
		b.ReportAllocs()
		var peak uint64
		t := benchutil.NewTimer(b)
		for b.Loop() {
			t.Stop()
			fill(b, topicSize, "'Doomed'")
			runtime.GC()
			h := benchutil.StartHeapSampler()
			t.Start()
			for rawBatch(b, key) == 100 {
			}
			t.Stop()
			peak = max(peak, h.Done())
			check(b)
			t.Start()
		}
		t.Done()
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		var peak uint64
		t := benchutil.NewTimer(b)
		for b.Loop() {
			t.Stop()
			fill(b, topicSize, "'Doomed'")
			runtime.GC()
			h := benchutil.StartHeapSampler()
			t.Start()
			tx, err := env.writer.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, "DELETE FROM messages WHERE stream_id = ? AND topic_key = ?", st.ID, key); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			t.Stop()
			peak = max(peak, h.Done())
			check(b)
			t.Start()
		}
		t.Done()
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	})
	b.Run("interleaved", func(b *testing.B) {
		twin := store.FoldKey("Twin")
		benchutil.InterleavedTopicDeletion(b, benchutil.InterleavedDeletion{
			Store: env.store, Admin: env.admin, Stream: st.ID, Topic: "doomed",
			RawBatch: func(b *testing.B) int { return rawBatch(b, twin) },
			Fill: func(b *testing.B) {
				fill(b, topicSize, "'Doomed'")
				fill(b, topicSize, "'Twin'")
			},
			Check: check,
		})
	})
}

// BenchmarkBulkSettings sets color_scheme for a 20,000-member group with
// skip_if_already_edited=true; every tenth member edited the setting
// themselves and is skipped. Each iteration flips the value between 2 and 3,
// so every iteration changes the same 18,000 users. "library" is
// accounts.UpdateSettings with target_users, "store" the store's
// UpdateSettingBulk alone, "raw" one UPDATE statement.
func BenchmarkBulkSettings(b *testing.B) {
	const members = 20_000
	ctx := context.Background()
	env := newBenchEnv(b)
	first := env.cloneUsers(b, members)
	ids := make([]store.UserID, members)
	for i := range ids {
		ids[i] = first + store.UserID(i)
	}
	g := &store.Group{RealmID: env.realm, Name: "everyone", Members: ids}
	if err := env.store.Update(ctx, func(tx store.Tx) error { return tx.CreateGroup(ctx, g) }); err != nil {
		b.Fatal(err)
	}
	env.exec(b, "INSERT INTO user_setting_edits (user_id, setting) SELECT id, 'color_scheme' FROM users WHERE id >= ? AND id % 10 = 0", first)
	const want = members - members/10

	flip := 0
	next := func() int { flip++; return 2 + flip%2 }
	check := func(b *testing.B, v int) {
		b.Helper()
		if n := env.count(b, "SELECT count(*) FROM users WHERE color_scheme = ?", v); n != want {
			b.Fatalf("%d users hold %d, want %d", n, v, want)
		}
	}

	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		t := benchutil.NewTimer(b)
		for b.Loop() {
			v := next()
			err := accounts.UpdateSettings(ctx, env.svc, env.admin, accounts.SettingsUpdate{
				ColorScheme: &v,
				TargetUsers: &accounts.TargetUsers{GroupIDs: []store.GroupID{g.ID}, SkipIfAlreadyEdited: new(true)},
			})
			if err != nil {
				b.Fatal(err)
			}
			t.Stop()
			check(b, v)
			t.Start()
		}
		t.Done()
	})
	b.Run("store", func(b *testing.B) {
		b.ReportAllocs()
		t := benchutil.NewTimer(b)
		for b.Loop() {
			v := next()
			var changed []store.UserID
			err := env.store.Update(ctx, func(tx store.Tx) error {
				var err error
				changed, err = tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{
					RealmID: env.realm, GroupIDs: []store.GroupID{g.ID}, Setting: "color_scheme", Value: v,
					SkipIfEdited: true,
				})
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			if len(changed) != want {
				b.Fatalf("changed %d users, want %d", len(changed), want)
			}
		}
		t.Done()
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		t := benchutil.NewTimer(b)
		for b.Loop() {
			v := next()
			tx, err := env.writer.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			res, err := tx.ExecContext(ctx, `UPDATE users SET color_scheme = ?1
				WHERE id IN (SELECT user_id FROM group_members WHERE group_id = ?2)
					AND is_active = 1 AND is_bot = 0 AND color_scheme IS NOT ?1
					AND NOT EXISTS (SELECT 1 FROM user_setting_edits e WHERE e.user_id = users.id AND e.setting = 'color_scheme')`,
				v, g.ID)
			if err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n != want {
				b.Fatalf("updated %d users, want %d", n, want)
			}
		}
		t.Done()
	})
}

// BenchmarkReminders lists the 1,000 reminders of one user among 1,000,000
// scheduled-message rows (other senders, both kinds, some delivered).
// "library" is Service.Reminders, "store" the store's ScheduledMessages in a
// View, "raw" the indexed SELECT of the same columns, scanned into locals.
func BenchmarkReminders(b *testing.B) {
	const rows, mine = 1_000_000, 1_000
	ctx := context.Background()
	env := newBenchEnv(b)
	user := env.admin
	env.exec(b, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?4)
		INSERT INTO scheduled_messages (realm_id, sender_id, kind, type, stream_id, topic, direct_members, content,
			rendered_content, deliver_at, delivered, failed, failure_message, delivered_message_id,
			reminder_target_message_id, reminder_note)
		SELECT ?1,
			CASE WHEN x % 1000 = 0 THEN ?2 ELSE 1000000 + x % 997 END,
			CASE WHEN x % 1000 = 0 THEN 2 ELSE 1 + x % 2 END,
			'private', NULL, '', '[' || ?2 || ']', 'remember ' || x, '<p>remember ' || x || '</p>',
			?3 + (x * 7919) % 1000003,
			CASE WHEN x % 1000 = 0 THEN 0 ELSE x % 3 = 0 END,
			0, '', NULL, x, ''
		FROM c`, env.realm, user, epoch.Unix(), rows)
	env.exec(b, "ANALYZE")
	if n := env.count(b, "SELECT count(*) FROM scheduled_messages"); n != rows {
		b.Fatalf("%d rows", n)
	}

	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		t := benchutil.NewTimer(b)
		for b.Loop() {
			got, err := scheduled.Reminders(ctx, env.svc, user)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != mine {
				b.Fatalf("%d reminders, want %d", len(got), mine)
			}
		}
		t.Done()
	})
	b.Run("store", func(b *testing.B) {
		b.ReportAllocs()
		t := benchutil.NewTimer(b)
		for b.Loop() {
			err := env.store.View(ctx, func(tx store.Tx) error {
				got, err := tx.ScheduledMessages(ctx, store.ScheduledFilter{RealmID: env.realm, SenderID: user,
					Kind: store.ScheduledReminder, Delivered: new(false)})
				if err == nil && len(got) != mine {
					err = fmt.Errorf("%d reminders, want %d", len(got), mine)
				}
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		t.Done()
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		type row struct {
			id, realm, sender, kind          int64
			typ, topic                       string
			stream, deliveredID, target      sql.NullInt64
			members                          sql.NullString
			content, rendered, failure, note string
			deliverAt                        int64
			delivered, failed                bool
		}
		t := benchutil.NewTimer(b)
		for b.Loop() {
			rs, err := env.reader.QueryContext(ctx, `SELECT id, realm_id, sender_id, kind, type, stream_id, topic,
				direct_members, content, rendered_content, deliver_at, delivered, failed, failure_message,
				delivered_message_id, reminder_target_message_id, reminder_note
				FROM scheduled_messages WHERE realm_id = ? AND sender_id = ? AND kind = 2 AND delivered = 0
				ORDER BY deliver_at, id`, env.realm, user)
			if err != nil {
				b.Fatal(err)
			}
			var out []row
			for rs.Next() {
				var r row
				if err := rs.Scan(&r.id, &r.realm, &r.sender, &r.kind, &r.typ, &r.stream, &r.topic, &r.members,
					&r.content, &r.rendered, &r.deliverAt, &r.delivered, &r.failed, &r.failure, &r.deliveredID,
					&r.target, &r.note); err != nil {
					b.Fatal(err)
				}
				out = append(out, r)
			}
			if err := rs.Err(); err != nil {
				b.Fatal(err)
			}
			rs.Close()
			if len(out) != mine {
				b.Fatalf("%d rows, want %d", len(out), mine)
			}
		}
		t.Done()
	})
}

// BenchmarkConcurrentSettings: see [benchutil.ConcurrentSettings].
func BenchmarkConcurrentSettings(b *testing.B) {
	benchutil.ConcurrentSettings(b, func(b *testing.B) store.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}

// BenchmarkEventsFor reads a user's log entries as a queue's poll does, the
// user being in 1, 100 or 1,000 audiences (channels and conversations with
// live entries, 20 entries each): "caught-up" with nothing after the queue's
// position, "behind-100" with 100 entries of the log after it (some of them
// the user's), "behind-1000" past the point where the store walks the
// user's audiences instead of the entries.
func BenchmarkEventsFor(b *testing.B) {
	for _, audiences := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("audiences=%d", audiences), func(b *testing.B) {
			ctx := context.Background()
			s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			var events []store.LoggedEvent
			for range 20 {
				for k := range audiences {
					events = append(events, store.LoggedEvent{RealmID: 1, UserIDs: []store.UserID{1, store.UserID(1000 + k)},
						Data: []byte(`{"type":"message"}`)})
				}
			}
			if err := s.Update(ctx, func(tx store.Tx) error { return tx.AppendEvents(ctx, events) }); err != nil {
				b.Fatal(err)
			}
			head := events[len(events)-1].ID
			for _, behind := range []int64{0, 100, 1000} {
				name := fmt.Sprintf("behind-%d", behind)
				if behind == 0 {
					name = "caught-up"
				}
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						err := s.View(ctx, func(tx store.Tx) error {
							_, err := tx.EventsFor(ctx, store.EventLogQuery{RealmID: 1, UserID: 1, After: head - behind, Limit: 100})
							return err
						})
						if err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
