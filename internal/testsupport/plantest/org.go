package plantest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store"
)

// Shape is the size of the generated organisation: one channel everybody
// is in and Channels-1 channels of Members members each, Messages messages
// of which 8% are direct messages (two-person conversations), every 60th
// message of the big channel by one hot sender, 40 topics per channel, a
// link in every tenth message, a mention in every tenth channel message, a
// reaction on every seventh message.
type Shape struct {
	Users, Channels, Members, Messages int
}

// CI is the shape the plan tests use: big enough that a planner that can
// use an index does, small enough to generate in a few seconds.
var CI = Shape{Users: 2000, Channels: 60, Members: 120, Messages: 100_000}

// The generated organisation's fixed choices.
const (
	// conversations is the number of direct conversations: conversation k
	// is between user k and user conversationBase + k%50.
	conversations    = 400
	conversationBase = 1000
	// viewerIndex is the user whose requests are checked: a member of the
	// big channel, of the few channels whose member ranges cover it and of
	// eight direct conversations; it has read all but its newest
	// unreadTail messages (of everyone's) and starred every 97th. Users 2
	// and 3 have read the whole big channel.
	viewerIndex = conversationBase
	unreadTail  = 15000
	// hotIndex sends every 60th message of the big channel.
	hotIndex = 7
	// topics is the number of topics of each channel ("topic 0" ...).
	topics = 40
	// scheduledRows are the scheduled messages, every 400th undelivered
	// and due.
	scheduledRows = 20_000
	// loggedEvents is the number of event log entries.
	loggedEvents = 5000
)

// Dialect spells the generated values that the two SQL stores store
// differently. Both take the generator's SQL otherwise: recursive CTEs,
// TRUE and FALSE, ON CONFLICT ... DO UPDATE, % and ||.
type Dialect struct {
	// Pair returns the direct_members value of the conversation between the
	// user ids the SQL expressions a and b give (a < b).
	Pair func(a, b string) string
	// Time returns the value of a time column at the Unix seconds the SQL
	// expression s gives.
	Time func(s string) string
}

// Org is what the hot calls need to know of the generated organisation.
type Org struct {
	Realm  *store.Realm
	Users  []store.UserID // by index: user i has id Users[0]+i
	Admin  store.UserID   // an administrator (user 0), the viewer's DM partner
	Viewer store.UserID
	Hot    *store.User // the hot sender of the big channel
	// Streams are the channels by index; Streams[0] is the big one.
	Streams []*store.Stream
	// DeleteStream and DeleteTopic are the topic the deletion call removes,
	// in a channel the admin is subscribed to.
	DeleteStream *store.Stream
	DeleteTopic  string
	// Unread are the viewer's newest 5000 unread messages, ascending.
	Unread []store.MessageID
	// Now is the time the calls run at, after every message.
	Now time.Time
}

// Generate fills the empty store st with an organisation of shape sh: the
// realm, users, channels, direct conversations and event log entries
// through the store, the subscriptions, messages, flags, reactions and
// scheduled messages with exec (set-based SQL on st's database, outside
// its transactions), then ANALYZE.
func Generate(t *testing.T, st store.Store, exec func(ctx context.Context, sql string) error, d Dialect, sh Shape) *Org {
	t.Helper()
	ctx := context.Background()
	base := chattest.Epoch.Add(-time.Duration(sh.Messages+10) * 30 * time.Second)
	o := &Org{Now: chattest.Epoch}
	write := func(what string, fn func(tx store.Tx) error) {
		t.Helper()
		start := time.Now()
		if err := st.Update(ctx, fn); err != nil {
			t.Fatalf("generating %s: %v", what, err)
		}
		logStep(t, what, start)
	}
	run := func(what, sql string) {
		t.Helper()
		start := time.Now()
		if err := exec(ctx, sql); err != nil {
			t.Fatalf("generating %s: %v\n%s", what, err, sql)
		}
		logStep(t, what, start)
	}

	o.Realm = &store.Realm{StringID: "plans", Name: "Plans", DateCreated: base}
	write("the realm", func(tx store.Tx) error { return tx.CreateRealm(ctx, o.Realm) })
	write("users", func(tx store.Tx) error {
		o.Users = o.Users[:0]
		for i := range sh.Users {
			role := store.RoleMember
			if i == 0 {
				role = store.RoleAdministrator
			}
			u := &store.User{RealmID: o.Realm.ID, Email: fmt.Sprintf("user%d@plans.example.com", i),
				FullName: fmt.Sprintf("User %d", i), Role: role, IsActive: true, AvatarSource: "G", DateJoined: base,
				APIKeyHash: chatcore.HashAPIKey(fmt.Sprintf("plans-key-%d", i)), Settings: chatcore.DefaultSettings()}
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			if i == hotIndex {
				o.Hot = u
			}
			o.Users = append(o.Users, u.ID)
		}
		return nil
	})
	if !consecutive(o.Users) {
		t.Fatal("generating users: their ids are not consecutive")
	}
	o.Admin, o.Viewer = o.Users[0], o.Users[viewerIndex]
	var recipients []int64
	write("channels", func(tx store.Tx) error {
		o.Streams, recipients = o.Streams[:0], recipients[:0]
		for c := range sh.Channels {
			s := &store.Stream{RealmID: o.Realm.ID, Name: fmt.Sprintf("channel %d", c), HistoryPublicToSubscribers: true, DateCreated: base}
			if err := tx.CreateStream(ctx, s); err != nil {
				return err
			}
			o.Streams = append(o.Streams, s)
			recipients = append(recipients, int64(s.RecipientID))
		}
		return nil
	})
	streamIDs := make([]int64, len(o.Streams))
	for i, s := range o.Streams {
		streamIDs[i] = int64(s.ID)
	}
	if !consecutive(streamIDs) || !consecutive(recipients) {
		t.Fatal("generating channels: their ids or recipient ids are not consecutive")
	}
	var direct []int64
	write("direct conversations", func(tx store.Tx) error {
		direct = direct[:0]
		for k := range conversations {
			rid, err := tx.DirectRecipient(ctx, o.Realm.ID, []store.UserID{o.Users[k], o.Users[conversationBase+k%50]})
			if err != nil {
				return err
			}
			direct = append(direct, int64(rid))
		}
		return nil
	})
	if !consecutive(direct) {
		t.Fatal("generating direct conversations: their recipient ids are not consecutive")
	}
	write("event log entries", func(tx store.Tx) error {
		events := make([]store.LoggedEvent, loggedEvents)
		for i := range events {
			events[i] = store.LoggedEvent{RealmID: o.Realm.ID, UserIDs: []store.UserID{o.Users[i%sh.Users]},
				Data: []byte(`{"type":"test"}`)}
		}
		return tx.AppendEvents(ctx, events)
	})

	// The viewer's channels: those whose member ranges (see below) cover it.
	viewerStreams := []string{strconv.FormatInt(streamIDs[0], 10)}
	adminStream := -1
	for c := 1; c < sh.Channels; c++ {
		for k := range sh.Members {
			switch (c*33 + k) % sh.Users {
			case viewerIndex:
				viewerStreams = append(viewerStreams, strconv.FormatInt(streamIDs[c], 10))
			case 0:
				adminStream = c
			}
		}
	}
	if adminStream < 0 || len(viewerStreams) < 2 {
		t.Fatal("generating: the shape leaves the admin or the viewer without a small channel")
	}
	o.DeleteStream, o.DeleteTopic = o.Streams[adminStream], "topic 7"
	var viewerDirect []string
	for k := 0; k < conversations; k += 50 {
		viewerDirect = append(viewerDirect, strconv.FormatInt(direct[k], 10))
	}
	received := fmt.Sprintf("(stream_id IN (%s) OR recipient_id IN (%s))", strings.Join(viewerStreams, ", "), strings.Join(viewerDirect, ", "))

	r := strings.NewReplacer(
		"{R}", fmt.Sprint(o.Realm.ID), "{U0}", fmt.Sprint(o.Users[0]), "{U}", fmt.Sprint(sh.Users),
		"{V}", fmt.Sprint(o.Viewer), "{HOT}", fmt.Sprint(o.Hot.ID), "{M}", fmt.Sprint(sh.Members),
		"{S0}", fmt.Sprint(streamIDs[0]), "{RC0}", fmt.Sprint(recipients[0]), "{RD0}", fmt.Sprint(direct[0]),
		"{C1}", fmt.Sprint(sh.Channels-1), "{N}", fmt.Sprint(sh.Messages), "{P}", fmt.Sprint(conversations),
		"{VB}", fmt.Sprint(conversationBase), "{T}", fmt.Sprint(topics), "{BASE}", fmt.Sprint(base.Unix()),
		"{NOW}", fmt.Sprint(o.Now.Unix()), "{SCHED}", fmt.Sprint(scheduledRows), "{TAIL}", fmt.Sprint(unreadTail),
		"{RECEIVED}", received,
		"{PAIR}", d.Pair("{U0} + k", "{U0} + {VB} + k % 50"),
		"{SENT}", d.Time("{BASE} + i * 30"),
		"{DELIVER}", d.Time("{NOW} - 2592000 + i * 120"),
	)
	sql := func(s string) string { return r.Replace(r.Replace(s)) } // twice: the dialect's values hold placeholders
	upsert := " ON CONFLICT (user_id, message_id) DO UPDATE SET flags = user_message_flags.flags | excluded.flags"

	run("subscriptions", sql(`WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i < {U} - 1)
INSERT INTO subscriptions (stream_id, user_id, active) SELECT {S0}, {U0} + i, TRUE FROM g`))
	run("subscriptions", sql(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < {C1}),
k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < {M} - 1)
INSERT INTO subscriptions (stream_id, user_id, active) SELECT {S0} + c.n, {U0} + (c.n * 33 + k.n) % {U}, TRUE FROM c CROSS JOIN k`))
	// Message i: a direct message when i % 25 < 2 (in conversation i %
	// conversations), else in the big channel when i % 3 = 0, else in
	// channel 1 + 7i % (channels - 1), sent by a member.
	run("messages", sql(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < {N}),
p(i, dm, c, k) AS (SELECT i, CASE WHEN i % 25 < 2 THEN 1 ELSE 0 END, CASE WHEN i % 3 = 0 THEN 0 ELSE 1 + (i * 7) % {C1} END, i % {P} FROM g)
INSERT INTO messages (realm_id, sender_id, type, recipient_id, stream_id, topic, topic_key, direct_members,
	content, rendered_content, client, sent_at, is_me_message, default_flags, has)
SELECT {R},
	CASE WHEN dm = 1 AND i % 2 = 0 THEN {U0} + k
	     WHEN dm = 1 THEN {U0} + {VB} + k % 50
	     WHEN c = 0 AND i % 60 = 0 THEN {HOT}
	     WHEN c = 0 THEN {U0} + (i * 31) % {U}
	     ELSE {U0} + (c * 33 + (i * 17) % {M}) % {U} END,
	CASE WHEN dm = 1 THEN 'private' ELSE 'stream' END,
	CASE WHEN dm = 1 THEN {RD0} + k ELSE {RC0} + c END,
	CASE WHEN dm = 1 THEN 0 ELSE {S0} + c END,
	CASE WHEN dm = 1 THEN '' ELSE 'topic ' || ((i * 13) % {T}) END,
	CASE WHEN dm = 1 THEN '' ELSE 'topic ' || ((i * 13) % {T}) END,
	CASE WHEN dm = 1 THEN {PAIR} ELSE NULL END,
	CASE WHEN i % 10 = 1 THEN 'see https://example.com/' || i ELSE 'message ' || i END,
	CASE WHEN i % 10 = 1 THEN '<p>see <a href="https://example.com/' || i || '">https://example.com/' || i || '</a></p>'
	     ELSE '<p>message ' || i || '</p>' END,
	'test', {SENT}, FALSE, 0, CASE WHEN i % 10 = 1 THEN 1 ELSE 0 END
FROM p`))
	run("the senders' flags", sql(`INSERT INTO user_message_flags (user_id, message_id, flags) SELECT sender_id, id, 1 FROM messages`))
	run("mentions of the viewer", sql(`INSERT INTO user_message_flags (user_id, message_id, flags)
SELECT {V}, id, 8 FROM messages WHERE stream_id = {S0} AND id % 20 = 5`+upsert))
	run("other mentions", sql(`INSERT INTO user_message_flags (user_id, message_id, flags)
SELECT {U0} + (id * 7) % {U}, id, 8 FROM messages WHERE stream_id <> 0 AND id % 20 = 15`+upsert))
	// The viewer has read everything but the newest {TAIL} messages (their
	// read marks), one message in 50 of those individually (rows), and
	// marked one old message unread again (a row below the mark).
	run("the viewer's read marks", sql(`INSERT INTO read_marks (user_id, recipient_id, through)
SELECT {V}, r.recipient_id, (SELECT max(id) FROM messages) - {TAIL} FROM (
	SELECT st.recipient_id FROM subscriptions s JOIN streams st ON st.id = s.stream_id WHERE s.user_id = {V} AND s.active
	UNION SELECT recipient_id FROM recipient_members WHERE user_id = {V}) r`))
	run("the viewer's reads", sql(`INSERT INTO user_message_flags (user_id, message_id, flags)
SELECT {V}, id, 1 FROM messages WHERE {RECEIVED} AND id > (SELECT max(id) FROM messages) - {TAIL} AND id % 50 = 0`+upsert))
	run("the viewer's old unread", sql(`INSERT INTO user_message_flags (user_id, message_id, flags)
SELECT {V}, min(id), 0 FROM messages WHERE {RECEIVED}`+upsert))
	run("the viewer's stars", sql(`INSERT INTO user_message_flags (user_id, message_id, flags)
SELECT {V}, id, 2 FROM messages WHERE {RECEIVED} AND id % 97 = 0`+upsert))
	run("readers of everything", sql(`INSERT INTO read_marks (user_id, recipient_id, through)
SELECT {U0} + r.n, {RC0}, (SELECT max(id) FROM messages) FROM (SELECT 2 AS n UNION ALL SELECT 3) r`))
	run("reactions", sql(`INSERT INTO reactions (message_id, seq, user_id, emoji_name, emoji_code, reaction_type)
SELECT id, 0, {U0} + (id * 3) % {U}, 'smile', '1f604', 'unicode_emoji' FROM messages WHERE id % 2 = 0`))
	run("scheduled messages", sql(`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < {SCHED})
INSERT INTO scheduled_messages (realm_id, sender_id, kind, type, stream_id, topic, direct_members, content, rendered_content,
	deliver_at, delivered, failed, failure_message, delivered_message_id, reminder_target_message_id, reminder_note)
SELECT {R}, {U0} + i % {U}, 1, 'stream', {S0}, 'later', NULL, 'later', '<p>later</p>',
	{DELIVER}, i % 400 <> 0, FALSE, '', NULL, NULL, '' FROM g`))
	write("the viewer's topic policies", func(tx store.Tx) error {
		for _, p := range []struct {
			topic  string
			policy store.VisibilityPolicy
		}{{"topic 3", store.PolicyMuted}, {"topic 5", store.PolicyFollowed}, {"topic 6", store.PolicyUnmuted}} {
			row := &store.UserTopic{UserID: o.Viewer, StreamID: o.Streams[0].ID, Topic: p.topic, Policy: p.policy, LastUpdated: base}
			if _, err := tx.SetUserTopic(ctx, row); err != nil {
				return err
			}
		}
		return nil
	})
	run("statistics", "ANALYZE")
	var err error
	if o.Unread, err = viewerUnread(ctx, st, o, 5000); err != nil || len(o.Unread) != 5000 {
		t.Fatalf("generating: the viewer's 5000 unread messages: %d, %v", len(o.Unread), err)
	}
	return o
}

// logStep logs, with -v, how long generating what took since start.
func logStep(t *testing.T, what string, start time.Time) {
	if testing.Verbose() {
		t.Logf("generating %s: %v", what, time.Since(start).Round(time.Millisecond))
	}
}

// consecutive reports whether ids are consecutive, ascending.
func consecutive[T ~int64](ids []T) bool {
	for i := range ids {
		if ids[i] != ids[0]+T(i) {
			return false
		}
	}
	return len(ids) > 0
}

// viewerUnread returns the viewer's newest n unread message ids.
func viewerUnread(ctx context.Context, st store.Store, o *Org, n int) ([]store.MessageID, error) {
	var ids []store.MessageID
	err := st.View(ctx, func(tx store.Tx) error {
		um, err := tx.UnreadMessages(ctx, o.Viewer, n)
		for _, m := range um {
			ids = append(ids, m.ID)
		}
		return err
	})
	slices.Sort(ids)
	return ids, err
}
