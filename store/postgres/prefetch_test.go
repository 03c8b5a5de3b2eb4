package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/edits"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/reactions"
	"github.com/chatcore/chatcore/store"
)

// TestSendRoundTrips: a channel message from the request's authenticated
// user takes two round trips: its reads go with the transaction's first
// statement (the announced realm and channel with its subscribers, the
// message's reserved id, and the sender), then the insert and the event
// append with the COMMIT; content with :name: syntax adds the realm's
// custom emoji to the first statement. Without the announcement the realm,
// the channel, the subscribers and the insert cost one each.
func TestSendRoundTrips(t *testing.T) {
	is := is.New(t)
	_, trips, w := tracedWorld(t) // without the notifier, whose round trips would count too
	realm := w.AddRealm(t, "trips")
	ann := w.AddUser(t, realm, "Ann", store.RoleMember)
	bob := w.AddUser(t, realm, "Bob", store.RoleMember)
	w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*store.User{ann, bob}})
	to, topic := "general", "trips"
	var last store.MessageID
	send := func(content string) int64 {
		var id store.MessageID
		var err error
		n := trips.during(func() {
			id, err = w.Svc.SendMessage(t.Context(), ann.ID, chatcore.SendMessageRequest{Type: "stream", To: &to, Topic: &topic, Content: content, Authenticated: ann})
		})
		is.NoErr(err)
		m := w.Message(t, id)
		is.Equal(m.Content, content) // stored
		last = id
		return n
	}
	send("warms the caches") // the linkifiers the pre-rendering uses, the prepared statements
	sets := trips.planSets.Load()
	is.Equal(send("hello **there**"), int64(2))
	is.Equal(trips.planSets.Load()-sets, int64(1)) // the append's generic plan, set once and ended by the COMMIT

	to = `["general"]` // the channel as a JSON list, by name
	is.Equal(send("by list"), int64(2))

	// :name: syntax: the realm's custom emoji, which the check of the
	// pre-rendering reads again, go with the first statement too.
	is.NoErr(w.Store.Update(t.Context(), func(tx store.Tx) error {
		return tx.CreateRealmEmoji(t.Context(), &store.RealmEmoji{RealmID: realm.ID, Name: "party", FileName: "1.png", ContentType: "image/png", Created: time.Now()})
	}))
	send(":party:") // fills the Service's cache of the realm's emoji, which the pre-rendering uses
	is.Equal(send(":party: :smile:"), int64(2))
	is.True(strings.Contains(w.Message(t, last).RenderedContent, `<img alt=":party:" class="emoji"`)) // rendered with the realm's emoji

	// A link to an image upload: the pre-rendering reads the upload's
	// preview in a View of its own, the write transaction reads it again to
	// check the pre-rendering, besides the claim's read and write of the
	// message's attachments (six round trips without the preview).
	img := &store.Attachment{RealmID: realm.ID, OwnerID: ann.ID, PathID: fmt.Sprintf("%d/ab/img.png", realm.ID), FileName: "img.png",
		ContentType: "image/png", Size: 10, Created: time.Now(), ImageWidth: 20, ImageHeight: 10}
	is.NoErr(w.Store.Update(t.Context(), func(tx store.Tx) error { return tx.CreateAttachment(t.Context(), img) }))
	n := send("[img](/user_uploads/" + img.PathID + ")")
	t.Logf("a send linking an image upload: %d round trips", n)
	is.True(strings.Contains(w.Message(t, last).RenderedContent, `class="image-loading-placeholder"`)) // previewed
	is.Equal(n, int64(10))
}

// TestDeleteTopicBatchRoundTrips: a batch of a topic deletion takes two
// round trips, as its raw floor does: the channel's audience, announced,
// goes with the deletion, and the event append with the COMMIT. The last
// batch of a topic of several batches takes one more: its deletion below
// the previous batch came back short, and a second one looks above it.
func TestDeleteTopicBatchRoundTrips(t *testing.T) {
	is := is.New(t)
	_, trips, w := tracedWorld(t, chattest.With(chatcore.WithTopicDeletion(10, 0)))
	realm := w.AddRealm(t, "trips")
	admin := w.AddUser(t, realm, "Ann", store.RoleAdministrator)
	bob := w.AddUser(t, realm, "Bob", store.RoleMember)
	ch := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*store.User{admin, bob}})
	send := func(topic string, n int) {
		for i := range n {
			_, err := w.Svc.SendMessage(t.Context(), admin.ID, chatcore.SendMessageRequest{Type: "stream",
				To: new("general"), Topic: &topic, Content: fmt.Sprint(i)})
			is.NoErr(err)
		}
	}
	send("first", 1) // the channel's oldest message stays: no batch recomputes first_message_id
	send("three batches", 25)
	send("one batch", 5)
	deleteTopic := func(topic string) (n, sets int64) {
		before, setsBefore := trips.n.Load(), trips.planSets.Load()
		res, err := channels.DeleteTopic(t.Context(), w.Svc, admin.ID, ch.ID, topic)
		n, sets = trips.n.Load()-before, trips.planSets.Load()-setsBefore
		is.NoErr(err)
		is.True(res.Complete) // the whole topic
		return n, sets
	}
	one, oneSets := deleteTopic("one batch")
	three, threeSets := deleteTopic("three batches")
	is.Equal(three-one, int64(5)) // two batches more, two round trips each, and the last batch's look above
	// One plan setting per batch: its deletions and its append run on
	// generic plans with nothing between them, and the COMMIT ends the
	// setting.
	is.Equal(oneSets, int64(1))
	is.Equal(threeSets, int64(3))
}

// TestPollRoundTrips: an event poll's queue and its realm's head go with
// the read transaction's BEGIN, so a poll with nothing new takes two round
// trips (that one and the ROLLBACK), one with new entries a third for them;
// a queue announced that does not exist is refused as unannounced.
func TestPollRoundTrips(t *testing.T) {
	is := is.New(t)
	_, trips, w := tracedWorld(t)
	_, ann, general := annInGeneral(t, w, "polls")
	q := w.Register(t, ann, eventqueue.QueueOptions{EventTypes: []string{"message"}})
	poll := func(queue string, last int64) (eventqueue.EventsResult, int64, error) {
		var res eventqueue.EventsResult
		var err error
		n := trips.during(func() {
			res, err = q.Hub.GetEvents(t.Context(), ann.ID, eventqueue.EventsRequest{QueueID: queue, LastEventID: &last})
		})
		return res, n, err
	}

	res, n, err := poll(q.ID, -1)
	is.NoErr(err)
	is.Equal(len(res.Events), 0)
	is.Equal(n, int64(2)) // BEGIN with the queue and the head, then ROLLBACK

	id := w.Send(t, ann, general, "lunch", "noon")
	res, n, err = poll(q.ID, -1)
	is.NoErr(err)
	is.Equal(len(res.Events), 1) // the message, read past the announced head
	is.True(strings.Contains(string(res.Events[0].JSON), fmt.Sprintf(`"id":%d`, id)))
	is.Equal(n, int64(3)) // and its entries' read

	_, n, err = poll("no-such-queue", -1)
	var e *chatcore.Error
	is.True(errors.As(err, &e))
	is.Equal(e.Code, chatcore.CodeBadEventQueueID) // refused as an unknown queue
	is.Equal(n, int64(3))                          // the queue, then the actor it is refused for, then ROLLBACK
}

// TestHeldBackMessageInsertFails: a message insert held back by an
// announced id (see CreateMessage) that the server refuses fails what sent
// it, the next statement or the commit, and so the Update, with the
// insert's error; nothing of the transaction is left.
func TestHeldBackMessageInsertFails(t *testing.T) {
	is := is.New(t)
	st, trips, w := tracedWorld(t)
	realm, ann, general := annInGeneral(t, w, "held")
	ctx := t.Context()
	bad := func(topic string) *store.Message {
		// PostgreSQL's text holds no NUL, which the Service refuses first.
		return &store.Message{RealmID: realm.ID, SenderID: ann.ID, Type: store.MessageTypeStream,
			RecipientID: general.RecipientID, StreamID: general.ID, Topic: topic, Content: "a\x00b",
			RenderedContent: "<p>a</p>", Client: "test", SentAt: time.Now()}
	}
	count := func() int {
		var n int
		is.NoErr(st.View(ctx, func(tx store.Tx) error {
			msgs, err := tx.Messages(ctx, store.MessageQuery{RealmID: realm.ID})
			n = len(msgs)
			return err
		}))
		return n
	}

	for _, then := range []string{"commit", "read"} {
		var held store.MessageID
		var trip int64
		err := st.Update(ctx, func(tx store.Tx) error {
			store.Announce(tx, store.Prefetch{Realms: []store.RealmID{realm.ID}, NewMessages: 1})
			if _, err := tx.Realm(ctx, realm.ID); err != nil {
				return err
			}
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: general.ID, UserID: ann.ID})) // a write that goes first
			m := bad(then)
			trip = trips.during(func() { is.NoErr(tx.CreateMessage(ctx, m)) }) // held back: no error yet
			held = m.ID
			if then == "read" {
				_, err := tx.Message(ctx, m.ID)
				is.True(err != nil) // the read that sent the insert fails with it
				return err
			}
			return nil
		})
		is.True(held != 0)       // an id was given
		is.Equal(trip, int64(0)) // without a round trip
		is.True(err != nil)      // the Update fails
		is.True(strings.Contains(err.Error(), "create message"))
		is.Equal(count(), 0) // and nothing committed
	}
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		subs, err := tx.ActiveSubscriberIDs(ctx, general.ID)
		is.Equal(subs, []store.UserID{ann.ID}) // the unsubscription went with the failed transactions
		return err
	}))
}

// annInGeneral adds to w a realm with the string id, its member Ann, and
// a channel "general" she is subscribed to.
func annInGeneral(t *testing.T, w *chattest.World, stringID string) (*store.Realm, *store.User, *store.Stream) {
	t.Helper()
	realm := w.AddRealm(t, stringID)
	ann := w.AddUser(t, realm, "Ann", store.RoleMember)
	return realm, ann, w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*store.User{ann}})
}

// TestSettingsRoundTrips: a user changing a setting of their own takes two
// round trips: the user's read begins the transaction, then the change, the
// record of the edit and the event append go with the COMMIT. The write of
// a user the transaction has not read goes at once, and answers as
// SettingsStore promises.
func TestSettingsRoundTrips(t *testing.T) {
	is := is.New(t)
	st, trips, w := tracedWorld(t)
	_, ann, _ := annInGeneral(t, w, "settings")
	toggle := func(enter bool) int64 {
		req := accounts.SettingsUpdate{EnterSends: &enter, Authenticated: w.User(t, ann.ID)} // as the request authenticated it
		return trips.during(func() { is.NoErr(accounts.UpdateSettings(t.Context(), w.Svc, ann.ID, req)) })
	}
	toggle(true) // the prepared statements
	is.Equal(toggle(false), int64(2))
	is.Equal(w.User(t, ann.ID).Settings.EnterSends, false) // stored
	is.Equal(toggle(true), int64(2))
	is.Equal(w.User(t, ann.ID).Settings.EnterSends, true)
	is.Equal(w.EditedSettings(t, ann.ID), []string{"enter_sends"}) // and the edit recorded

	ctx := t.Context()
	err := st.Update(ctx, func(tx store.Tx) error {
		return tx.UpdateUserSettings(ctx, 999999, []store.SettingValue{{Name: "enter_sends", Value: true}})
	})
	is.True(errors.Is(err, store.ErrNotFound)) // an unknown user, at once
}

// TestFlagsRoundTrips: starring a message takes two round trips: the
// user's view of the message, announced, and the user's read begin the
// transaction, then the flag row and the event append go with the COMMIT.
func TestFlagsRoundTrips(t *testing.T) {
	is := is.New(t)
	_, trips, w := tracedWorld(t)
	_, ann, general := annInGeneral(t, w, "flags")
	id := w.Post(t, general, "trips", ann, "star me")
	star := func(op string) int64 {
		ctx := t.Context()
		var res messages.UpdateFlagsResult
		var err error
		n := trips.during(func() {
			res, err = messages.UpdateFlags(ctx, w.Svc, ann.ID, messages.UpdateFlagsRequest{Messages: []store.MessageID{id}, Op: op, Flag: "starred"})
		})
		is.NoErr(err)
		is.Equal(res.Updated, []store.MessageID{id}) // changed
		return n
	}
	flags := func() store.MessageFlags {
		var ums []store.UserMessage
		w.Write(t, func(ctx context.Context, tx store.Tx) (err error) {
			ums, err = tx.UserMessages(ctx, ann.ID, []store.MessageID{id})
			return err
		})
		is.Equal(len(ums), 1)
		return ums[0].Flags
	}
	star("add") // the prepared statements
	star("remove")
	is.Equal(star("add"), int64(2))
	is.Equal(flags()&store.FlagStarred, store.FlagStarred) // stored
	is.Equal(star("remove"), int64(2))
	is.Equal(flags()&store.FlagStarred, store.MessageFlags(0))
}

// TestHeldBackFlagsFail: a flag row that PostgreSQL refuses (here one a
// check constraint added by the test forbids) fails the Update at its
// commit, without a round trip at PutUserMessageFlags, and nothing of the
// transaction is committed.
func TestHeldBackFlagsFail(t *testing.T) {
	is := is.New(t)
	st, trips, w := tracedWorld(t)
	_, ann, general := annInGeneral(t, w, "heldflags")
	id := w.Post(t, general, "t", ann, "hello")
	ctx := t.Context()
	_, err := st.Pool().Exec(ctx, fmt.Sprintf("ALTER TABLE user_message_flags ADD CONSTRAINT refused CHECK (message_id <> %d)", id+1000))
	is.NoErr(err)
	t.Cleanup(func() { // before the schema is emptied for the next test
		if _, err := st.Pool().Exec(context.Background(), "ALTER TABLE user_message_flags DROP CONSTRAINT refused"); err != nil {
			t.Error(err)
		}
	})
	var trip int64
	err = st.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.User(ctx, ann.ID); err != nil {
			return err
		}
		var err error
		trip = trips.during(func() {
			err = tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{
				{UserID: ann.ID, MessageID: id, Flags: store.FlagStarred},
				{UserID: ann.ID, MessageID: id + 1000, Flags: store.FlagStarred}})
		})
		return err // held back: no error yet
	})
	is.Equal(trip, int64(0)) // without a round trip
	is.True(err != nil)      // the commit fails
	is.True(strings.Contains(err.Error(), "put message flags"))
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		rows, err := tx.MessageFlagRows(ctx, id)
		for _, r := range rows {
			is.Equal(r.Flags&store.FlagStarred, store.MessageFlags(0)) // the first row was not committed either
		}
		return err
	}))
}

// TestMessageReadRoundTrips: a message with its reactions, edit history and
// submessages is read in one round trip, a list of messages with theirs in
// two.
func TestMessageReadRoundTrips(t *testing.T) {
	is := is.New(t)
	st, trips, w := tracedWorld(t)
	realm, ann, general := annInGeneral(t, w, "reads")
	ids := w.PostN(t, general, "t", ann, 3)
	ctx := t.Context()
	is.NoErr(reactions.Add(ctx, w.Svc, ann.ID, ids[1], reactions.AddRequest{EmojiName: "smile"}))
	is.NoErr(reactions.Add(ctx, w.Svc, ann.ID, ids[1], reactions.AddRequest{EmojiName: "heart"}))
	is.NoErr(st.View(t.Context(), func(tx store.Tx) error {
		var m *store.Message
		var err error
		is.Equal(trips.during(func() { m, err = tx.Message(t.Context(), ids[1]) }), int64(1)) // one round trip
		is.NoErr(err)
		is.Equal(len(m.Reactions), 3) // with its reactions (Post adds one), in order
		is.Equal(m.Reactions[2].EmojiName, "heart")
		var msgs []store.Message
		is.Equal(trips.during(func() { msgs, err = tx.Messages(t.Context(), store.MessageQuery{RealmID: realm.ID}) }), int64(2)) // two
		is.NoErr(err)
		is.Equal(len(msgs), 3)
		is.Equal(msgs[1].Reactions, m.Reactions) // the same children
		_, err = tx.Message(t.Context(), ids[2]+1000)
		is.True(errors.Is(err, store.ErrNotFound)) // no such message
		return nil
	}))
}

// TestReactionRoundTrips: adding or removing a reaction to a channel
// message takes eight round trips: the transaction's first statement with
// the actor and (announced, when adding) the actor's view of the message;
// the message with its children; its channel, read once; the reaction's
// write; the channel's subscribers and the message's flag rows (the event's
// audience); the users among those rows (the sender is one: their flags
// on their own message differ from the defaults); the event append with
// the COMMIT.
func TestReactionRoundTrips(t *testing.T) {
	is := is.New(t)
	_, trips, w := tracedWorld(t)
	_, ann, general := annInGeneral(t, w, "react")
	id := w.Post(t, general, "t", ann, "react to me")
	ctx := t.Context()
	posted := len(w.Message(t, id).Reactions)        // Post adds one
	for i, name := range []string{"tada", "heart"} { // the first warms the caches
		added := trips.during(func() { is.NoErr(reactions.Add(ctx, w.Svc, ann.ID, id, reactions.AddRequest{EmojiName: name})) })
		is.Equal(len(w.Message(t, id).Reactions), posted+1) // added
		removed := trips.during(func() { is.NoErr(reactions.Remove(ctx, w.Svc, ann.ID, id, reactions.RemoveRequest{EmojiName: &name})) })
		is.Equal(len(w.Message(t, id).Reactions), posted) // removed
		if i == 1 {
			is.Equal(added, int64(8))
			is.Equal(removed, int64(8))
		}
	}
}

// TestMessagesFetchRoundTrips: GET /messages without a narrow takes seven
// round trips: the viewer; the realm with what the viewer may read (the
// realm's channels, the viewer's subscriptions and direct conversations,
// announced); the channels and conversations the viewer's messages are
// read from, with their read marks; the messages (one statement merging
// them); their reactions, edit history and submessages; their senders, in
// one read, with the viewer's flags announced along; the ROLLBACK. The
// realm's linkifiers come from the Service's cache at the version the
// realm's read gives (see TestGetMessagesSeesItsFlagsAndLinkifiers). It
// reads no message's channel (it has the realm's), so its round trips do
// not grow with the number of senders and channels.
func TestMessagesFetchRoundTrips(t *testing.T) {
	is := is.New(t)
	_, trips, w := tracedWorld(t)
	realm, ann, general := annInGeneral(t, w, "fetch")
	channels := []*store.Stream{general}
	for _, name := range []string{"two", "three"} {
		channels = append(channels, w.AddChannel(t, chattest.Channel{Realm: realm, Name: name, Subscribers: []*store.User{ann}}))
	}
	senders := []*store.User{ann}
	for i := range 4 {
		u := w.AddUser(t, realm, fmt.Sprintf("Sender %d", i), store.RoleMember)
		for _, ch := range channels {
			w.Subscribe(t, ch, u, 0)
		}
		senders = append(senders, u)
	}
	ctx := t.Context()
	fetch := func() int64 {
		var res messages.Result
		var err error
		n := trips.during(func() {
			res, err = messages.Get(ctx, w.Svc, ann.ID, messages.Request{Anchor: new("newest"), NumBefore: new(10), NumAfter: new(0)})
		})
		is.NoErr(err)
		is.Equal(len(res.Messages), 10)
		return n
	}
	w.PostN(t, general, "one sender", ann, 10)
	fetch() // the prepared statements
	one := fetch()
	is.Equal(one, int64(7))
	for i := range 10 {
		w.Post(t, channels[i%len(channels)], "many", senders[i%len(senders)], "hello")
	}
	is.Equal(fetch(), one) // as many round trips for five senders in three channels as for one in one
}

// TestEditRoundTrips: editing a channel message's content takes eight
// round trips: the editor; the message with its children; its channel;
// the realm (for rendering); the channel's subscriptions, read once for
// the mention flags and the event's audience; the message's flag rows
// before the mention flags and after; and then the edit, its history entry
// and the event append with the COMMIT.
func TestEditRoundTrips(t *testing.T) {
	is := is.New(t)
	_, trips, w := tracedWorld(t)
	_, ann, general := annInGeneral(t, w, "edit")
	id := w.Post(t, general, "t", ann, "first")
	authenticated := w.User(t, ann.ID)
	edit := func(content string) int64 {
		n := trips.during(func() {
			is.NoErr(edits.Update(t.Context(), w.Svc, ann.ID, id, edits.Request{Content: &content, Authenticated: authenticated}))
		})
		m := w.Message(t, id)
		is.Equal(m.Content, content)                       // stored
		is.Equal(m.EditHistory[0].PrevContent != "", true) // with its history entry
		return n
	}
	edit("second") // the prepared statements
	// Eight, and the read of the realm's alert words that a content edit
	// recomputes has_alert_word from.
	is.Equal(edit("third"), int64(9))
}

// TestHeldBackEditFails: the edit of a message the transaction read is held
// back; when PostgreSQL refuses it (a NUL byte here, which the Service
// refuses first), the commit fails and nothing of the transaction is
// committed. The edit of a message it did not read goes at once.
func TestHeldBackEditFails(t *testing.T) {
	is := is.New(t)
	st, trips, w := tracedWorld(t)
	_, ann, general := annInGeneral(t, w, "heldedit")
	id := w.Post(t, general, "t", ann, "kept")
	ctx := t.Context()
	var trip int64
	err := st.Update(ctx, func(tx store.Tx) error {
		m, err := tx.Message(ctx, id)
		if err != nil {
			return err
		}
		m.Content = "a\x00b"
		trip = trips.during(func() {
			err = tx.EditMessage(ctx, m, store.EditHistoryEntry{UserID: ann.ID, Timestamp: time.Now(), PrevContent: "kept"})
		})
		return err // held back: no error yet
	})
	is.Equal(trip, int64(0)) // without a round trip
	is.True(err != nil)      // the commit fails
	is.True(strings.Contains(err.Error(), "edit message"))
	m := w.Message(t, id)
	is.Equal(m.Content, "kept")     // not edited
	is.Equal(len(m.EditHistory), 0) // and no history entry

	err = st.Update(ctx, func(tx store.Tx) error {
		return tx.EditMessage(ctx, &store.Message{ID: id + 1000, Content: "x"}, store.EditHistoryEntry{UserID: ann.ID, Timestamp: time.Now()})
	})
	is.True(errors.Is(err, store.ErrNotFound)) // a message it did not read, at once
}

// TestRegisterMessageRoundTrips: POST /register with event_types
// ["message"], what every client and bot does first, takes ten round
// trips: a read-only transaction for the state (BEGIN with the user, the
// realm's log head, the user's channels and conversations, the newest id
// of their messages through MessageIDs, ROLLBACK) and a write transaction
// for the queue (BEGIN with the user, the realm's pruned mark, the user's
// and the realm's queue counts, the queue's insert with the COMMIT). It
// took fifteen when max_message_id read the channels, the subscriptions and
// the newest message with its reactions, edit history and submessages.
func TestRegisterMessageRoundTrips(t *testing.T) {
	is := is.New(t)
	_, trips, w := tracedWorld(t)
	_, ann, general := annInGeneral(t, w, "registers")
	id := w.Send(t, ann, general, "lunch", "noon")
	hub := eventqueue.New(w.Svc, eventqueue.Options{})
	t.Cleanup(hub.Close)
	register := func() (eventqueue.State, int64) {
		var st eventqueue.State
		var err error
		n := trips.during(func() {
			st, err = hub.Register(t.Context(), ann.ID, eventqueue.RegisterRequest{Sections: []string{"message"},
				Queue: &eventqueue.QueueOptions{EventTypes: []string{"message"}}})
		})
		is.NoErr(err)
		return st, n
	}
	register() // warms the prepared statements
	st, n := register()
	is.True(st.MaxMessageID != nil)
	is.Equal(store.MessageID(*st.MaxMessageID), id) // the newest message Ann received
	is.True(st.QueueID != "")                       // the queue, inserted with the COMMIT
	is.Equal(n, int64(10))
}

// TestGetMessagesSeesItsFlagsAndLinkifiers: the flags GET /messages
// announces along the senders' read are the viewer's, and the linkifiers
// it takes from the Service's cache follow a change of them at once (the
// realm's read gives their new version).
func TestGetMessagesSeesItsFlagsAndLinkifiers(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	st, _, w := tracedWorld(t)
	realm := w.AddRealm(t, "gettrips")
	ann := w.AddUser(t, realm, "Ann", store.RoleMember)
	bob := w.AddUser(t, realm, "Bob", store.RoleMember)
	ch := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*store.User{ann, bob}})
	var last store.MessageID
	for range 5 {
		last = w.Send(t, bob, ch, "ticket #12", "hello")
	}
	is.NoErr(st.Update(ctx, func(tx store.Tx) error {
		_, err := tx.UpdateUserMessageFlags(ctx, ann.ID, []store.MessageID{last}, store.FlagStarred, true)
		return err
	}))
	get := func() messages.Result {
		res, err := messages.Get(ctx, w.Svc, ann.ID, messages.Request{Anchor: new("newest"), NumBefore: new(100), NumAfter: new(0)})
		is.NoErr(err)
		return res
	}
	get() // fills the Service's linkifier cache
	res := get()
	is.Equal(len(res.Messages), 5)
	is.Equal(res.Messages[4].ID, last)
	is.Equal(res.Messages[4].Flags, []string{"starred"}) // the viewer's flags
	is.Equal(len(res.Messages[4].TopicLinks), 0)         // no linkifier yet

	is.NoErr(st.Update(ctx, func(tx store.Tx) error {
		return tx.CreateLinkifier(ctx, &store.Linkifier{RealmID: realm.ID, Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://trac.example.com/{id}"})
	}))
	res = get()
	is.Equal(len(res.Messages[4].TopicLinks), 1) // the new linkifier, at its new version
	is.Equal(res.Messages[4].TopicLinks[0].URL, "https://trac.example.com/12")
}
