package postgres_test

// The store benchmarks of store/sqlite, on PostgreSQL: each library
// benchmark has a raw-SQL sibling that does the same work on the same data in
// the same run, so the ratio between them is what counts. The data sets are
// built inside the benchmarks, in a schema dropped afterwards; they need
// CHATCORE_TEST_POSTGRES:
//
//	CHATCORE_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/test \
//		go test -run '^$' -bench . -benchtime 1x ./store/postgres/

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/internal/testsupport/benchutil"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/reactions"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// benchEnv is a store in a fresh schema with a Service, a realm and an owner.
type benchEnv struct {
	store *postgres.Store
	pool  *pgxpool.Pool
	svc   *chatcore.Service
	realm store.RealmID
	admin store.UserID
}

func newBenchEnv(b *testing.B, opts ...chatcore.Option) *benchEnv {
	b.Helper()
	ctx := context.Background()
	s := pgtest.OpenUnpooled(b)
	env := &benchEnv{store: s, pool: s.Pool(), svc: chatcore.New(s, opts...)}
	err := s.Update(ctx, func(tx store.Tx) error {
		r := &store.Realm{StringID: "bench", Name: "Bench", DateCreated: epoch}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		u := &store.User{RealmID: r.ID, Email: "owner@example.com", FullName: "Owner", Role: store.RoleOwner,
			IsActive: true, APIKeyHash: "owner", AvatarSource: "G", DateJoined: epoch, Settings: store.DefaultSettings()}
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

// exec runs a setup statement.
func (env *benchEnv) exec(b *testing.B, query string, args ...any) {
	b.Helper()
	if _, err := env.pool.Exec(context.Background(), query, args...); err != nil {
		b.Fatalf("%v\n%s", err, query)
	}
}

// count returns the single integer a setup query returns.
func (env *benchEnv) count(b *testing.B, query string, args ...any) int {
	b.Helper()
	var n int
	if err := env.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// cloneUsers copies the owner's row n times as active members and returns
// their ids, ascending.
func (env *benchEnv) cloneUsers(b *testing.B, n int) []store.UserID {
	b.Helper()
	var settingCols string
	for _, name := range store.SettingNames() {
		settingCols += ", " + pgx.Identifier{name}.Sanitize()
	}
	rows, err := env.pool.Query(context.Background(), `INSERT INTO users (realm_id, email, email_key, full_name,
			full_name_key, role, is_active, is_bot, bot_type, bot_owner_id, api_key_hash, password_hash,
			avatar_source, date_joined`+settingCols+`)
		SELECT realm_id, 'u' || x || '@example.com', 'u' || x || '@example.com', 'User ' || x,
			'user ' || x, 400, true, false, 0, NULL, 'key' || x, '', 'G', date_joined`+settingCols+`
		FROM generate_series(0, $1 - 1) x, users WHERE users.id = $2
		RETURNING id`, n, env.admin)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[store.UserID])
	if err != nil {
		b.Fatal(err)
	}
	return ids
}

// BenchmarkDeleteTopic deletes a 100,000-message topic, and with -million a
// 1,000,000-message one (each message with a reaction and an edit-history
// row), from a channel that has another 100,000 messages in other topics.
// "library" calls channels.DeleteTopic until it reports completion (batches of
// 100, each its own transaction with its events); "library-batch1000" does the
// same with batches of 1,000; "store" runs the store's DeleteMessages in
// batches of 100 without the Service; "raw-batch100" is the floor for Zulip's
// semantics: the same rows in the same batches of 100 newest first, each one
// raw DELETE ... RETURNING id (the ids an event needs) in its own SERIALIZABLE
// transaction, as the store's Update runs them, each batch looking for the
// topic's newest 100 messages; "raw-batch100-below" looks below the lowest id
// the previous batch deleted, as the library and "store" do, so that it does
// not walk the index entries of the rows already deleted, which PostgreSQL
// keeps until vacuum ("raw-batch100-readcommitted": raw-batch100 at
// PostgreSQL's default isolation); "raw" runs one DELETE of the same rows.
// Each iteration refills the topic with the timer stopped. peak-heap-MiB is
// the Go heap in use at its highest during the deletion. "interleaved" runs
// library and raw-batch100-below batch by batch in turn on two topics of the
// same size: after each library batch commits, the Service's event sink
// deletes one raw batch of the twin topic. It reports the time of each and
// their ratio, which the load of a shared machine, falling on both alike,
// hardly moves.
func BenchmarkDeleteTopic(b *testing.B) {
	b.Run("100k", func(b *testing.B) { benchDeleteTopic(b, 100_000) })
	if *million {
		b.Run("1M", func(b *testing.B) { benchDeleteTopic(b, 1_000_000) })
	}
}

// million adds the 1,000,000-message topic to BenchmarkDeleteTopic:
//
//	go test -run '^$' -bench DeleteTopic -benchtime 1x ./store/postgres/ -million
var million = flag.Bool("million", false, "BenchmarkDeleteTopic also deletes a 1,000,000-message topic")

// writeGroups runs BenchmarkSend and BenchmarkConcurrentSettings with
// write groups (see postgres.WithWriteGroups), to compare them with none:
//
//	go test -run '^$' -bench 'Send|ConcurrentSettings' ./store/postgres/ -write-groups 2
var writeGroups = flag.Int("write-groups", 0, "BenchmarkSend and BenchmarkConcurrentSettings run with this many write groups")

func benchDeleteTopic(b *testing.B, topicSize int) {
	const otherSize = 100_000
	ctx := context.Background()
	env := newBenchEnv(b)
	st := &store.Stream{RealmID: env.realm, Name: "bench", HistoryPublicToSubscribers: true, DateCreated: epoch}
	if err := env.store.Update(ctx, func(tx store.Tx) error { return tx.CreateStream(ctx, st) }); err != nil {
		b.Fatal(err)
	}
	subscribers := env.cloneUsers(b, 20)
	env.exec(b, `INSERT INTO subscriptions (stream_id, user_id, active) SELECT $1, id, true FROM users WHERE id >= $2`,
		st.ID, subscribers[0])

	// fill inserts n messages to the channel in the topic the SQL expression
	// names ("'Doomed'"; "" for 100 topics "other N"), each with one
	// reaction and one edit-history row.
	fill := func(b *testing.B, n int, topic string) {
		b.Helper()
		before := env.count(b, "SELECT coalesce(max(id), 0) FROM messages")
		if topic == "" {
			topic = "'other ' || (x % 100)"
		}
		env.exec(b, `INSERT INTO messages (realm_id, sender_id, type, recipient_id, stream_id, topic, topic_key,
				content, rendered_content, client, sent_at, is_me_message)
			SELECT $1, $2, 'stream', $3, $4, `+topic+`, lower(`+topic+`), 'hello', '<p>hello</p>', 'test', $5, false
			FROM generate_series(0, $6 - 1) x`,
			env.realm, env.admin, st.RecipientID, st.ID, epoch, n)
		env.exec(b, `INSERT INTO reactions (message_id, seq, user_id, emoji_name, emoji_code, reaction_type)
			SELECT id, 0, $1, 'smile', '1f604', 'unicode_emoji' FROM messages WHERE id > $2`, subscribers[0], before)
		env.exec(b, `INSERT INTO edit_history (message_id, seq, user_id, timestamp, prev_content,
			prev_rendered_content) SELECT id, 0, sender_id, $1, 'old', '<p>old</p>' FROM messages WHERE id > $2`,
			epoch, before)
		env.exec(b, "ANALYZE")
	}
	fill(b, otherSize, "")
	key := store.FoldKey("Doomed")

	check := func(b *testing.B) {
		b.Helper()
		if n := env.count(b, "SELECT count(*) FROM messages WHERE stream_id = $1 AND topic_key = $2", st.ID, key); n != 0 {
			b.Fatalf("%d messages of the topic left", n)
		}
		for _, table := range []string{"messages", "reactions", "edit_history"} {
			if n := env.count(b, "SELECT count(*) FROM "+table); n != otherSize {
				b.Fatalf("%d rows of %s left, want %d", n, table, otherSize)
			}
		}
	}
	// run measures one deletion per iteration.
	run := func(b *testing.B, del func(b *testing.B)) {
		b.ReportAllocs()
		var peak uint64
		t := benchutil.NewTimer(b)
		for b.Loop() {
			t.Stop()
			fill(b, topicSize, "'Doomed'")
			runtime.GC()
			h := benchutil.StartHeapSampler()
			t.Start()
			del(b)
			t.Stop()
			peak = max(peak, h.Done())
			check(b)
			t.Start()
		}
		t.Done()
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	}
	library := func(svc *chatcore.Service) func(b *testing.B) {
		return func(b *testing.B) {
			run(b, func(b *testing.B) {
				for {
					res, err := channels.DeleteTopic(ctx, svc, env.admin, st.ID, "doomed")
					if err != nil {
						b.Fatal(err)
					}
					if res.Complete {
						return
					}
				}
			})
		}
	}
	b.Run("library", library(env.svc))
	b.Run("library-batch1000", library(chatcore.New(env.store, chatcore.WithTopicDeletion(1000, 0))))
	b.Run("store", func(b *testing.B) {
		run(b, func(b *testing.B) {
			f := store.MessageFilter{RealmID: env.realm, StreamID: st.ID, TopicKey: &key}
			for n := 100; n == 100; {
				err := env.store.Update(ctx, func(tx store.Tx) error {
					del, err := tx.DeleteMessages(ctx, f, 100)
					if n = len(del); n > 0 {
						f.BeforeID = del[n-1].ID
					}
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	// rawBatch deletes the newest 100 messages of the topic in one
	// transaction, those below *below when below is not nil (and then sets
	// *below to the lowest id it deleted), and returns how many it deleted.
	rawBatch := func(b *testing.B, iso pgx.TxIsoLevel, key string, below *int64) int {
		tx, err := env.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: iso})
		if err != nil {
			b.Fatal(err)
		}
		// The sweep's statement has the shape of the store's, whose ids go
		// to the DELETE as one array; the rescanning one keeps Zulip's IN.
		pick, args := "SELECT id FROM messages WHERE stream_id = $1 AND topic_key = $2", []any{st.ID, key}
		if below != nil && *below != 0 {
			pick, args = pick+" AND id < $3", append(args, *below)
		}
		pick += " ORDER BY id DESC LIMIT 100"
		query := "DELETE FROM messages WHERE id IN (" + pick + ") RETURNING id"
		if below != nil {
			query = "DELETE FROM messages WHERE id = ANY(ARRAY(" + pick + ")) RETURNING id"
		}
		rows, err := tx.Query(ctx, query, args...)
		var ids []int64
		if err == nil {
			ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		}
		if err == nil {
			err = tx.Commit(ctx)
		}
		if err != nil {
			_ = tx.Rollback(ctx)
			b.Fatal(err)
		}
		if below != nil && len(ids) > 0 {
			*below = slices.Min(ids)
		}
		return len(ids)
	}
	rawBatches := func(iso pgx.TxIsoLevel, sweep bool) func(b *testing.B) {
		return func(b *testing.B) {
			run(b, func(b *testing.B) {
				var below *int64
				if sweep {
					below = new(int64)
				}
				for rawBatch(b, iso, key, below) == 100 {
				}
			})
		}
	}
	b.Run("raw-batch100", rawBatches(pgx.Serializable, false))
	b.Run("raw-batch100-below", rawBatches(pgx.Serializable, true))
	b.Run("raw-batch100-readcommitted", rawBatches(pgx.ReadCommitted, false))
	b.Run("raw", func(b *testing.B) {
		run(b, func(b *testing.B) {
			env.exec(b, "DELETE FROM messages WHERE stream_id = $1 AND topic_key = $2", st.ID, key)
		})
	})
	b.Run("interleaved", func(b *testing.B) {
		twin := store.FoldKey("Twin")
		var below int64
		benchutil.InterleavedTopicDeletion(b, benchutil.InterleavedDeletion{
			Store: env.store, Admin: env.admin, Stream: st.ID, Topic: "doomed",
			RawBatch: func(b *testing.B) int { return rawBatch(b, pgx.Serializable, twin, &below) },
			Fill: func(b *testing.B) {
				fill(b, topicSize, "'Doomed'")
				fill(b, topicSize, "'Twin'")
				below = 0
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
	ids := env.cloneUsers(b, members)
	g := &store.Group{RealmID: env.realm, Name: "everyone", Members: ids}
	if err := env.store.Update(ctx, func(tx store.Tx) error { return tx.CreateGroup(ctx, g) }); err != nil {
		b.Fatal(err)
	}
	env.exec(b, "INSERT INTO user_setting_edits (user_id, setting) SELECT id, 'color_scheme' FROM users WHERE id >= $1 AND id % 10 = 0", ids[0])
	env.exec(b, "ANALYZE")
	want := members - env.count(b, "SELECT count(*) FROM user_setting_edits")

	flip := 0
	next := func() int { flip++; return 2 + flip%2 }
	check := func(b *testing.B, v int) {
		b.Helper()
		if n := env.count(b, "SELECT count(*) FROM users WHERE color_scheme = $1", v); n != want {
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
			tag, err := env.pool.Exec(ctx, `UPDATE users SET color_scheme = $1
				WHERE id IN (SELECT user_id FROM group_members WHERE group_id = $2)
					AND is_active AND NOT is_bot AND color_scheme IS DISTINCT FROM $1
					AND NOT EXISTS (SELECT 1 FROM user_setting_edits e WHERE e.user_id = users.id AND e.setting = 'color_scheme')`,
				v, g.ID)
			if err != nil {
				b.Fatal(err)
			}
			if n := tag.RowsAffected(); n != int64(want) {
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
	env.exec(b, `INSERT INTO scheduled_messages (realm_id, sender_id, kind, type, stream_id, topic, direct_members, content,
			rendered_content, deliver_at, delivered, failed, failure_message, delivered_message_id,
			reminder_target_message_id, reminder_note)
		SELECT $1,
			CASE WHEN x % 1000 = 0 THEN $2 ELSE 1000000 + x % 997 END,
			CASE WHEN x % 1000 = 0 THEN 2 ELSE 1 + x % 2 END,
			'private', NULL, '', ARRAY[$2::bigint], 'remember ' || x, '<p>remember ' || x || '</p>',
			$3::timestamptz + make_interval(secs => (x::bigint * 7919) % 1000003),
			CASE WHEN x % 1000 = 0 THEN false ELSE x % 3 = 0 END,
			false, '', NULL, x, ''
		FROM generate_series(1, $4) x`, env.realm, user, epoch, rows)
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
			stream, deliveredID, target      *int64
			members                          []int64
			content, rendered, failure, note string
			deliverAt                        *time.Time
			delivered, failed                bool
		}
		t := benchutil.NewTimer(b)
		for b.Loop() {
			rs, err := env.pool.Query(ctx, `SELECT id, realm_id, sender_id, kind, type, stream_id, topic,
				direct_members, content, rendered_content, deliver_at, delivered, failed, failure_message,
				delivered_message_id, reminder_target_message_id, reminder_note
				FROM scheduled_messages WHERE realm_id = $1 AND sender_id = $2 AND kind = 2 AND NOT delivered
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
			if len(out) != mine {
				b.Fatalf("%d rows, want %d", len(out), mine)
			}
		}
		t.Done()
	})
}

// BenchmarkConcurrentSettings: see [benchutil.ConcurrentSettings]. Each
// case runs in a fresh schema with a pool of 8 connections.
func BenchmarkConcurrentSettings(b *testing.B) {
	benchutil.ConcurrentSettings(b, func(b *testing.B) store.Store {
		return pgtest.OpenUnpooled(b, postgres.WithMaxConns(8), postgres.WithWriteGroups(*writeGroups))
	})
}

// announcing are the two stores the Send and UpdateFlags benchmarks run
// on: the store as is, with each operation's reads announced (see
// store.Prefetcher), and the same store through a wrapper whose
// transactions do not prefetch.
var announcing = []struct {
	name string
	wrap func(store.Store) store.Store
}{
	{"announced", func(s store.Store) store.Store { return s }},
	{"unannounced", func(s store.Store) store.Store { return noPrefetch{s} }},
}

// benchGeneral opens a store (with the -write-groups flag's groups, seen
// through wrap) holding a realm of 20 users, all subscribed to "general",
// and returns the world, the users and the channel.
func benchGeneral(b *testing.B, wrap func(store.Store) store.Store) (*chattest.World, []*store.User, *store.Stream) {
	st := pgtest.OpenUnpooled(b, postgres.WithoutNotify(), postgres.WithWriteGroups(*writeGroups))
	w := chattest.New(b, chattest.OnStore(st), chattest.Wrap(wrap))
	realm := w.AddRealm(b, "bench")
	users := make([]*store.User, 20)
	for i := range users {
		users[i] = w.AddUser(b, realm, fmt.Sprintf("User %d", i), store.RoleMember)
	}
	return w, users, w.AddChannel(b, chattest.Channel{Realm: realm, Name: "general", Subscribers: users})
}

// BenchmarkSend: one client sending channel messages (20 subscribers) as the
// request's authenticated user, announced and not (see announcing). One
// client at a time, so ns/op is a send's latency, and the ratio what
// announcing saves it; cpu-ms/op is this process's CPU time per send.
func BenchmarkSend(b *testing.B) {
	for _, c := range announcing {
		b.Run(c.name, func(b *testing.B) {
			w, users, _ := benchGeneral(b, c.wrap)
			ctx := context.Background()
			req := chatcore.SendMessageRequest{Type: "stream", To: new("general"), Topic: new("t"), Content: "hello **world**", Authenticated: users[0]}
			b.ReportAllocs()
			t := benchutil.NewTimer(b) // this process's CPU: PostgreSQL's time per send is not in it
			for b.Loop() {
				if _, err := w.Svc.SendMessage(ctx, users[0].ID, req); err != nil {
					b.Fatal(err)
				}
			}
			t.Done()
		})
	}
}

// BenchmarkUpdateFlags: one client starring and unstarring a channel
// message (20 subscribers) as the request's authenticated user, announced
// and not (see announcing). ns/op is an update's latency; cpu-ms/op is
// this process's CPU time per update.
func BenchmarkUpdateFlags(b *testing.B) {
	for _, c := range announcing {
		b.Run(c.name, func(b *testing.B) {
			w, users, general := benchGeneral(b, c.wrap)
			id := w.Post(b, general, "t", users[1], "star me")
			ctx := context.Background()
			ops := [2]string{"add", "remove"}
			b.ReportAllocs()
			t := benchutil.NewTimer(b)
			i := 0
			for b.Loop() {
				res, err := messages.UpdateFlags(ctx, w.Svc, users[0].ID, messages.UpdateFlagsRequest{
					Messages: []store.MessageID{id}, Op: ops[i%2], Flag: "starred"})
				if err != nil || len(res.Updated) != 1 {
					b.Fatal(err, res.Updated)
				}
				i++
			}
			t.Done()
		})
	}
}

// BenchmarkReactions: one client adding and removing a reaction to a
// channel message (20 subscribers) as the request's authenticated user; an
// op is one add or one remove. ns/op is a change's latency; cpu-ms/op is
// this process's CPU time per change.
func BenchmarkReactions(b *testing.B) {
	w, users, general := benchGeneral(b, announcing[0].wrap)
	id := w.Post(b, general, "t", users[1], "react to me")
	ctx := context.Background()
	emoji := "tada"
	b.ReportAllocs()
	t := benchutil.NewTimer(b)
	i := 0
	for b.Loop() {
		var err error
		if i%2 == 0 {
			err = reactions.Add(ctx, w.Svc, users[0].ID, id, reactions.AddRequest{EmojiName: emoji})
		} else {
			err = reactions.Remove(ctx, w.Svc, users[0].ID, id, reactions.RemoveRequest{EmojiName: &emoji})
		}
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	t.Done()
}

// BenchmarkMessagesFetch: one client fetching the newest 100 messages (GET
// /messages without a narrow) of a realm where five users write in three
// channels. ns/op is a fetch's latency; cpu-ms/op is this process's CPU
// time per fetch.
func BenchmarkMessagesFetch(b *testing.B) {
	st := pgtest.OpenUnpooled(b, postgres.WithoutNotify())
	w := chattest.New(b, chattest.OnStore(st))
	realm := w.AddRealm(b, "bench")
	users := make([]*store.User, 5)
	for i := range users {
		users[i] = w.AddUser(b, realm, fmt.Sprintf("User %d", i), store.RoleMember)
	}
	channels := make([]*store.Stream, 3)
	for i := range channels {
		channels[i] = w.AddChannel(b, chattest.Channel{Realm: realm, Name: fmt.Sprintf("channel %d", i), Subscribers: users})
	}
	for i := range 300 {
		w.Post(b, channels[i%len(channels)], fmt.Sprintf("topic %d", i%7), users[i%len(users)], fmt.Sprintf("message **%d**", i))
	}
	ctx := context.Background()
	req := messages.Request{Anchor: new("newest"), NumBefore: new(100), NumAfter: new(0)}
	b.ReportAllocs()
	t := benchutil.NewTimer(b)
	for b.Loop() {
		res, err := messages.Get(ctx, w.Svc, users[0].ID, req)
		if err != nil || len(res.Messages) != 100 {
			b.Fatal(err, len(res.Messages))
		}
	}
	t.Done()
}

// noPrefetch is a store whose write transactions hide that they prefetch.
type noPrefetch struct{ store.Store }

func (s noPrefetch) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	return s.Store.Update(ctx, func(tx store.Tx) error { return fn(struct{ store.Tx }{tx}) })
}
