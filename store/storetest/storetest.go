// Package storetest is the conformance suite for [chatcore.Store]
// implementations. Every store in this module runs it, and embedders can run it
// against their own:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) chatcore.Store {
//			s := mystore.New()
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
//
// The suite checks only what the contract in chatcore's store.go documents; it
// never depends on how a store lays out its data.
package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// test is one leaf of the suite; it receives a fresh, empty store.
type test struct {
	name string
	fn   func(t *testing.T, st chatcore.Store)
}

// Run runs the conformance suite. newStore must return a fresh, empty store
// each time it is called and arrange its cleanup with t.Cleanup; it is called
// once per leaf test, and the leaves run in parallel.
func Run(t *testing.T, newStore func(t *testing.T) chatcore.Store) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"Realms", realmTests},
		{"Users", userTests},
		{"Settings", settingsTests},
		{"Groups", groupTests},
		{"Streams", streamTests},
		{"Messages", messageTests},
		{"MessageEdits", messageEditTests},
		{"Flags", flagTests},
		{"Reactions", reactionTests},
		{"Presence", presenceTests},
		{"Scheduled", scheduledTests},
		{"Linkifiers", linkifierTests},
		{"Drafts", draftTests},
		{"EmailChanges", emailChangeTests},
		{"Tx", txTests},
		{"IDsNeverReused", idTests},
		{"Events", eventTests},
		{"Prefetch", prefetchTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.fn(t, newStore(t))
				})
			}
		})
	}
}

// epoch is a whole-second UTC time the suite builds its timestamps from.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// update runs fn in a transaction that must commit.
func update(tb testing.TB, st chatcore.Store, fn func(ctx context.Context, tx chatcore.Tx)) {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	ctx := context.Background()
	is.NoErr(st.Update(ctx, func(tx chatcore.Tx) error { fn(ctx, tx); return nil })) // setup transaction commits
}

// view runs fn in a read-only transaction that must succeed.
func view(tb testing.TB, st chatcore.Store, fn func(ctx context.Context, tx chatcore.Tx)) {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	ctx := context.Background()
	is.NoErr(st.View(ctx, func(tx chatcore.Tx) error { fn(ctx, tx); return nil })) // read transaction succeeds
}

// newRealm creates a realm with the string id and returns its id.
func newRealm(tb testing.TB, st chatcore.Store, stringID string) chatcore.RealmID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	r := &chatcore.Realm{StringID: stringID, Name: stringID + " org", DateCreated: epoch}
	update(tb, st, func(ctx context.Context, tx chatcore.Tx) {
		is.NoErr(tx.CreateRealm(ctx, r)) // realm created
	})
	return r.ID
}

// human returns an active member with default settings; the e-mail is also
// its API key hash, so it is unique wherever the e-mail is.
func human(realm chatcore.RealmID, email string) *chatcore.User {
	return &chatcore.User{
		RealmID: realm, Email: email, FullName: "User " + email, Role: chatcore.RoleMember,
		IsActive: true, APIKeyHash: chatcore.HashAPIKey(email), AvatarSource: "G",
		DateJoined: epoch, Settings: chatcore.DefaultSettings(),
	}
}

// bot returns an active generic bot owned by owner.
func bot(realm chatcore.RealmID, email string, owner chatcore.UserID) *chatcore.User {
	u := human(realm, email)
	u.IsBot, u.BotType, u.BotOwnerID = true, chatcore.BotTypeGeneric, owner
	return u
}

// newUsers creates the users in one transaction and returns their ids.
func newUsers(tb testing.TB, st chatcore.Store, users ...*chatcore.User) []chatcore.UserID {
	tb.Helper()
	return createAll(tb, st, chatcore.Tx.CreateUser, func(u *chatcore.User) chatcore.UserID { return u.ID }, users)
}

// createAll creates the items with create in one transaction and returns
// their ids as the store assigned them.
func createAll[T any, ID any](tb testing.TB, st chatcore.Store, create func(chatcore.Tx, context.Context, T) error, id func(T) ID, items []T) []ID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	ids := make([]ID, len(items))
	update(tb, st, func(ctx context.Context, tx chatcore.Tx) {
		for i, it := range items {
			is.NoErr(create(tx, ctx, it)) // created
			ids[i] = id(it)
		}
	})
	return ids
}

// newStream creates a channel and returns it as stored.
func newStream(tb testing.TB, st chatcore.Store, realm chatcore.RealmID, name string, inviteOnly bool) *chatcore.Stream {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	s := &chatcore.Stream{
		RealmID: realm, Name: name, Description: "about " + name, InviteOnly: inviteOnly,
		HistoryPublicToSubscribers: true, DateCreated: epoch,
	}
	update(tb, st, func(ctx context.Context, tx chatcore.Tx) {
		is.NoErr(tx.CreateStream(ctx, s)) // channel created
	})
	return s
}

// channelMessage returns an unsaved message to the channel.
func channelMessage(s *chatcore.Stream, sender chatcore.UserID, topic string) *chatcore.Message {
	return &chatcore.Message{
		RealmID: s.RealmID, SenderID: sender, Type: chatcore.MessageTypeStream,
		RecipientID: s.RecipientID, StreamID: s.ID, Topic: topic,
		Content: "hello", RenderedContent: "<p>hello</p>", Client: "test", SentAt: epoch,
	}
}

// directMessage returns an unsaved direct message among the members.
func directMessage(realm chatcore.RealmID, rcpt chatcore.RecipientID, sender chatcore.UserID, members ...chatcore.UserID) *chatcore.Message {
	return &chatcore.Message{
		RealmID: realm, SenderID: sender, Type: chatcore.MessageTypePrivate, RecipientID: rcpt,
		DirectMembers: slices.Sorted(slices.Values(members)),
		Content:       "psst", RenderedContent: "<p>psst</p>", Client: "test", SentAt: epoch,
	}
}

// send stores the messages in one transaction and returns their ids.
func send(tb testing.TB, st chatcore.Store, msgs ...*chatcore.Message) []chatcore.MessageID {
	tb.Helper()
	return createAll(tb, st, chatcore.Tx.CreateMessage, func(m *chatcore.Message) chatcore.MessageID { return m.ID }, msgs)
}

// directRecipient returns the recipient of the direct conversation among the members.
func directRecipient(tb testing.TB, st chatcore.Store, realm chatcore.RealmID, members ...chatcore.UserID) chatcore.RecipientID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var id chatcore.RecipientID
	update(tb, st, func(ctx context.Context, tx chatcore.Tx) {
		var err error
		id, err = tx.DirectRecipient(ctx, realm, members)
		is.NoErr(err) // direct recipient created
	})
	return id
}

// messageIDs returns the ids of msgs in order, nil when there are none.
func messageIDs(msgs []chatcore.Message) []chatcore.MessageID {
	var ids []chatcore.MessageID
	for _, m := range msgs {
		ids = append(ids, m.ID)
	}
	return ids
}

// deletedIDs returns the ids of deleted messages in order, nil when there are none.
func deletedIDs(del []chatcore.DeletedMessage) []chatcore.MessageID {
	var ids []chatcore.MessageID
	for _, d := range del {
		ids = append(ids, d.ID)
	}
	return ids
}

// userIDs returns the ids of users in order, nil when there are none.
func userIDs(users []chatcore.User) []chatcore.UserID {
	var ids []chatcore.UserID
	for _, u := range users {
		ids = append(ids, u.ID)
	}
	return ids
}

// list returns its arguments, or nil when there are none, so that empty
// results compare equal whether a store returns nil or an empty slice.
func list[T any](v ...T) []T {
	if len(v) == 0 {
		return nil
	}
	return v
}

// normAll applies norm to every element of v in place and returns v.
func normAll[T any](v []T, norm func(T) T) []T {
	for i := range v {
		v[i] = norm(v[i])
	}
	return v
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// The norm functions make values from any store comparable with is.Equal:
// times in UTC, empty slices nil.

func normRealm(r chatcore.Realm) chatcore.Realm {
	r.DateCreated = r.DateCreated.UTC()
	return r
}

func normUser(u chatcore.User) chatcore.User {
	u.DateJoined = u.DateJoined.UTC()
	return u
}

func normGroup(g chatcore.Group) chatcore.Group {
	g.Members, g.Subgroups = list(g.Members...), list(g.Subgroups...)
	return g
}

func normStream(s chatcore.Stream) chatcore.Stream {
	s.DateCreated = s.DateCreated.UTC()
	return s
}

func normMessage(m chatcore.Message) chatcore.Message {
	m.SentAt, m.LastEditedAt, m.LastMovedAt = m.SentAt.UTC(), m.LastEditedAt.UTC(), m.LastMovedAt.UTC()
	m.DirectMembers = list(m.DirectMembers...)
	m.Reactions = list(m.Reactions...)
	m.Submessages = list(m.Submessages...)
	var h []chatcore.EditHistoryEntry
	for _, e := range m.EditHistory {
		e.Timestamp = e.Timestamp.UTC()
		h = append(h, e)
	}
	m.EditHistory = h
	return m
}

func normScheduled(m chatcore.ScheduledMessage) chatcore.ScheduledMessage {
	m.DeliverAt = m.DeliverAt.UTC()
	m.DirectMembers = list(m.DirectMembers...)
	return m
}

func normDraft(d chatcore.Draft) chatcore.Draft {
	d.LastEdit = d.LastEdit.UTC()
	d.To = list(d.To...)
	return d
}

func normEmailChange(c chatcore.EmailChange) chatcore.EmailChange {
	c.CreatedAt = c.CreatedAt.UTC()
	return c
}
