// Package storetest is the conformance suite for [store.Store]
// implementations. Every store in this module runs it, and embedders can run it
// against their own:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
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

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// test is one leaf of the suite; it receives a fresh, empty store.
type test struct {
	name string
	fn   func(t *testing.T, st store.Store)
}

// Run runs the conformance suite. newStore must return a fresh, empty store
// each time it is called and arrange its cleanup with t.Cleanup; it is called
// once per leaf test, and the leaves run in parallel.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"Realms", realmTests},
		{"Users", userTests},
		{"Settings", settingsTests},
		{"Groups", groupTests},
		{"GroupAdmin", groupAdminTests},
		{"Streams", streamTests},
		{"Messages", messageTests},
		{"BulkMessages", bulkTests},
		{"MessageEdits", messageEditTests},
		{"Flags", flagTests},
		{"Received", receivedTests},
		{"Search", searchTests},
		{"Reactions", reactionTests},
		{"Presence", presenceTests},
		{"Scheduled", scheduledTests},
		{"Linkifiers", linkifierTests},
		{"Drafts", draftTests},
		{"DraftEdits", draftEditTests},
		{"Submessages", submessageTests},
		{"ReadReceipts", readReceiptTests},
		{"EmailChanges", emailChangeTests},
		{"Invites", inviteTests},
		{"Tx", txTests},
		{"IDsNeverReused", idTests},
		{"Events", eventTests},
		{"EventOrder", eventConcurrencyTests},
		{"EventQueueCount", eventQueueCountTests},
		{"Prefetch", prefetchTests},
		{"Webhooks", webhookTests},
		{"Personal", personalTests},
		{"Attachments", attachmentTests},
		{"RealmEmoji", realmEmojiTests},
		{"Conversations", conversationTests},
		{"LoginKeys", loginKeyTests},
		{"ServerSecrets", serverSecretTests},
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

// RunSearch runs the suite's search cases alone (a part of Run), for a
// store whose index has several states worth running them in; newStore
// is as for Run.
func RunSearch(t *testing.T, newStore func(t *testing.T) store.Store) {
	for _, tc := range searchTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// epoch is a whole-second UTC time the suite builds its timestamps from.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// update runs fn in a transaction that must commit.
func update(tb testing.TB, st store.Store, fn func(ctx context.Context, tx store.Tx)) {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	ctx := context.Background()
	is.NoErr(st.Update(ctx, func(tx store.Tx) error { fn(ctx, tx); return nil })) // setup transaction commits
}

// view runs fn in a read-only transaction that must succeed.
func view(tb testing.TB, st store.Store, fn func(ctx context.Context, tx store.Tx)) {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	ctx := context.Background()
	is.NoErr(st.View(ctx, func(tx store.Tx) error { fn(ctx, tx); return nil })) // read transaction succeeds
}

// newRealm creates a realm with the string id and returns its id.
func newRealm(tb testing.TB, st store.Store, stringID string) store.RealmID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	r := &store.Realm{StringID: stringID, Name: stringID + " org", DateCreated: epoch}
	update(tb, st, func(ctx context.Context, tx store.Tx) {
		is.NoErr(tx.CreateRealm(ctx, r)) // realm created
	})
	return r.ID
}

// human returns an active member with default settings; the e-mail is also
// its API key hash, so it is unique wherever the e-mail is.
func human(realm store.RealmID, email string) *store.User {
	return &store.User{
		RealmID: realm, Email: email, FullName: "User " + email, Role: store.RoleMember,
		IsActive: true, APIKeyHash: keyHash(email), AvatarSource: "G",
		DateJoined: epoch, Settings: store.DefaultSettings(),
	}
}

// bot returns an active generic bot owned by owner.
func bot(realm store.RealmID, email string, owner store.UserID) *store.User {
	u := human(realm, email)
	u.IsBot, u.BotType, u.BotOwnerID = true, store.BotTypeGeneric, owner
	return u
}

// newUsers creates the users in one transaction and returns their ids.
func newUsers(tb testing.TB, st store.Store, users ...*store.User) []store.UserID {
	tb.Helper()
	return createAll(tb, st, store.Tx.CreateUser, func(u *store.User) store.UserID { return u.ID }, users)
}

// createAll creates the items with create in one transaction and returns
// their ids as the store assigned them.
func createAll[T any, ID any](tb testing.TB, st store.Store, create func(store.Tx, context.Context, T) error, id func(T) ID, items []T) []ID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	ids := make([]ID, len(items))
	update(tb, st, func(ctx context.Context, tx store.Tx) {
		for i, it := range items {
			is.NoErr(create(tx, ctx, it)) // created
			ids[i] = id(it)
		}
	})
	return ids
}

// newStream creates a channel and returns it as stored.
func newStream(tb testing.TB, st store.Store, realm store.RealmID, name string, inviteOnly bool) *store.Stream {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	s := &store.Stream{
		RealmID: realm, Name: name, Description: "about " + name, InviteOnly: inviteOnly,
		HistoryPublicToSubscribers: true, DateCreated: epoch,
	}
	update(tb, st, func(ctx context.Context, tx store.Tx) {
		is.NoErr(tx.CreateStream(ctx, s)) // channel created
	})
	return s
}

// channelMessage returns an unsaved message to the channel.
func channelMessage(s *store.Stream, sender store.UserID, topic string) *store.Message {
	return &store.Message{
		RealmID: s.RealmID, SenderID: sender, Type: store.MessageTypeStream,
		RecipientID: s.RecipientID, StreamID: s.ID, Topic: topic,
		Content: "hello", RenderedContent: "<p>hello</p>", Client: "test", SentAt: epoch,
	}
}

// directMessage returns an unsaved direct message among the members.
func directMessage(realm store.RealmID, rcpt store.RecipientID, sender store.UserID, members ...store.UserID) *store.Message {
	return &store.Message{
		RealmID: realm, SenderID: sender, Type: store.MessageTypePrivate, RecipientID: rcpt,
		DirectMembers: slices.Sorted(slices.Values(members)),
		Content:       "psst", RenderedContent: "<p>psst</p>", Client: "test", SentAt: epoch,
	}
}

// send stores the messages in one transaction and returns their ids.
func send(tb testing.TB, st store.Store, msgs ...*store.Message) []store.MessageID {
	tb.Helper()
	return createAll(tb, st, store.Tx.CreateMessage, func(m *store.Message) store.MessageID { return m.ID }, msgs)
}

// directRecipient returns the recipient of the direct conversation among the members.
func directRecipient(tb testing.TB, st store.Store, realm store.RealmID, members ...store.UserID) store.RecipientID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var id store.RecipientID
	update(tb, st, func(ctx context.Context, tx store.Tx) {
		var err error
		id, err = tx.DirectRecipient(ctx, realm, members)
		is.NoErr(err) // direct recipient created
	})
	return id
}

// messageIDs returns the ids of msgs in order, nil when there are none.
func messageIDs(msgs []store.Message) []store.MessageID {
	var ids []store.MessageID
	for _, m := range msgs {
		ids = append(ids, m.ID)
	}
	return ids
}

// deletedIDs returns the ids of deleted messages in order, nil when there are none.
func deletedIDs(del []store.DeletedMessage) []store.MessageID {
	var ids []store.MessageID
	for _, d := range del {
		ids = append(ids, d.ID)
	}
	return ids
}

// userIDs returns the ids of users in order, nil when there are none.
func userIDs(users []store.User) []store.UserID {
	var ids []store.UserID
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

func normRealm(r store.Realm) store.Realm {
	r.DateCreated = r.DateCreated.UTC()
	return r
}

func normUser(u store.User) store.User {
	u.DateJoined = u.DateJoined.UTC()
	return u
}

func normGroup(g store.Group) store.Group {
	g.Members, g.Subgroups = list(g.Members...), list(g.Subgroups...)
	g.DateCreated = g.DateCreated.UTC()
	return g
}

func normStream(s store.Stream) store.Stream {
	s.DateCreated = s.DateCreated.UTC()
	return s
}

func normMessage(m store.Message) store.Message {
	m.SentAt, m.LastEditedAt, m.LastMovedAt = m.SentAt.UTC(), m.LastEditedAt.UTC(), m.LastMovedAt.UTC()
	m.DirectMembers = list(m.DirectMembers...)
	m.Reactions = list(m.Reactions...)
	m.Submessages = list(m.Submessages...)
	var h []store.EditHistoryEntry
	for _, e := range m.EditHistory {
		e.Timestamp = e.Timestamp.UTC()
		h = append(h, e)
	}
	m.EditHistory = h
	return m
}

func normScheduled(m store.ScheduledMessage) store.ScheduledMessage {
	m.DeliverAt = m.DeliverAt.UTC()
	m.DirectMembers = list(m.DirectMembers...)
	return m
}

func normDraft(d store.Draft) store.Draft {
	d.LastEdit = d.LastEdit.UTC()
	d.To = list(d.To...)
	return d
}

func normEmailChange(c store.EmailChange) store.EmailChange {
	c.CreatedAt = c.CreatedAt.UTC()
	return c
}

// keyHash stands for the hash of an API key the Service stores: stores
// compare APIKeyHash as opaque text, so any function of the key will do.
func keyHash(key string) string { return "hash:" + key }
