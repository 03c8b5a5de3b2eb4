package accounts_test

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
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// deletionBatch is the deletion batch size the tests configure.
const deletionBatch = 2

var (
	deactivationNow        = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	errDeletionInjected    = errors.New("injected store failure")
	allDeactivationActions = accounts.DeactivationActions{
		DeleteProfile: true, DeletePublicChannelMessages: true,
		DeletePrivateChannelMessages: true, DeleteDirectMessages: true,
	}
)

// deletionHookStore wraps a Store; inside Update transactions it counts the
// DeleteMessages calls and lets a test act after each one (cancel a context,
// fail) and make DeactivateSubscriptions fail. Used by one goroutine at a time.
type deletionHookStore struct {
	chatcore.Store
	deletes  int // DeleteMessages calls so far
	maxBatch int // the largest batch DeleteMessages returned
	// filters are the filters of the DeleteMessages calls so far.
	filters []chatcore.MessageFilter
	// afterDelete, when set, runs after the n-th (from 1) DeleteMessages call
	// has deleted its batch; an error it returns becomes the call's error.
	afterDelete func(n int) error
	failSubs    bool // DeactivateSubscriptions fails
}

// wrap makes s wrap base, for chattest.Wrap.
func (s *deletionHookStore) wrap(base chatcore.Store) chatcore.Store { s.Store = base; return s }

func (s *deletionHookStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(deletionHookTx{tx, s}) })
}

type deletionHookTx struct {
	chatcore.Tx
	s *deletionHookStore
}

func (t deletionHookTx) DeleteMessages(ctx context.Context, f chatcore.MessageFilter, limit int) ([]chatcore.DeletedMessage, error) {
	deleted, err := t.Tx.DeleteMessages(ctx, f, limit)
	if err != nil {
		return nil, err
	}
	t.s.deletes++
	t.s.maxBatch = max(t.s.maxBatch, len(deleted))
	t.s.filters = append(t.s.filters, f)
	if t.s.afterDelete != nil {
		if err := t.s.afterDelete(t.s.deletes); err != nil {
			return nil, err
		}
	}
	return deleted, nil
}

func (t deletionHookTx) DeactivateSubscriptions(ctx context.Context, user chatcore.UserID) error {
	if t.s.failSubs {
		return errDeletionInjected
	}
	return t.Tx.DeactivateSubscriptions(ctx, user)
}

// deactivationOrg is the organisation of the deactivation tests: one realm
// with an owner, an administrator, the member to deactivate with their bot, a
// friend, a public and a private channel, and messages of every kind.
type deactivationOrg struct {
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

// newDeactivation builds a World with open at deactivationNow, deleting in
// batches of deletionBatch, whose Service sees the store through a
// deletionHookStore, and stores deactivationOrg in it.
func newDeactivation(tb testing.TB, open chattest.Open) (*chattest.World, *deactivationOrg, *deletionHookStore) {
	tb.Helper()
	hooks := &deletionHookStore{}
	w := open(tb, chattest.At(deactivationNow), chattest.Wrap(hooks.wrap),
		chattest.With(chatcore.WithTopicDeletion(deletionBatch, time.Hour)))
	org := &deactivationOrg{}
	ctx := context.Background()
	err := w.Base.Update(ctx, func(tx chatcore.Tx) error {
		realm := &chatcore.Realm{StringID: "atomic", Name: "Atomic", DateCreated: deactivationNow}
		if err := tx.CreateRealm(ctx, realm); err != nil {
			return err
		}
		org.realm = realm.ID
		user := func(name string, role chatcore.Role, owner chatcore.UserID) (chatcore.UserID, error) {
			u := &chatcore.User{
				RealmID: realm.ID, Email: name + "@atomic.test", FullName: name, Role: role,
				IsActive: true, AvatarSource: "G", DateJoined: deactivationNow,
				APIKeyHash: chatcore.HashAPIKey(name), Settings: chatcore.DefaultSettings(),
			}
			if owner != 0 {
				u.IsBot, u.BotType, u.BotOwnerID = true, chatcore.BotTypeGeneric, owner
			}
			err := tx.CreateUser(ctx, u)
			return u.ID, err
		}
		var err error
		if org.owner, err = user("owner", chatcore.RoleOwner, 0); err != nil {
			return err
		}
		if org.admin, err = user("admin", chatcore.RoleAdministrator, 0); err != nil {
			return err
		}
		if org.member, err = user("member", chatcore.RoleMember, 0); err != nil {
			return err
		}
		if org.friend, err = user("friend", chatcore.RoleMember, 0); err != nil {
			return err
		}
		if org.bot, err = user("member-bot", chatcore.RoleMember, org.member); err != nil {
			return err
		}
		org.general = &chatcore.Stream{RealmID: realm.ID, Name: "general", HistoryPublicToSubscribers: true, DateCreated: deactivationNow}
		org.secret = &chatcore.Stream{RealmID: realm.ID, Name: "secret", InviteOnly: true, HistoryPublicToSubscribers: true, DateCreated: deactivationNow}
		for _, st := range []*chatcore.Stream{org.general, org.secret} {
			if err := tx.CreateStream(ctx, st); err != nil {
				return err
			}
		}
		for _, sub := range []struct {
			st *chatcore.Stream
			u  chatcore.UserID
		}{
			{org.general, org.owner}, {org.general, org.admin}, {org.general, org.member}, {org.general, org.friend}, {org.general, org.bot},
			{org.secret, org.owner}, {org.secret, org.member}, {org.secret, org.bot},
		} {
			if err := tx.PutSubscription(ctx, chatcore.Subscription{StreamID: sub.st.ID, UserID: sub.u, Active: true}); err != nil {
				return err
			}
		}
		dm, err := tx.DirectRecipient(ctx, realm.ID, []chatcore.UserID{org.member, org.friend})
		if err != nil {
			return err
		}
		post := func(sender chatcore.UserID, st *chatcore.Stream, topic string) error {
			m := &chatcore.Message{RealmID: realm.ID, SenderID: sender, Content: "hi", RenderedContent: "<p>hi</p>",
				Client: "test", SentAt: deactivationNow}
			if st != nil {
				m.Type, m.RecipientID, m.StreamID, m.Topic = chatcore.MessageTypeStream, st.RecipientID, st.ID, topic
			} else {
				m.Type, m.RecipientID, m.DirectMembers = chatcore.MessageTypePrivate, dm, []chatcore.UserID{org.member, org.friend}
			}
			if err := tx.CreateMessage(ctx, m); err != nil {
				return err
			}
			if sender == org.member || sender == org.bot {
				org.doomed = append(org.doomed, m.ID)
			} else {
				org.kept = append(org.kept, m.ID)
				if st == org.general && org.firstKept == 0 {
					org.firstKept = m.ID
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
			if err := post(org.member, org.general, []string{"Plans", "lunch", "Straße"}[i%3]); err != nil {
				return err
			}
			if i%3 == 1 {
				if err := post(org.friend, org.general, "lunch"); err != nil {
					return err
				}
			}
			if i%4 == 0 {
				if err := post(org.member, nil, ""); err != nil {
					return err
				}
			}
			if i%3 == 2 {
				if err := post(org.bot, org.general, "bot"); err != nil {
					return err
				}
			}
		}
		for _, sender := range []chatcore.UserID{org.member, org.owner, org.member, org.friend} {
			if err := post(sender, org.secret, "hush"); err != nil {
				return err
			}
		}
		if err := post(org.friend, nil, ""); err != nil {
			return err
		}
		return tx.CreateEmailChange(ctx, &chatcore.EmailChange{Key: "pending", UserID: org.member, RealmID: realm.ID,
			OldEmail: "member@atomic.test", NewEmail: "member2@atomic.test", CreatedAt: deactivationNow})
	})
	if err != nil {
		tb.Fatalf("setting up: %v", err)
	}
	slices.Sort(org.doomed)
	return w, org, hooks
}

// deactivationState is everything a deactivation could change.
type deactivationState struct {
	Messages    []chatcore.MessageID
	Users       []chatcore.User
	Subs        []chatcore.Subscription
	FirstIDs    []chatcore.MessageID // of general and secret
	EmailChange bool
}

// storeState reads the deactivationState of w's store.
func storeState(tb testing.TB, w *chattest.World, org *deactivationOrg) deactivationState {
	tb.Helper()
	ctx := context.Background()
	var s deactivationState
	err := w.Base.View(ctx, func(tx chatcore.Tx) error {
		ms, err := tx.Messages(ctx, chatcore.MessageQuery{RealmID: org.realm})
		if err != nil {
			return err
		}
		for _, m := range ms {
			s.Messages = append(s.Messages, m.ID)
		}
		if s.Users, err = tx.Users(ctx, chatcore.UserFilter{RealmID: org.realm}); err != nil {
			return err
		}
		for _, st := range []*chatcore.Stream{org.general, org.secret} {
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

// deactivateMember deactivates the member with every action and a comment.
func deactivateMember(ctx context.Context, w *chattest.World, org *deactivationOrg, actor chatcore.UserID) error {
	return accounts.DeactivateUser(ctx, w.Svc, actor, org.member, accounts.DeactivateUserRequest{
		Actions: new(allDeactivationActions), DeactivationNotificationComment: new("bye"),
	})
}

func TestDeactivateUserAtomicCancelMidDeletion(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		w, org, hooks := newDeactivation(t, open)
		is := is.New(t)
		before := storeState(t, w, org)
		is.True(len(org.doomed) > 3*deletionBatch) // enough messages for several batches
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		hooks.afterDelete = func(n int) error {
			if n == 2 {
				cancel() // the client goes away after the second batch
			}
			return nil
		}
		err := deactivateMember(ctx, w, org, org.owner)
		is.True(errors.Is(err, context.Canceled))                 // the cancellation comes back
		is.Equal(hooks.deletes, 2)                                // no batch runs after the cancellation
		is.Equal(storeState(t, w, org).Messages, before.Messages) // every message is still there
		is.Equal(storeState(t, w, org), before)                   // every message, user, subscription and e-mail change is untouched
		is.Equal(len(w.Events.All()), 0)                          // no event was published
		is.Equal(len(w.Mail.All()), 0)                            // no mail was sent

		hooks.afterDelete = nil
		is.NoErr(deactivateMember(t.Context(), w, org, org.owner)) // a repeated call completes
		is.Equal(storeState(t, w, org).Messages, org.kept)         // and deletes every selected message
		is.True(len(w.Events.OfType("delete_message")) > 0)        // with its events
		is.Equal(len(w.Mail.All()), 1)                             // and one notice
	})
}

func TestDeactivateUserAtomicStoreFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(s *deletionHookStore)
	}{
		{"mid-deletion", func(s *deletionHookStore) {
			s.afterDelete = func(n int) error {
				if n == 3 {
					return errDeletionInjected // after the third batch was deleted in the transaction
				}
				return nil
			}
		}},
		{"after every deletion", func(s *deletionHookStore) { s.failSubs = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
				w, org, hooks := newDeactivation(t, open)
				is := is.New(t)
				before := storeState(t, w, org)
				tc.fail(hooks)
				err := deactivateMember(t.Context(), w, org, org.owner)
				is.True(errors.Is(err, errDeletionInjected))              // the store failure comes back
				is.True(hooks.deletes >= 3)                               // batches were deleted before the failure
				is.Equal(storeState(t, w, org).Messages, before.Messages) // every message is still there
				is.Equal(storeState(t, w, org), before)                   // and rolled back with everything else
				is.Equal(len(w.Events.All()), 0)                          // no event was published
				is.Equal(len(w.Mail.All()), 0)                            // no mail was sent
			})
		})
	}
}

func TestDeactivateUserAtomicRefusalDeletesNothing(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		w, org, hooks := newDeactivation(t, open)
		is := is.New(t)
		before := storeState(t, w, org)
		err := accounts.DeactivateUser(t.Context(), w.Svc, org.friend, org.member, accounts.DeactivateUserRequest{Actions: new(allDeactivationActions)})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Insufficient permission")
		err = accounts.DeactivateUser(t.Context(), w.Svc, org.admin, org.owner, accounts.DeactivateUserRequest{Actions: new(allDeactivationActions)})
		chattest.WantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization owner")
		is.Equal(hooks.deletes, 0)              // a refused request deletes nothing
		is.Equal(storeState(t, w, org), before) // and changes nothing
		is.Equal(len(w.Events.All()), 0)        // no event

		// Another administrator deactivated the member first: the request with
		// deletions is refused, and the member's messages stay.
		is.NoErr(accounts.DeactivateUser(t.Context(), w.Svc, org.admin, org.member, accounts.DeactivateUserRequest{})) // plain deactivation
		w.Events.Reset()
		err = deactivateMember(t.Context(), w, org, org.owner)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "User is deactivated")
		is.Equal(hooks.deletes, 0)                                // still nothing deleted
		is.Equal(storeState(t, w, org).Messages, before.Messages) // every message is still there
		is.Equal(len(w.Events.All()), 0)                          // no event
	})
}

func TestDeactivateUserAtomicBatches(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		w, org, hooks := newDeactivation(t, open)
		is := is.New(t)
		publications := 0
		w.Events.OnPublish = func([]chatcore.Event) {
			publications++
			st := storeState(t, w, org)
			is.Equal(st.Messages, org.kept) // events go out after the deletions committed
			for _, u := range st.Users {
				if u.ID == org.member || u.ID == org.bot {
					is.True(!u.IsActive) // and after the deactivation committed with them
				}
			}
		}
		is.NoErr(deactivateMember(t.Context(), w, org, org.owner)) // allowed

		is.Equal(publications, 1)                                                   // one commit, one publication
		is.True(hooks.deletes >= (len(org.doomed)+deletionBatch-1)/deletionBatch+1) // one call per batch (and one per sender that finds nothing more)
		is.Equal(hooks.maxBatch, deletionBatch)                                     // never more than one batch at a time
		for i, f := range hooks.filters[1:] {
			if prev := hooks.filters[i]; f.SenderID == prev.SenderID && f.Kinds == prev.Kinds {
				is.True(f.BeforeID != 0 && (prev.BeforeID == 0 || f.BeforeID < prev.BeforeID)) // a sender's next batch starts below the previous one
			}
		}

		st := storeState(t, w, org)
		is.Equal(st.Messages, org.kept)         // exactly the member's and the bot's messages are gone
		is.Equal(st.FirstIDs[0], org.firstKept) // general's first_message_id moved to its oldest kept message
		is.True(!st.EmailChange)                // the pending e-mail change is gone
		for _, u := range st.Users {
			if u.ID == org.member || u.ID == org.bot {
				is.Equal(u.FullName, "Deleted user") // delete_profile applied
			}
		}

		events := w.Events.All()
		var deleted []chatcore.MessageID
		lastDeletion, firstDeactivation := -1, len(events)
		for i, ev := range events {
			switch ev.Data["type"] {
			case "delete_message":
				ids := ev.Data["message_ids"].([]chatcore.MessageID)
				is.True(len(ids) <= deletionBatch)              // one event covers at most one batch
				is.True(slices.Contains(ev.UserIDs, org.owner)) // the acting owner hears of it
				deleted = append(deleted, ids...)
				lastDeletion = i
			case "realm_user":
				firstDeactivation = min(firstDeactivation, i)
			}
		}
		is.True(lastDeletion < firstDeactivation) // deletion events come before the profile and deactivation events
		slices.Sort(deleted)
		is.Equal(deleted, org.doomed) // every deleted message is announced exactly once
		moved := map[any][]any{}      // stream id: the first_message_id values announced
		for _, ev := range w.Events.OfType("stream", "property", "first_message_id") {
			moved[ev.Data["stream_id"]] = append(moved[ev.Data["stream_id"]], ev.Data["value"])
		}
		is.Equal(moved[org.general.ID], []any{org.firstKept}) // general's first_message_id moved once, to its oldest kept message
		is.Equal(len(moved[org.secret.ID]), 1)                // secret's (also the member's message) moved once too

		secret := map[chatcore.UserID]bool{}
		for _, ev := range w.Events.OfType("delete_message", "message_type", "stream") {
			if ev.Data["stream_id"] == any(org.secret.ID) {
				for _, u := range ev.UserIDs {
					secret[u] = true
				}
			}
		}
		is.Equal(slices.Sorted(maps.Keys(secret)), []chatcore.UserID{org.owner, org.member, org.bot}) // private deletions go to the channel's subscribers (still active then) and the actor
		is.Equal(len(w.Mail.All()), 1)                                                                // one notice
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
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, _ := newVerona(t, open)
		ctx := context.Background()
		plans := w.Send(t, org.Ham, org.General, "Straße Plans", "hello")
		lunch := w.Send(t, org.Ham, org.General, "LUNCH", "hello")
		w.Send(t, org.Ophelia, org.General, "LUNCH", "hello") // another sender's message stays
		w.Events.Reset()
		err := accounts.DeactivateUser(ctx, w.Svc, org.Owner.ID, org.Ham.ID, accounts.DeactivateUserRequest{
			Actions: &accounts.DeactivationActions{DeletePublicChannelMessages: true},
		})
		is.NoErr(err) // deactivation with message deletion succeeds
		got := deletedTopics(w.Events.Take("delete_message"))
		is.Equal(got, map[string][]chatcore.MessageID{
			"straße plans": {plans}, // lower-cased as stored, not the folded "strasse plans"
			"lunch":        {lunch},
		}) // one event per topic, named as Zulip names it
	})
}
