package chatcore_test

// DeactivateUser with message deletion is one transaction: a cancelled
// context, a store failure or a refusal leaves every message, user,
// subscription and pending e-mail change as it was and publishes nothing;
// success deletes in batches and publishes everything after the one commit.

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// atmBatch is the deletion batch size the tests configure.
const atmBatch = 2

var (
	atmNow         = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	errAtmInjected = errors.New("injected store failure")
	atmAllActions  = chatcore.DeactivationActions{
		DeleteProfile: true, DeletePublicChannelMessages: true,
		DeletePrivateChannelMessages: true, DeleteDirectMessages: true,
	}
)

// atmStore wraps a Store; inside Update transactions it counts the
// DeleteMessages calls and lets a test act after each one (cancel a context,
// fail) and make DeactivateSubscriptions fail. Used by one goroutine at a time.
type atmStore struct {
	chatcore.Store
	deletes  int // DeleteMessages calls so far
	maxBatch int // the largest batch DeleteMessages returned
	// afterDelete, when set, runs after the n-th (from 1) DeleteMessages call
	// has deleted its batch; an error it returns becomes the call's error.
	afterDelete func(n int) error
	failSubs    bool // DeactivateSubscriptions fails
}

func (s *atmStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(atmTx{tx, s}) })
}

type atmTx struct {
	chatcore.Tx
	s *atmStore
}

func (t atmTx) DeleteMessages(ctx context.Context, f chatcore.MessageFilter, limit int) ([]chatcore.DeletedMessage, error) {
	deleted, err := t.Tx.DeleteMessages(ctx, f, limit)
	if err != nil {
		return nil, err
	}
	t.s.deletes++
	t.s.maxBatch = max(t.s.maxBatch, len(deleted))
	if t.s.afterDelete != nil {
		if err := t.s.afterDelete(t.s.deletes); err != nil {
			return nil, err
		}
	}
	return deleted, nil
}

func (t atmTx) DeactivateSubscriptions(ctx context.Context, user chatcore.UserID) error {
	if t.s.failSubs {
		return errAtmInjected
	}
	return t.Tx.DeactivateSubscriptions(ctx, user)
}

// atmEnv is a Service over a wrapped store holding one realm: an owner, an
// administrator, the member to deactivate with their bot, a friend, a public
// and a private channel, and messages of every kind.
type atmEnv struct {
	svc     *chatcore.Service
	store   *atmStore
	sink    *recordingSink
	mailer  *recordingMailer
	realm   chatcore.RealmID
	owner   chatcore.UserID
	admin   chatcore.UserID
	member  chatcore.UserID
	bot     chatcore.UserID
	friend  chatcore.UserID
	general *chatcore.Stream
	secret  *chatcore.Stream
	// doomed are the messages of member and bot (every kind); kept those of
	// the others. firstKept is the oldest kept message of general.
	doomed, kept []chatcore.MessageID
	firstKept    chatcore.MessageID
}

// atmEachStore runs body once over a memory store and once over SQLite.
func atmEachStore(t *testing.T, body func(t *testing.T, e *atmEnv)) {
	newEnv := func(tb testing.TB, base chatcore.Store, _ ...chatcore.Option) *atmEnv { return newAtmEnv(tb, base) }
	eachStore(t, newEnv, func(t *testing.T, open func(testing.TB, ...chatcore.Option) *atmEnv) { body(t, open(t)) })
}

func newAtmEnv(tb testing.TB, base chatcore.Store) *atmEnv {
	tb.Helper()
	e := &atmEnv{store: &atmStore{Store: base}, sink: &recordingSink{}, mailer: &recordingMailer{}}
	e.svc = chatcore.New(e.store,
		chatcore.WithClock(chatcore.ClockFunc(func() time.Time { return atmNow })),
		chatcore.WithEventSink(e.sink), chatcore.WithMailer(e.mailer),
		chatcore.WithPasswordHasher(plainHasher{}), chatcore.WithTopicDeletion(atmBatch, time.Hour))
	ctx := context.Background()
	err := base.Update(ctx, func(tx chatcore.Tx) error {
		realm := &chatcore.Realm{StringID: "atomic", Name: "Atomic", DateCreated: atmNow}
		if err := tx.CreateRealm(ctx, realm); err != nil {
			return err
		}
		e.realm = realm.ID
		user := func(name string, role chatcore.Role, owner chatcore.UserID) (chatcore.UserID, error) {
			u := &chatcore.User{
				RealmID: realm.ID, Email: name + "@atomic.test", FullName: name, Role: role,
				IsActive: true, AvatarSource: "G", DateJoined: atmNow,
				APIKeyHash: chatcore.HashAPIKey(name), Settings: chatcore.DefaultSettings(),
			}
			if owner != 0 {
				u.IsBot, u.BotType, u.BotOwnerID = true, chatcore.BotTypeGeneric, owner
			}
			err := tx.CreateUser(ctx, u)
			return u.ID, err
		}
		var err error
		if e.owner, err = user("owner", chatcore.RoleOwner, 0); err != nil {
			return err
		}
		if e.admin, err = user("admin", chatcore.RoleAdministrator, 0); err != nil {
			return err
		}
		if e.member, err = user("member", chatcore.RoleMember, 0); err != nil {
			return err
		}
		if e.friend, err = user("friend", chatcore.RoleMember, 0); err != nil {
			return err
		}
		if e.bot, err = user("member-bot", chatcore.RoleMember, e.member); err != nil {
			return err
		}
		e.general = &chatcore.Stream{RealmID: realm.ID, Name: "general", HistoryPublicToSubscribers: true, DateCreated: atmNow}
		e.secret = &chatcore.Stream{RealmID: realm.ID, Name: "secret", InviteOnly: true, HistoryPublicToSubscribers: true, DateCreated: atmNow}
		for _, st := range []*chatcore.Stream{e.general, e.secret} {
			if err := tx.CreateStream(ctx, st); err != nil {
				return err
			}
		}
		for _, sub := range []struct {
			st *chatcore.Stream
			u  chatcore.UserID
		}{
			{e.general, e.owner}, {e.general, e.admin}, {e.general, e.member}, {e.general, e.friend}, {e.general, e.bot},
			{e.secret, e.owner}, {e.secret, e.member}, {e.secret, e.bot},
		} {
			if err := tx.PutSubscription(ctx, chatcore.Subscription{StreamID: sub.st.ID, UserID: sub.u, Active: true}); err != nil {
				return err
			}
		}
		dm, err := tx.DirectRecipient(ctx, realm.ID, []chatcore.UserID{e.member, e.friend})
		if err != nil {
			return err
		}
		post := func(sender chatcore.UserID, st *chatcore.Stream, topic string) error {
			m := &chatcore.Message{RealmID: realm.ID, SenderID: sender, Content: "hi", RenderedContent: "<p>hi</p>",
				Client: "test", SentAt: atmNow}
			if st != nil {
				m.Type, m.RecipientID, m.StreamID, m.Topic = chatcore.MessageTypeStream, st.RecipientID, st.ID, topic
			} else {
				m.Type, m.RecipientID, m.DirectMembers = chatcore.MessageTypePrivate, dm, []chatcore.UserID{e.member, e.friend}
			}
			if err := tx.CreateMessage(ctx, m); err != nil {
				return err
			}
			if sender == e.member || sender == e.bot {
				e.doomed = append(e.doomed, m.ID)
			} else {
				e.kept = append(e.kept, m.ID)
				if st == e.general && e.firstKept == 0 {
					e.firstKept = m.ID
				}
			}
			if st != nil && st.FirstMessageID == 0 {
				st.FirstMessageID = m.ID
				return tx.UpdateStream(ctx, st)
			}
			return nil
		}
		// The member's message is the oldest of general, so deleting it moves
		// first_message_id.
		for i := range 9 {
			if err := post(e.member, e.general, []string{"Plans", "lunch", "Straße"}[i%3]); err != nil {
				return err
			}
			if i%3 == 1 {
				if err := post(e.friend, e.general, "lunch"); err != nil {
					return err
				}
			}
			if i%4 == 0 {
				if err := post(e.member, nil, ""); err != nil {
					return err
				}
			}
			if i%3 == 2 {
				if err := post(e.bot, e.general, "bot"); err != nil {
					return err
				}
			}
		}
		for _, sender := range []chatcore.UserID{e.member, e.owner, e.member, e.friend} {
			if err := post(sender, e.secret, "hush"); err != nil {
				return err
			}
		}
		if err := post(e.friend, nil, ""); err != nil {
			return err
		}
		return tx.CreateEmailChange(ctx, &chatcore.EmailChange{Key: "pending", UserID: e.member, RealmID: realm.ID,
			OldEmail: "member@atomic.test", NewEmail: "member2@atomic.test", CreatedAt: atmNow})
	})
	if err != nil {
		tb.Fatalf("setting up: %v", err)
	}
	slices.Sort(e.doomed)
	return e
}

// atmState is everything a deactivation could change.
type atmState struct {
	Messages    []chatcore.MessageID
	Users       []chatcore.User
	Subs        []chatcore.Subscription
	FirstIDs    []chatcore.MessageID // of general and secret
	EmailChange bool
}

func (e *atmEnv) state(tb testing.TB) atmState {
	tb.Helper()
	ctx := context.Background()
	var s atmState
	err := e.store.View(ctx, func(tx chatcore.Tx) error {
		ms, err := tx.Messages(ctx, chatcore.MessageQuery{RealmID: e.realm})
		if err != nil {
			return err
		}
		for _, m := range ms {
			s.Messages = append(s.Messages, m.ID)
		}
		if s.Users, err = tx.Users(ctx, chatcore.UserFilter{RealmID: e.realm}); err != nil {
			return err
		}
		for _, st := range []*chatcore.Stream{e.general, e.secret} {
			subs, err := tx.Subscriptions(ctx, st.ID, 0)
			if err != nil {
				return err
			}
			s.Subs = append(s.Subs, subs...)
			got, err := tx.Stream(ctx, st.ID)
			if err != nil {
				return err
			}
			s.FirstIDs = append(s.FirstIDs, got.FirstMessageID)
		}
		_, err = tx.EmailChange(ctx, "pending")
		if errors.Is(err, chatcore.ErrNotFound) {
			return nil
		}
		s.EmailChange = err == nil
		return err
	})
	if err != nil {
		tb.Fatalf("reading the store: %v", err)
	}
	return s
}

// deactivate deactivates the member with every action and a comment.
func (e *atmEnv) deactivate(ctx context.Context, actor chatcore.UserID) error {
	return e.svc.DeactivateUser(ctx, actor, e.member, chatcore.DeactivateUserRequest{
		Actions: new(atmAllActions), DeactivationNotificationComment: new("bye"),
	})
}

func TestDeactivateUserAtomicCancelMidDeletion(t *testing.T) {
	atmEachStore(t, func(t *testing.T, e *atmEnv) {
		is := is.New(t)
		before := e.state(t)
		is.True(len(e.doomed) > 3*atmBatch) // enough messages for several batches
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		e.store.afterDelete = func(n int) error {
			if n == 2 {
				cancel() // the client goes away after the second batch
			}
			return nil
		}
		err := e.deactivate(ctx, e.owner)
		is.True(errors.Is(err, context.Canceled))      // the cancellation comes back
		is.Equal(e.store.deletes, 2)                   // no batch runs after the cancellation
		is.Equal(e.state(t).Messages, before.Messages) // every message is still there
		is.Equal(e.state(t), before)                   // every message, user, subscription and e-mail change is untouched
		is.Equal(len(e.sink.all()), 0)                 // no event was published
		is.Equal(len(e.mailer.all()), 0)               // no mail was sent

		e.store.afterDelete = nil
		is.NoErr(e.deactivate(t.Context(), e.owner))      // a repeated call completes
		is.Equal(e.state(t).Messages, e.kept)             // and deletes every selected message
		is.True(len(e.sink.ofType("delete_message")) > 0) // with its events
		is.Equal(len(e.mailer.all()), 1)                  // and one notice
	})
}

func TestDeactivateUserAtomicStoreFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(s *atmStore)
	}{
		{"mid-deletion", func(s *atmStore) {
			s.afterDelete = func(n int) error {
				if n == 3 {
					return errAtmInjected // after the third batch was deleted in the transaction
				}
				return nil
			}
		}},
		{"after every deletion", func(s *atmStore) { s.failSubs = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			atmEachStore(t, func(t *testing.T, e *atmEnv) {
				is := is.New(t)
				before := e.state(t)
				tc.fail(e.store)
				err := e.deactivate(t.Context(), e.owner)
				is.True(errors.Is(err, errAtmInjected))        // the store failure comes back
				is.True(e.store.deletes >= 3)                  // batches were deleted before the failure
				is.Equal(e.state(t).Messages, before.Messages) // every message is still there
				is.Equal(e.state(t), before)                   // and rolled back with everything else
				is.Equal(len(e.sink.all()), 0)                 // no event was published
				is.Equal(len(e.mailer.all()), 0)               // no mail was sent
			})
		})
	}
}

func TestDeactivateUserAtomicRefusalDeletesNothing(t *testing.T) {
	atmEachStore(t, func(t *testing.T, e *atmEnv) {
		is := is.New(t)
		before := e.state(t)
		err := e.svc.DeactivateUser(t.Context(), e.friend, e.member, chatcore.DeactivateUserRequest{Actions: new(atmAllActions)})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Insufficient permission")
		err = e.svc.DeactivateUser(t.Context(), e.admin, e.owner, chatcore.DeactivateUserRequest{Actions: new(atmAllActions)})
		wantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization owner")
		is.Equal(e.store.deletes, 0)   // a refused request deletes nothing
		is.Equal(e.state(t), before)   // and changes nothing
		is.Equal(len(e.sink.all()), 0) // no event

		// Another administrator deactivated the member first: the request with
		// deletions is refused, and the member's messages stay.
		is.NoErr(e.svc.DeactivateUser(t.Context(), e.admin, e.member, chatcore.DeactivateUserRequest{})) // plain deactivation
		e.sink.reset()
		err = e.deactivate(t.Context(), e.owner)
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "User is deactivated")
		is.Equal(e.store.deletes, 0)                   // still nothing deleted
		is.Equal(e.state(t).Messages, before.Messages) // every message is still there
		is.Equal(len(e.sink.all()), 0)                 // no event
	})
}

func TestDeactivateUserAtomicBatches(t *testing.T) {
	atmEachStore(t, func(t *testing.T, e *atmEnv) {
		is := is.New(t)
		publications := 0
		e.sink.OnPublish = func([]chatcore.Event) {
			publications++
			st := e.state(t)
			is.Equal(st.Messages, e.kept) // events go out after the deletions committed
			for _, u := range st.Users {
				if u.ID == e.member || u.ID == e.bot {
					is.True(!u.IsActive) // and after the deactivation committed with them
				}
			}
		}
		is.NoErr(e.deactivate(t.Context(), e.owner)) // allowed

		is.Equal(publications, 1)                                         // one commit, one publication
		is.True(e.store.deletes >= (len(e.doomed)+atmBatch-1)/atmBatch+1) // one call per batch (and one per sender that finds nothing more)
		is.Equal(e.store.maxBatch, atmBatch)                              // never more than one batch at a time

		st := e.state(t)
		is.Equal(st.Messages, e.kept)         // exactly the member's and the bot's messages are gone
		is.Equal(st.FirstIDs[0], e.firstKept) // general's first_message_id moved to its oldest kept message
		is.True(!st.EmailChange)              // the pending e-mail change is gone
		for _, u := range st.Users {
			if u.ID == e.member || u.ID == e.bot {
				is.Equal(u.FullName, "Deleted user") // delete_profile applied
			}
		}

		events := e.sink.all()
		var deleted []chatcore.MessageID
		lastDeletion, firstDeactivation := -1, len(events)
		for i, ev := range events {
			switch ev.Data["type"] {
			case "delete_message":
				ids := ev.Data["message_ids"].([]chatcore.MessageID)
				is.True(len(ids) <= atmBatch)                 // one event covers at most one batch
				is.True(slices.Contains(ev.UserIDs, e.owner)) // the acting owner hears of it
				deleted = append(deleted, ids...)
				lastDeletion = i
			case "realm_user":
				firstDeactivation = min(firstDeactivation, i)
			}
		}
		is.True(lastDeletion < firstDeactivation) // deletion events come before the profile and deactivation events
		slices.Sort(deleted)
		is.Equal(deleted, e.doomed) // every deleted message is announced exactly once
		moved := map[any][]any{}    // stream id: the first_message_id values announced
		for _, ev := range e.sink.ofType("stream", "property", "first_message_id") {
			moved[ev.Data["stream_id"]] = append(moved[ev.Data["stream_id"]], ev.Data["value"])
		}
		is.Equal(moved[e.general.ID], []any{e.firstKept}) // general's first_message_id moved once, to its oldest kept message
		is.Equal(len(moved[e.secret.ID]), 1)              // secret's (also the member's message) moved once too

		secret := map[chatcore.UserID]bool{}
		for _, ev := range e.sink.ofType("delete_message", "message_type", "stream") {
			if ev.Data["stream_id"] == any(e.secret.ID) {
				for _, u := range ev.UserIDs {
					secret[u] = true
				}
			}
		}
		is.Equal(slices.Sorted(maps.Keys(secret)), []chatcore.UserID{e.owner, e.member, e.bot}) // private deletions go to the channel's subscribers (still active then) and the actor
		is.Equal(len(e.mailer.all()), 1)                                                        // one notice
	})
}

// deletedTopics returns, per delete_message event of a channel, its topic and
// message ids.
func deletedTopics(events []chatcore.Event) map[string][]chatcore.MessageID {
	out := map[string][]chatcore.MessageID{}
	for _, ev := range events {
		if ev.Data["message_type"] != "stream" {
			continue
		}
		topic := ev.Data["topic"].(string)
		out[topic] = append(out[topic], ev.Data["message_ids"].([]chatcore.MessageID)...)
	}
	return out
}

// TestDeactivationEventsNameTopicAsStored checks that the delete_message
// events of a deactivation with message deletion name each topic as stored,
// lower-cased, one event per topic.
func TestDeactivationEventsNameTopicAsStored(t *testing.T) {
	veronaEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		plans := e.post(t, e.ham, "Straße Plans")
		lunch := e.post(t, e.ham, "LUNCH")
		e.post(t, e.ophelia, "LUNCH") // another sender's message stays
		e.events.reset()
		err := e.svc.DeactivateUser(ctx, e.owner.ID, e.ham.ID, chatcore.DeactivateUserRequest{
			Actions: &chatcore.DeactivationActions{DeletePublicChannelMessages: true},
		})
		is.NoErr(err) // deactivation with message deletion succeeds
		got := deletedTopics(e.events.take("delete_message"))
		is.Equal(got, map[string][]chatcore.MessageID{
			"straße plans": {plans}, // lower-cased as stored, not the folded "strasse plans"
			"lunch":        {lunch},
		}) // one event per topic, named as Zulip names it
	})
}
