package chatcore_test

// Shared fixtures of the topic-deletion, scheduled-message, reminder and
// delivery tests. Names carry an "ops" prefix so they cannot clash with other
// test files of the package.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
)

// opsLog records, in order, what the store wrapper and the event sink saw, so
// tests can check that events follow the commit they describe.
type opsLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *opsLog) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, e)
}

func (l *opsLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}

// errOpsInjected is the failure opsStore injects.
var errOpsInjected = errors.New("injected store failure")

// opsStore wraps the memory store: it logs each Update's outcome and, when
// failOn is n > 0, makes the n-th Update fail after fn ran (so fn's writes
// are rolled back).
type opsStore struct {
	chatcore.Store
	log    *opsLog
	calls  atomic.Int32
	failOn atomic.Int32
}

func (s *opsStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	n := s.calls.Add(1)
	err := s.Store.Update(ctx, func(tx chatcore.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if n == s.failOn.Load() {
			return errOpsInjected
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

// opsEnv is a realm with users of every role, a second realm, and a Service
// over the memory store with a fake clock and a recording event sink.
type opsEnv struct {
	base   chatcore.Store // the store under test, unwrapped
	store  *opsStore
	svc    *chatcore.Service
	clock  *fakeClock
	events *recordingSink
	log    *opsLog

	realm                                 *chatcore.Realm
	owner, admin, mod, member, guest, bot *chatcore.User
	otherRealm                            *chatcore.Realm
	stranger                              *chatcore.User // a member of otherRealm
}

func newOpsEnv(tb testing.TB, opts ...chatcore.Option) *opsEnv {
	tb.Helper()
	return newOpsEnvOn(tb, memory.New(), opts...)
}

// opsEnvMaker builds an opsEnv over one kind of store.
type opsEnvMaker = func(tb testing.TB, opts ...chatcore.Option) *opsEnv

// opsEachStore runs body once over the memory store and once over a SQLite
// store in a temporary directory, so the Service's behaviour is checked on
// both implementations.
func opsEachStore(t *testing.T, body func(t *testing.T, newOpsEnv opsEnvMaker)) {
	eachStore(t, newOpsEnvOn, body)
}

// newOpsEnvOn builds the fixture over base.
func newOpsEnvOn(tb testing.TB, base chatcore.Store, opts ...chatcore.Option) *opsEnv {
	tb.Helper()
	log := &opsLog{}
	e := &opsEnv{
		base:  base,
		clock: &fakeClock{now: seedTime},
		events: &recordingSink{onPublish: func(events []chatcore.Event) {
			for _, e := range events {
				log.add(fmt.Sprintf("event %v", e.Data["type"]))
			}
		}},
		log: log,
	}
	e.store = &opsStore{Store: e.base, log: log}
	all := append([]chatcore.Option{chatcore.WithClock(e.clock), chatcore.WithEventSink(e.events)}, opts...)
	e.svc = chatcore.New(e.store, all...)
	e.realm = e.createRealm(tb, "zulip", "")
	e.owner = e.createUser(tb, e.realm, "Desdemona", chatcore.RoleOwner)
	e.admin = e.createUser(tb, e.realm, "Iago", chatcore.RoleAdministrator)
	e.mod = e.createUser(tb, e.realm, "Shiva", chatcore.RoleModerator)
	e.member = e.createUser(tb, e.realm, "Hamlet", chatcore.RoleMember)
	e.guest = e.createUser(tb, e.realm, "Polonius", chatcore.RoleGuest)
	e.bot = e.createBot(tb, e.realm, "Helper Bot", e.member)
	e.otherRealm = e.createRealm(tb, "lear", "")
	e.stranger = e.createUser(tb, e.otherRealm, "King Lear", chatcore.RoleAdministrator)
	return e
}

// write runs fn in a store transaction that bypasses the wrapper (so it is
// neither counted nor logged).
func (e *opsEnv) write(tb testing.TB, fn func(tx chatcore.Tx) error) {
	tb.Helper()
	writeStore(tb, e.base, fn)
}

func (e *opsEnv) createRealm(tb testing.TB, stringID, emptyTopicName string) *chatcore.Realm {
	tb.Helper()
	return seedRealm(tb, e.base, stringID, emptyTopicName)
}

func (e *opsEnv) createUser(tb testing.TB, realm *chatcore.Realm, name string, role chatcore.Role) *chatcore.User {
	tb.Helper()
	return seedUser(tb, e.base, realm, name, role)
}

func (e *opsEnv) createBot(tb testing.TB, realm *chatcore.Realm, name string, owner *chatcore.User) *chatcore.User {
	tb.Helper()
	u := &chatcore.User{
		RealmID: realm.ID, Email: seedSlug(name) + "-bot@" + realm.StringID + ".example.com",
		FullName: name, Role: chatcore.RoleMember, IsActive: true, IsBot: true,
		BotType: chatcore.BotTypeGeneric, BotOwnerID: owner.ID, AvatarSource: "G", DateJoined: seedTime,
		APIKeyHash: chatcore.HashAPIKey(realm.StringID + name), Settings: chatcore.DefaultSettings(),
	}
	e.write(tb, func(tx chatcore.Tx) error { return tx.CreateUser(context.Background(), u) })
	return u
}

// opsChannel describes a channel to create.
type opsChannel struct {
	name        string
	inviteOnly  bool
	protected   bool // history not public to subscribers
	archived    bool
	realm       *chatcore.Realm
	subscribers []*chatcore.User
}

func (e *opsEnv) createChannel(tb testing.TB, c opsChannel) *chatcore.Stream {
	tb.Helper()
	realm := c.realm
	if realm == nil {
		realm = e.realm
	}
	st := &chatcore.Stream{
		RealmID: realm.ID, Name: c.name, InviteOnly: c.inviteOnly,
		HistoryPublicToSubscribers: !c.protected, IsArchived: c.archived, DateCreated: seedTime,
	}
	e.write(tb, func(tx chatcore.Tx) error {
		if err := tx.CreateStream(context.Background(), st); err != nil {
			return err
		}
		for _, u := range c.subscribers {
			if err := tx.PutSubscription(context.Background(), chatcore.Subscription{StreamID: st.ID, UserID: u.ID, Active: true}); err != nil {
				return err
			}
		}
		return nil
	})
	return st
}

// subscribe (re)subscribes u to st, seeing messages from firstVisible on.
func (e *opsEnv) subscribe(tb testing.TB, st *chatcore.Stream, u *chatcore.User, firstVisible chatcore.MessageID) {
	tb.Helper()
	seedSubscription(tb, e.base, st, u, firstVisible)
}

// post stores a channel message directly (keeping first_message_id up to
// date as sending does) and returns its id.
func (e *opsEnv) post(tb testing.TB, st *chatcore.Stream, topic string, sender *chatcore.User, content string) chatcore.MessageID {
	tb.Helper()
	m := &chatcore.Message{
		RealmID: st.RealmID, SenderID: sender.ID, Type: chatcore.MessageTypeStream,
		RecipientID: st.RecipientID, StreamID: st.ID, Topic: topic,
		Content: content, RenderedContent: "<p>" + content + "</p>", Client: "test", SentAt: e.clock.current(),
		Reactions: []chatcore.Reaction{{UserID: sender.ID, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}},
	}
	e.write(tb, func(tx chatcore.Tx) error {
		if err := tx.CreateMessage(context.Background(), m); err != nil {
			return err
		}
		cur, err := tx.Stream(context.Background(), st.ID)
		if err != nil {
			return err
		}
		if cur.FirstMessageID == 0 {
			cur.FirstMessageID = m.ID
			return tx.UpdateStream(context.Background(), cur)
		}
		return nil
	})
	return m.ID
}

// postN posts n messages to the topic and returns their ids, oldest first.
func (e *opsEnv) postN(tb testing.TB, st *chatcore.Stream, topic string, sender *chatcore.User, n int) []chatcore.MessageID {
	tb.Helper()
	ids := make([]chatcore.MessageID, n)
	for i := range ids {
		ids[i] = e.post(tb, st, topic, sender, fmt.Sprintf("message %d", i+1))
	}
	return ids
}

// dm stores a direct message among sender and to and returns its id.
func (e *opsEnv) dm(tb testing.TB, sender *chatcore.User, content string, to ...*chatcore.User) chatcore.MessageID {
	tb.Helper()
	members := []chatcore.UserID{sender.ID}
	for _, u := range to {
		members = append(members, u.ID)
	}
	slices.Sort(members)
	members = slices.Compact(members)
	m := &chatcore.Message{
		RealmID: sender.RealmID, SenderID: sender.ID, Type: chatcore.MessageTypePrivate,
		DirectMembers: members, Content: content, RenderedContent: "<p>" + content + "</p>",
		Client: "test", SentAt: e.clock.current(),
	}
	e.write(tb, func(tx chatcore.Tx) error {
		rid, err := tx.DirectRecipient(context.Background(), sender.RealmID, members)
		if err != nil {
			return err
		}
		m.RecipientID = rid
		return tx.CreateMessage(context.Background(), m)
	})
	return m.ID
}

// messageIDs returns the ids of the messages of a channel topic (nil topic:
// the whole channel), oldest first.
func (e *opsEnv) messageIDs(tb testing.TB, st *chatcore.Stream, topic *string) []chatcore.MessageID {
	tb.Helper()
	q := chatcore.MessageQuery{RealmID: st.RealmID, Recipients: []chatcore.RecipientID{st.RecipientID}}
	if topic != nil {
		q.TopicKey = new(chatcore.FoldKey(*topic))
	}
	return storedMessageIDs(tb, e.base, q)
}

// stream re-reads a channel.
func (e *opsEnv) stream(tb testing.TB, id chatcore.StreamID) *chatcore.Stream {
	tb.Helper()
	return readStore(tb, e.base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Stream, error) { return tx.Stream(ctx, id) })
}

// scheduledRow re-reads a scheduled message or reminder.
func (e *opsEnv) scheduledRow(tb testing.TB, id chatcore.ScheduledMessageID) *chatcore.ScheduledMessage {
	tb.Helper()
	return readStore(tb, e.base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.ScheduledMessage, error) {
		return tx.ScheduledMessage(ctx, id)
	})
}

// message re-reads a message.
func (e *opsEnv) message(tb testing.TB, id chatcore.MessageID) *chatcore.Message {
	tb.Helper()
	return readStore(tb, e.base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Message, error) { return tx.Message(ctx, id) })
}

// directMessagesTo returns the contents of the direct messages u received
// from users named sender, oldest first.
func (e *opsEnv) directMessagesTo(tb testing.TB, u *chatcore.User, sender string) []string {
	tb.Helper()
	var out []string
	err := e.base.View(context.Background(), func(tx chatcore.Tx) error {
		rids, err := tx.DirectRecipients(context.Background(), u.ID)
		if err != nil || len(rids) == 0 { // nil Recipients would mean "any"
			return err
		}
		msgs, err := tx.Messages(context.Background(), chatcore.MessageQuery{RealmID: u.RealmID, Recipients: rids})
		if err != nil {
			return err
		}
		for _, m := range msgs {
			from, err := tx.User(context.Background(), m.SenderID)
			if err != nil {
				return err
			}
			if from.FullName == sender && from.ID != u.ID {
				out = append(out, m.Content)
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("reading direct messages: %v", err)
	}
	return out
}
