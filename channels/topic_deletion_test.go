package channels_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// commitLog records, in order, what the store wrapper and the event sink saw, so
// tests can check that events follow the commit they describe.
type commitLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *commitLog) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, e)
}

func (l *commitLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}

// errCommitFailed is the failure loggingStore injects.
var errCommitFailed = errors.New("injected store failure")

// loggingStore wraps the store under test: it logs each Update's outcome and,
// when failOn is n > 0, makes the n-th Update fail after fn ran (so fn's
// writes are rolled back).
type loggingStore struct {
	chatcore.Store
	log    *commitLog
	calls  atomic.Int32
	failOn atomic.Int32
}

func (s *loggingStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	n := s.calls.Add(1)
	err := s.Store.Update(ctx, func(tx chatcore.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if n == s.failOn.Load() {
			return errCommitFailed
		}
		return nil
	})
	if err != nil {
		s.log.add("rollback")
	} else {
		s.log.add("commit")
	}
	return err
}

// newLoggedCast is newCast with the Service seeing the store through a
// loggingStore whose log also records each published event's type.
func newLoggedCast(tb testing.TB, open chattest.Open, opts ...chatcore.Option) (*chattest.World, *chattest.Cast, *loggingStore) {
	tb.Helper()
	ls := &loggingStore{log: &commitLog{}}
	events := &chattest.Events{OnPublish: func(events []chatcore.Event) {
		for _, ev := range events {
			ls.log.add(fmt.Sprintf("event %v", ev.Data["type"]))
		}
	}}
	w := open(tb, chattest.WithEvents(events), chattest.With(opts...),
		chattest.Wrap(func(s chatcore.Store) chatcore.Store { ls.Store = s; return ls }))
	return w, w.SeedCast(tb), ls
}

// newCast builds a World with open (chattest.New: over a memory store) and
// stores the chattest.Cast in it; opts go to the Service.
func newCast(tb testing.TB, open chattest.Open, opts ...chatcore.Option) (*chattest.World, *chattest.Cast) {
	tb.Helper()
	w := open(tb, chattest.With(opts...))
	return w, w.SeedCast(tb)
}

// sortedIDs returns ids sorted, as event recipients are.
func sortedIDs(ids ...chatcore.UserID) []chatcore.UserID {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// filterRecorder wraps a Store; inside Update transactions it records the
// filter of each DeleteMessages call. Used by one goroutine at a time.
type filterRecorder struct {
	chatcore.Store
	filters []chatcore.MessageFilter
}

// wrap makes s wrap base, for chattest.Wrap.
func (s *filterRecorder) wrap(base chatcore.Store) chatcore.Store { s.Store = base; return s }

func (s *filterRecorder) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(filterRecorderTx{tx, s}) })
}

type filterRecorderTx struct {
	chatcore.Tx
	s *filterRecorder
}

func (t filterRecorderTx) DeleteMessages(ctx context.Context, f chatcore.MessageFilter, limit int) ([]chatcore.DeletedMessage, error) {
	t.s.filters = append(t.s.filters, f)
	return t.Tx.DeleteMessages(ctx, f, limit)
}

func TestDeleteTopicRequiresAdministrator(t *testing.T) {
	w, c := newCast(t, chattest.New)
	st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	ids := w.PostN(t, st, "castle", c.Member, 2)
	for _, u := range []*chatcore.User{c.Moderator, c.Member, c.Guest, c.Bot} {
		t.Run(u.FullName, func(t *testing.T) {
			is := is.New(t)
			_, err := channels.DeleteTopic(t.Context(), w.Svc, u.ID, st.ID, "castle")
			chattest.WantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization administrator")
			// The role check comes before the channel lookup.
			_, err = channels.DeleteTopic(t.Context(), w.Svc, u.ID, 999999, "castle")
			chattest.WantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization administrator")
			is.Equal(w.ChannelMessageIDs(t, st, nil), ids) // nothing deleted
		})
	}
	t.Run("owner", func(t *testing.T) {
		is := is.New(t)
		res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Owner.ID, st.ID, "castle")
		is.NoErr(err)                                     // owners are administrators
		is.True(res.Complete)                             // everything deleted
		is.Equal(len(w.ChannelMessageIDs(t, st, nil)), 0) // topic gone
	})
	t.Run("deactivated actor", func(t *testing.T) {
		is := is.New(t)
		gone := w.AddUser(t, c.Realm, "Former Admin", chatcore.RoleAdministrator)
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			gone.IsActive = false
			return tx.UpdateUser(context.Background(), gone)
		})
		_, err := channels.DeleteTopic(t.Context(), w.Svc, gone.ID, st.ID, "castle")
		ce, ok := errors.AsType[*chatcore.Error](err)
		is.True(ok)                                     // a *chatcore.Error
		is.Equal(ce.Kind, chatcore.KindUnauthenticated) // a deactivated actor is not authenticated
	})
}

func TestDeleteTopicInvalidChannel(t *testing.T) {
	w, c := newCast(t, chattest.New)
	foreign := w.AddChannel(t, chattest.Channel{Name: "Elsinore", Realm: c.OtherRealm, Subscribers: []*chatcore.User{c.Stranger}})
	archived := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Old", Archived: true, Subscribers: []*chatcore.User{c.Admin}})
	private := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Secret", InviteOnly: true, Subscribers: []*chatcore.User{c.Member}})
	left := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Left", InviteOnly: true, Subscribers: []*chatcore.User{c.Member}})
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		return tx.PutSubscription(context.Background(), chatcore.Subscription{StreamID: left.ID, UserID: c.Admin.ID, Active: false})
	})
	foreignIDs := w.PostN(t, foreign, "castle", c.Stranger, 1)
	privateIDs := w.PostN(t, private, "castle", c.Member, 1)
	tests := []struct {
		name   string
		stream chatcore.StreamID
	}{
		{"unknown", 999999},
		{"other realm", foreign.ID},
		{"archived", archived.ID},
		{"private, not subscribed", private.ID},
		{"private, subscription inactive", left.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, tt.stream, "castle")
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid channel ID")
		})
	}
	is := is.New(t)
	is.Equal(w.ChannelMessageIDs(t, foreign, nil), foreignIDs) // other realm untouched
	is.Equal(w.ChannelMessageIDs(t, private, nil), privateIDs) // private channel untouched
	is.Equal(len(w.Events.OfType("delete_message")), 0)        // no events for refused requests
}

func TestDeleteTopicDeletesOnlyTheTopic(t *testing.T) {
	is := is.New(t)
	w, c := newCast(t, chattest.New)
	st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member, c.Moderator}})
	other := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Verona", Subscribers: []*chatcore.User{c.Member}})
	keepFirst := w.Post(t, st, "Other", c.Member, "before")
	castle := []chatcore.MessageID{
		w.Post(t, st, "Castle", c.Member, "one"),
		w.Post(t, st, "castle", c.Moderator, "two"),
		w.Post(t, st, "CASTLE", c.Member, "three"),
	}
	keepLast := w.Post(t, st, "castles", c.Member, "after")
	elsewhere := w.Post(t, other, "castle", c.Member, "same topic, other channel")

	res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "cAsTlE")
	is.NoErr(err)         // deletion succeeds
	is.True(res.Complete) // one call is enough

	is.Equal(w.ChannelMessageIDs(t, st, nil), []chatcore.MessageID{keepFirst, keepLast}) // only the topic's messages went
	is.Equal(w.ChannelMessageIDs(t, other, nil), []chatcore.MessageID{elsewhere})        // other channels untouched
	err = w.Base.View(t.Context(), func(tx chatcore.Tx) error {
		_, err := tx.Message(t.Context(), castle[0])
		return err
	})
	is.True(errors.Is(err, chatcore.ErrNotFound)) // the message and its reactions are gone

	evs := w.Events.OfType("delete_message")
	is.Equal(len(evs), 1) // one batch, one event
	is.Equal(evs[0].RealmID, c.Realm.ID)
	is.Equal(evs[0].Data, map[string]any{
		"type": "delete_message", "message_type": "stream", "stream_id": st.ID,
		"topic": "castle", "message_ids": castle,
	}) // Zulip's delete_message payload, ids sorted, topic lower-cased
	want := []chatcore.UserID{c.Admin.ID, c.Moderator.ID, c.Member.ID}
	slices.Sort(want)
	is.Equal(evs[0].UserIDs, want)                         // the subscribers plus the acting admin
	is.Equal(len(w.Events.OfType("stream")), 0)            // the channel's first message survived: no update
	is.Equal(w.Stream(t, st.ID).FirstMessageID, keepFirst) // first_message_id unchanged

	t.Run("missing topic", func(t *testing.T) {
		is := is.New(t)
		w.Events.Reset()
		res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "no such topic")
		is.NoErr(err)                                       // not an error
		is.True(res.Complete)                               // nothing to do is complete
		is.Equal(len(w.Events.OfType("delete_message")), 0) // no event for an empty batch
	})
}

func TestDeleteTopicUnicodeCaseFolding(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		tests := []struct{ stored, asked, event string }{
			{"Straße", "STRASSE", "straße"},
			{"ÄBC", "äbc", "äbc"},
			{"ΚΆΣΤΡΟ", "κάστρο", "κάστρο"},
		}
		for _, tt := range tests {
			t.Run(tt.stored, func(t *testing.T) {
				is := is.New(t)
				w.Events.Reset()
				id := w.Post(t, st, tt.stored, c.Member, "hi")
				res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, tt.asked)
				is.NoErr(err)                                            // deletion succeeds
				is.True(res.Complete)                                    // complete
				is.Equal(len(w.ChannelMessageIDs(t, st, &tt.stored)), 0) // matched with full case folding
				evs := w.Events.OfType("delete_message")
				is.Equal(len(evs), 1)                                          // one event
				is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{id}) // the message
				is.Equal(evs[0].Data["topic"], tt.event)                       // the stored topic, lower-cased
			})
		}
	})
}

func TestDeleteTopicEmptyTopic(t *testing.T) {
	for _, name := range []string{"general chat", ""} {
		t.Run("name "+name, func(t *testing.T) {
			is := is.New(t)
			w, c := newCast(t, chattest.New)
			st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
			w.PostN(t, st, "", c.Member, 3)
			general := w.Post(t, st, "general", c.Member, "not the empty topic")
			res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, name)
			is.NoErr(err)                                                            // deletion succeeds
			is.True(res.Complete)                                                    // complete
			is.Equal(w.ChannelMessageIDs(t, st, nil), []chatcore.MessageID{general}) // only the empty topic went
			is.Equal(w.Events.OfType("delete_message")[0].Data["topic"], "")         // the event names the empty topic
		})
	}
	t.Run("custom display name", func(t *testing.T) {
		is := is.New(t)
		w := chattest.New(t)
		realm := w.AddRealm(t, "custom", chattest.EmptyTopicName("lobby"))
		admin := w.AddUser(t, realm, "Custom Admin", chatcore.RoleAdministrator)
		st := w.AddChannel(t, chattest.Channel{Name: "Hall", Realm: realm, Subscribers: []*chatcore.User{admin}})
		empty := w.PostN(t, st, "", admin, 2)
		w.Post(t, st, "general chat", admin, "a topic really named general chat")

		_, err := channels.DeleteTopic(t.Context(), w.Svc, admin.ID, st.ID, "general chat")
		is.NoErr(err)                                    // deletion succeeds
		is.Equal(w.ChannelMessageIDs(t, st, nil), empty) // "general chat" is an ordinary topic in this realm
		_, err = channels.DeleteTopic(t.Context(), w.Svc, admin.ID, st.ID, "lobby")
		is.NoErr(err)                                     // deletion succeeds
		is.Equal(len(w.ChannelMessageIDs(t, st, nil)), 0) // the realm's display name addresses the empty topic
	})
}

func TestDeleteTopicProtectedHistory(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Secret", InviteOnly: true, Protected: true, Subscribers: []*chatcore.User{c.Member}})
		before := w.PostN(t, st, "plans", c.Member, 2)
		joined := w.Post(t, st, "plans", c.Member, "sent when the admin joined")
		w.Subscribe(t, st, c.Admin, joined)
		late := w.AddUser(t, c.Realm, "Late Joiner", chatcore.RoleMember)
		after := w.Post(t, st, "plans", c.Member, "sent later")
		w.Subscribe(t, st, late, after+1) // sees none of the topic

		res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "plans")
		is.NoErr(err)                                     // deletion succeeds
		is.True(res.Complete)                             // complete
		is.Equal(w.ChannelMessageIDs(t, st, nil), before) // messages from before the admin joined survive
		evs := w.Events.OfType("delete_message")
		is.Equal(len(evs), 1)                                                     // one batch
		is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{joined, after}) // only what the admin could see
		want := []chatcore.UserID{c.Admin.ID, c.Member.ID}
		slices.Sort(want)
		is.Equal(evs[0].UserIDs, want)              // a subscriber who saw none of them is not told
		is.Equal(len(w.Events.OfType("stream")), 0) // the oldest message survived

		t.Run("public channel with protected history, not subscribed", func(t *testing.T) {
			is := is.New(t)
			odd := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Odd", Protected: true, Subscribers: []*chatcore.User{c.Member}})
			ids := w.PostN(t, odd, "plans", c.Member, 2)
			res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, odd.ID, "plans")
			is.NoErr(err)                                   // allowed
			is.True(res.Complete)                           // nothing visible, nothing to do
			is.Equal(w.ChannelMessageIDs(t, odd, nil), ids) // nothing deleted
		})
	})
}

func TestDeleteTopicTimeBudget(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open, chatcore.WithTopicDeletion(2, 25*time.Second))
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		ids := w.PostN(t, st, "big", c.Member, 5)
		keep := w.Post(t, st, "small", c.Member, "stays")
		w.Clock.SetStep(10 * time.Second) // every clock reading takes 10 s

		// Readings: start t0; t10 and t20 allow a batch each; t30 is past t0+25s.
		res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "big")
		is.NoErr(err)                                             // a timeout is not an error
		is.True(!res.Complete)                                    // the budget ran out mid-topic
		is.Equal(w.ChannelMessageIDs(t, st, new("big")), ids[:1]) // exactly the two finished batches are deleted
		evs := w.Events.OfType("delete_message")
		is.Equal(len(evs), 2)                                                      // one event per finished batch
		is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{ids[3], ids[4]}) // newest first
		is.Equal(evs[1].Data["message_ids"], []chatcore.MessageID{ids[1], ids[2]}) // then the next two

		res, err = channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "big")
		is.NoErr(err)                                                         // repeating continues
		is.True(res.Complete)                                                 // and finishes
		is.Equal(len(w.ChannelMessageIDs(t, st, new("big"))), 0)              // the topic is gone
		is.Equal(w.ChannelMessageIDs(t, st, nil), []chatcore.MessageID{keep}) // other topics survive
		is.Equal(w.Stream(t, st.ID).FirstMessageID, keep)                     // first_message_id moved to the survivor

		t.Run("many batches within the budget", func(t *testing.T) {
			is := is.New(t)
			w, c := newCast(t, open, chatcore.WithTopicDeletion(3, time.Minute))
			st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark"})
			w.PostN(t, st, "big", c.Member, 10)
			res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "big")
			is.NoErr(err)                                       // deletion succeeds
			is.True(res.Complete)                               // the clock stands still: no timeout
			is.Equal(len(w.Events.OfType("delete_message")), 4) // 3+3+3+1
			is.Equal(len(w.ChannelMessageIDs(t, st, nil)), 0)   // everything deleted
		})
	})
}

func TestDeleteTopicFirstMessageID(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c, ls := newLoggedCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member, c.Guest}})
		old := w.PostN(t, st, "old", c.Member, 2)
		newer := w.PostN(t, st, "new", c.Member, 2)
		is.Equal(w.Stream(t, st.ID).FirstMessageID, old[0]) // fixture keeps first_message_id

		_, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "old")
		is.NoErr(err)                                         // deletion succeeds
		is.Equal(w.Stream(t, st.ID).FirstMessageID, newer[0]) // recomputed from what is left
		evs := w.Events.OfType("stream", "op", "update")
		is.Equal(len(evs), 1) // one channel update
		is.Equal(evs[0].Data, map[string]any{
			"type": "stream", "op": "update", "property": "first_message_id",
			"value": newer[0], "stream_id": st.ID, "name": "Denmark",
		}) // Zulip's stream update payload
		is.Equal(evs[0].UserIDs, sortedIDs(c.Admin.ID, c.Member.ID, c.Guest.ID))               // the delete event's users: subscribers and the admin
		is.Equal(ls.log.all()[:3], []string{"commit", "event stream", "event delete_message"}) // Zulip's order: channel update, then deletion

		w.Events.Reset()
		_, err = channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "new")
		is.NoErr(err)                                                      // deletion succeeds
		is.Equal(w.Stream(t, st.ID).FirstMessageID, chatcore.MessageID(0)) // no message left
		evs = w.Events.OfType("stream", "op", "update")
		is.Equal(len(evs), 1)               // one channel update
		is.Equal(evs[0].Data["value"], nil) // null when the channel is empty
	})
}

func TestDeleteTopicEventsOnlyAfterCommit(t *testing.T) {
	is := is.New(t)
	w, c, ls := newLoggedCast(t, chattest.New, chatcore.WithTopicDeletion(2, time.Minute))
	st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	w.PostN(t, st, "t", c.Member, 4)
	_, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "t")
	is.NoErr(err) // deletion succeeds
	is.Equal(ls.log.all(), []string{
		"commit", "event delete_message", // newest two
		"commit", "event stream", "event delete_message", // oldest two, first_message_id recomputed
		"commit", // the empty batch that finds nothing left
	}) // each batch's events follow its commit
}

func TestDeleteTopicRollsBackAFailedBatch(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c, ls := newLoggedCast(t, open, chatcore.WithTopicDeletion(2, time.Minute))
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		ids := w.PostN(t, st, "t", c.Member, 4)
		ls.failOn.Store(ls.calls.Load() + 2) // the second batch fails at commit

		_, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "t")
		is.True(errors.Is(err, errCommitFailed))                                       // the store failure is returned
		is.Equal(w.ChannelMessageIDs(t, st, nil), ids[:2])                             // the first batch stays deleted, the second is rolled back
		is.Equal(w.Stream(t, st.ID).FirstMessageID, ids[0])                            // first_message_id change rolled back too
		is.Equal(ls.log.all(), []string{"commit", "event delete_message", "rollback"}) // no event for the failed batch
		evs := w.Events.OfType("delete_message")
		is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{ids[2], ids[3]}) // the committed batch only

		ls.failOn.Store(0)
		res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "t")
		is.NoErr(err)                                     // a repeated call works
		is.True(res.Complete)                             // and completes
		is.Equal(len(w.ChannelMessageIDs(t, st, nil)), 0) // everything deleted
	})
}

func TestDeleteMessagesBatched(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open, chatcore.WithTopicDeletion(2, time.Minute))
		a := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Alpha", Subscribers: []*chatcore.User{c.Member, c.Moderator}})
		b := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Beta", InviteOnly: true, Subscribers: []*chatcore.User{c.Member}})
		keepA := w.Post(t, a, "x", c.Moderator, "someone else's")
		inA := w.PostN(t, a, "X", c.Member, 3)
		inB := w.Post(t, b, "Y", c.Member, "private")
		dm1 := w.DM(t, c.Member, "hello", c.Admin)
		dm2 := w.DM(t, c.Member, "hello all", c.Admin, c.Moderator)
		dm3 := w.DM(t, c.Member, "again", c.Admin)
		keepDM := w.DM(t, c.Admin, "reply", c.Member)

		f := chatcore.MessageFilter{RealmID: c.Realm.ID, SenderID: c.Member.ID}
		t.Run("deadline passed", func(t *testing.T) {
			is := is.New(t)
			done, err := channels.DeleteMessagesBatchedForTest(t.Context(), w.Svc, c.Admin, f, chattest.Epoch.Add(-time.Second))
			is.NoErr(err)                                    // not an error
			is.True(!done)                                   // nothing done before the deadline check
			is.Equal(len(w.ChannelMessageIDs(t, a, nil)), 4) // nothing deleted
		})

		done, err := channels.DeleteMessagesBatchedForTest(t.Context(), w.Svc, nil, f, time.Time{})
		is.NoErr(err)                                                         // deletion succeeds
		is.True(done)                                                         // no deadline: runs to the end
		is.Equal(w.ChannelMessageIDs(t, a, nil), []chatcore.MessageID{keepA}) // only the sender's messages went
		is.Equal(len(w.ChannelMessageIDs(t, b, nil)), 0)                      // in every channel
		is.Equal(w.Message(t, keepDM).Content, "reply")                       // others' direct messages stay

		type group struct {
			ids   []chatcore.MessageID
			users []chatcore.UserID
			topic any
		}
		var got []group
		for _, ev := range w.Events.OfType("delete_message") {
			got = append(got, group{ev.Data["message_ids"].([]chatcore.MessageID), ev.UserIDs, ev.Data["topic"]})
		}
		pair := []chatcore.UserID{c.Admin.ID, c.Member.ID}
		trio := []chatcore.UserID{c.Admin.ID, c.Moderator.ID, c.Member.ID}
		slices.Sort(pair)
		slices.Sort(trio)
		aSubs := []chatcore.UserID{c.Moderator.ID, c.Member.ID}
		slices.Sort(aSubs)
		// Batches of two, newest first: [dm3 dm2] [dm1 inB] [inA2 inA1] [inA0];
		// within a batch direct messages come first.
		is.Equal(got, []group{
			{[]chatcore.MessageID{dm3}, pair, nil},
			{[]chatcore.MessageID{dm2}, trio, nil},
			{[]chatcore.MessageID{dm1}, pair, nil},
			{[]chatcore.MessageID{inB}, []chatcore.UserID{c.Member.ID}, "y"},
			{[]chatcore.MessageID{inA[1], inA[2]}, aSubs, "x"},
			{[]chatcore.MessageID{inA[0]}, aSubs, "x"},
		}) // grouped per conversation within each batch, to the participants / subscribers (nil actor adds nobody)
		upd := w.Events.OfType("stream", "op", "update")
		is.Equal(len(upd), 1)                                    // Beta lost its only message; Alpha's first message was someone else's
		is.Equal(upd[0].Data["stream_id"], b.ID)                 // Beta's update
		is.Equal(upd[0].Data["value"], nil)                      // null: Beta is empty
		is.Equal(upd[0].UserIDs, []chatcore.UserID{c.Member.ID}) // the users of the deletion event (no actor here)
	})
}

// TestDeleteTopicSweepsDownThenLooksAbove: each batch after a full one
// deletes below the lowest id the previous batch deleted, and the batch that
// finds fewer below fills up from the whole topic, so messages sent to the
// topic, or moved into it, while the deletion runs are deleted too, and the
// deletion completes only when nothing of the topic is left.
func TestDeleteTopicSweepsDownThenLooksAbove(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		hook := &filterRecorder{}
		w := open(t, chattest.Wrap(hook.wrap), chattest.With(chatcore.WithTopicDeletion(2, time.Minute)))
		c := w.SeedCast(t)
		a := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Alpha", Subscribers: []*chatcore.User{c.Member}})
		moved := w.Post(t, a, "elsewhere", c.Member, "moved in later")
		in := w.PostN(t, a, "t", c.Member, 5)
		var late chatcore.MessageID
		w.Events.OnPublish = func([]chatcore.Event) {
			if late != 0 {
				return
			}
			// After the first batch: one message sent to the topic, and an
			// older one moved into it.
			late = w.Post(t, a, "t", c.Member, "sent meanwhile")
			w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
				_, err := tx.MoveMessages(ctx, chatcore.MessageMove{RealmID: c.Realm.ID, StreamID: a.ID, TopicKey: chatcore.TopicKey("elsewhere"),
					ToStream: a.ID, ToRecipient: a.RecipientID, ToTopic: "t", MovedAt: w.Clock.Current(),
					Entry: chatcore.EditHistoryEntry{UserID: c.Member.ID, Timestamp: w.Clock.Current()}}, 10)
				return err
			})
		}
		w.Events.Reset()
		res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, a.ID, "t")
		is.NoErr(err)
		is.True(res.Complete)                            // complete
		is.Equal(len(w.ChannelMessageIDs(t, a, nil)), 0) // with the late and the moved message gone too

		var batches [][]chatcore.MessageID
		for _, ev := range w.Events.OfType("delete_message") {
			batches = append(batches, ev.Data["message_ids"].([]chatcore.MessageID))
		}
		is.Equal(batches, [][]chatcore.MessageID{
			{in[3], in[4]}, {in[1], in[2]}, {moved, in[0]}, {late},
		}) // newest first below each bound; the late message in the last batch
		var bounds []chatcore.MessageID
		for _, f := range hook.filters {
			bounds = append(bounds, f.BeforeID)
		}
		is.Equal(bounds, []chatcore.MessageID{0, in[3], in[1], moved, 0}) // the last batch found nothing below moved and looked at the whole topic
	})
}

// BenchmarkDeleteTopic measures deleting a 1,000-message topic in batches of
// 100 (Zulip's size), events included, on the memory and the SQLite store.
func BenchmarkDeleteTopic(b *testing.B) {
	stores := map[string]func(b *testing.B) chatcore.Store{
		"memory": func(*testing.B) chatcore.Store { return memory.New() },
		"sqlite": func(b *testing.B) chatcore.Store {
			return chattest.SQLite(b)
		},
	}
	for _, name := range []string{"memory", "sqlite"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			w, c := newCast(b, func(tb testing.TB, opts ...chattest.Option) *chattest.World {
				return chattest.New(tb, append(opts, chattest.OnStore(stores[name](b)))...)
			})
			st := w.AddChannel(b, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member, c.Moderator}})
			for b.Loop() {
				b.StopTimer()
				w.PostN(b, st, "big", c.Member, 1000)
				w.Events.Reset()
				b.StartTimer()
				res, err := channels.DeleteTopic(context.Background(), w.Svc, c.Admin.ID, st.ID, "big")
				if err != nil || !res.Complete {
					b.Fatalf("DeleteTopic: %v, %+v", err, res)
				}
			}
		})
	}
}

// TestDeleteTopicEventsPerBatch checks that deleting a topic sends one
// delete_message event per batch, naming the topic as that batch stores it.
func TestDeleteTopicEventsPerBatch(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open, chatcore.WithTopicDeletion(1, time.Minute))
		general := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Verona", Subscribers: []*chatcore.User{c.Owner, c.Member, c.Moderator}})
		ctx := context.Background()
		older := w.Send(t, c.Member, general, "Straße", "hello")
		newer := w.Send(t, c.Moderator, general, "STRASSE", "hello")
		w.Events.Reset()
		res, err := channels.DeleteTopic(ctx, w.Svc, c.Owner.ID, general.ID, "strasse")
		is.NoErr(err)         // deletion succeeds
		is.True(res.Complete) // every message deleted
		evs := w.Events.Take("delete_message")
		is.Equal(len(evs), 2)                                             // one event per batch of one
		is.Equal(evs[0].Data["topic"], "strasse")                         // the newest batch spells it as its message, lower-cased
		is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{newer}) // newest first
		is.Equal(evs[1].Data["topic"], "straße")                          // the next batch spells it as its own message
		is.Equal(evs[1].Data["message_ids"], []chatcore.MessageID{older}) // then the older one

		_, err = channels.DeleteTopic(ctx, w.Svc, c.Owner.ID, general.ID, "nothing here")
		is.NoErr(err)                                     // an empty topic is no error
		is.Equal(len(w.Events.Take("delete_message")), 0) // and sends no event
	})
}
