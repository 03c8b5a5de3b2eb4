package chattest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
)

// Write runs fn in an Update transaction of the base store (bypassing any
// wrapper); an error fails the test.
func (w *World) Write(tb testing.TB, fn func(ctx context.Context, tx chatcore.Tx) error) {
	tb.Helper()
	Write(tb, w.Base, fn)
}

// AddRealm stores a realm named stringID, created at [Epoch], after applying
// mods to it.
func (w *World) AddRealm(tb testing.TB, stringID string, mods ...func(*chatcore.Realm)) *chatcore.Realm {
	tb.Helper()
	r := &chatcore.Realm{StringID: stringID, Name: stringID, DateCreated: Epoch}
	for _, m := range mods {
		m(r)
	}
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error { return tx.CreateRealm(ctx, r) })
	return r
}

// EmptyTopicName sets the realm's display name of the empty topic.
func EmptyTopicName(name string) func(*chatcore.Realm) {
	return func(r *chatcore.Realm) { r.EmptyTopicDisplayName = name }
}

// Slug lower-cases a name and turns its spaces into dots ("King Hamlet":
// "king.hamlet").
func Slug(name string) string { return strings.ToLower(strings.ReplaceAll(name, " ", ".")) }

// APIKey is the API key [World.AddUser] and [World.AddBot] give the user
// named name in realm.
func APIKey(realm *chatcore.Realm, name string) string { return realm.StringID + name }

// AddUser stores an active user of realm with the role, after applying mods
// to it: the e-mail is name's [Slug] at <realm>.example.com, the API key
// [APIKey], no password, joined at [Epoch], default settings.
func (w *World) AddUser(tb testing.TB, realm *chatcore.Realm, name string, role chatcore.Role, mods ...func(*chatcore.User)) *chatcore.User {
	tb.Helper()
	u := &chatcore.User{
		RealmID: realm.ID, Email: Slug(name) + "@" + realm.StringID + ".example.com",
		FullName: name, Role: role, IsActive: true, AvatarSource: "G", DateJoined: Epoch,
		APIKeyHash: chatcore.HashAPIKey(APIKey(realm, name)), Settings: chatcore.DefaultSettings(),
	}
	for _, m := range mods {
		m(u)
	}
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error { return tx.CreateUser(ctx, u) })
	return u
}

// AddBot stores an active generic bot of realm owned by owner, after applying
// mods to it: the e-mail is name's [Slug] with "-bot" at
// <realm>.example.com; otherwise as [World.AddUser] (member role).
func (w *World) AddBot(tb testing.TB, realm *chatcore.Realm, name string, owner *chatcore.User, mods ...func(*chatcore.User)) *chatcore.User {
	tb.Helper()
	return w.AddUser(tb, realm, name, chatcore.RoleMember, append([]func(*chatcore.User){func(u *chatcore.User) {
		u.Email = Slug(name) + "-bot@" + realm.StringID + ".example.com"
		u.IsBot, u.BotType, u.BotOwnerID = true, chatcore.BotTypeGeneric, owner.ID
	}}, mods...)...)
}

// Email sets a user's e-mail address.
func Email(email string) func(*chatcore.User) { return func(u *chatcore.User) { u.Email = email } }

// Password gives a user the password p (as [PlainHasher] stores it).
func Password(p string) func(*chatcore.User) {
	return func(u *chatcore.User) { u.PasswordHash = PasswordHash(p) }
}

// Deactivated makes a user inactive.
func Deactivated(u *chatcore.User) { u.IsActive = false }

// Channel describes a channel for [World.AddChannel].
type Channel struct {
	Name        string
	InviteOnly  bool
	Protected   bool // history not public to subscribers
	Archived    bool
	Realm       *chatcore.Realm // nil: the realm of the first subscriber
	Subscribers []*chatcore.User
}

// AddChannel stores the channel c, created at [Epoch], with its subscribers
// (who see its whole history). A channel needs a Realm or a subscriber.
func (w *World) AddChannel(tb testing.TB, c Channel) *chatcore.Stream {
	tb.Helper()
	var realm chatcore.RealmID
	switch {
	case c.Realm != nil:
		realm = c.Realm.ID
	case len(c.Subscribers) > 0:
		realm = c.Subscribers[0].RealmID
	default:
		tb.Fatalf("chattest: channel %q needs a Realm or a subscriber", c.Name)
	}
	st := &chatcore.Stream{
		RealmID: realm, Name: c.Name, InviteOnly: c.InviteOnly,
		HistoryPublicToSubscribers: !c.Protected, IsArchived: c.Archived, DateCreated: Epoch,
	}
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		if err := tx.CreateStream(ctx, st); err != nil {
			return err
		}
		for _, u := range c.Subscribers {
			if err := tx.PutSubscription(ctx, chatcore.Subscription{StreamID: st.ID, UserID: u.ID, Active: true}); err != nil {
				return err
			}
		}
		return nil
	})
	return st
}

// Subscribe (re)subscribes u to st, seeing messages from firstVisible on (0:
// all) and receiving them from there, as a subscription that starts at
// firstVisible does (Subscription.SinceMessageID).
func (w *World) Subscribe(tb testing.TB, st *chatcore.Stream, u *chatcore.User, firstVisible chatcore.MessageID) {
	tb.Helper()
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		return tx.PutSubscription(ctx, chatcore.Subscription{
			StreamID: st.ID, UserID: u.ID, Active: true, FirstVisibleMessageID: firstVisible, SinceMessageID: firstVisible,
		})
	})
}

// AddGroup stores a user group of realm with the members.
func (w *World) AddGroup(tb testing.TB, realm *chatcore.Realm, name string, members ...*chatcore.User) *chatcore.Group {
	tb.Helper()
	g := &chatcore.Group{RealmID: realm.ID, Name: name}
	for _, u := range members {
		g.Members = append(g.Members, u.ID)
	}
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error { return tx.CreateGroup(ctx, g) })
	return g
}

// Post stores a channel message directly (keeping the channel's first
// message id up to date as sending does), sent at the clock's current time
// with a smile reaction of the sender, and returns its id.
func (w *World) Post(tb testing.TB, st *chatcore.Stream, topic string, sender *chatcore.User, content string) chatcore.MessageID {
	tb.Helper()
	m := &chatcore.Message{
		RealmID: st.RealmID, SenderID: sender.ID, Type: chatcore.MessageTypeStream,
		RecipientID: st.RecipientID, StreamID: st.ID, Topic: topic,
		Content: content, RenderedContent: "<p>" + content + "</p>", Has: chatcore.ContentHas(content),
		Client: "test", SentAt: w.Clock.Current(),
		Reactions: []chatcore.Reaction{{UserID: sender.ID, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}},
	}
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		if err := tx.CreateMessage(ctx, m); err != nil {
			return err
		}
		cur, err := tx.Stream(ctx, st.ID)
		if err != nil {
			return err
		}
		if cur.FirstMessageID == 0 {
			cur.FirstMessageID = m.ID
			return tx.UpdateStream(ctx, cur)
		}
		return nil
	})
	return m.ID
}

// PostN posts n messages ("message 1", ...) to the topic and returns their
// ids, oldest first.
func (w *World) PostN(tb testing.TB, st *chatcore.Stream, topic string, sender *chatcore.User, n int) []chatcore.MessageID {
	tb.Helper()
	ids := make([]chatcore.MessageID, n)
	for i := range ids {
		ids[i] = w.Post(tb, st, topic, sender, fmt.Sprintf("message %d", i+1))
	}
	return ids
}

// DM stores a direct message among sender and to, sent at the clock's
// current time, and returns its id.
func (w *World) DM(tb testing.TB, sender *chatcore.User, content string, to ...*chatcore.User) chatcore.MessageID {
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
		Has: chatcore.ContentHas(content), Client: "test", SentAt: w.Clock.Current(),
	}
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		rid, err := tx.DirectRecipient(ctx, sender.RealmID, members)
		if err != nil {
			return err
		}
		m.RecipientID = rid
		return tx.CreateMessage(ctx, m)
	})
	return m.ID
}

// Send sends content to the topic of st through the Service, as sender, and
// returns the message id; an error fails the test.
func (w *World) Send(tb testing.TB, sender *chatcore.User, st *chatcore.Stream, topic, content string) chatcore.MessageID {
	tb.Helper()
	id, err := w.Svc.SendMessage(context.Background(), sender.ID, chatcore.SendMessageRequest{
		Type: "stream", To: &st.Name, Topic: &topic, Content: content,
	})
	if err != nil {
		tb.Fatalf("sending to %q: %v", topic, err)
	}
	return id
}

// UpdateUser applies mod to the stored user id.
func (w *World) UpdateUser(tb testing.TB, id chatcore.UserID, mod func(*chatcore.User)) {
	tb.Helper()
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		u, err := tx.User(ctx, id)
		if err != nil {
			return err
		}
		mod(u)
		return tx.UpdateUser(ctx, u)
	})
}

// UpdateRealm applies mod to the stored realm id.
func (w *World) UpdateRealm(tb testing.TB, id chatcore.RealmID, mod func(*chatcore.Realm)) {
	tb.Helper()
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		r, err := tx.Realm(ctx, id)
		if err != nil {
			return err
		}
		mod(r)
		return tx.UpdateRealm(ctx, r)
	})
}

// UpdateScheduled applies mod to the stored scheduled message or reminder id.
func (w *World) UpdateScheduled(tb testing.TB, id chatcore.ScheduledMessageID, mod func(*chatcore.ScheduledMessage)) {
	tb.Helper()
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		m, err := tx.ScheduledMessage(ctx, id)
		if err != nil {
			return err
		}
		mod(m)
		return tx.UpdateScheduledMessage(ctx, m)
	})
}

// User reads the user id from the base store.
func (w *World) User(tb testing.TB, id chatcore.UserID) *chatcore.User {
	tb.Helper()
	return Read(tb, w.Base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.User, error) { return tx.User(ctx, id) })
}

// Realm reads the realm id from the base store.
func (w *World) Realm(tb testing.TB, id chatcore.RealmID) *chatcore.Realm {
	tb.Helper()
	return Read(tb, w.Base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Realm, error) { return tx.Realm(ctx, id) })
}

// Stream reads the channel id from the base store.
func (w *World) Stream(tb testing.TB, id chatcore.StreamID) *chatcore.Stream {
	tb.Helper()
	return Read(tb, w.Base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Stream, error) { return tx.Stream(ctx, id) })
}

// Message reads the message id from the base store.
func (w *World) Message(tb testing.TB, id chatcore.MessageID) *chatcore.Message {
	tb.Helper()
	return Read(tb, w.Base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Message, error) { return tx.Message(ctx, id) })
}

// Scheduled reads the scheduled message or reminder id from the base store.
func (w *World) Scheduled(tb testing.TB, id chatcore.ScheduledMessageID) *chatcore.ScheduledMessage {
	tb.Helper()
	return Read(tb, w.Base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.ScheduledMessage, error) {
		return tx.ScheduledMessage(ctx, id)
	})
}

// EditedSettings returns the names of the settings the user changed
// themselves.
func (w *World) EditedSettings(tb testing.TB, id chatcore.UserID) []string {
	tb.Helper()
	return Read(tb, w.Base, func(ctx context.Context, tx chatcore.Tx) ([]string, error) { return tx.EditedSettings(ctx, id) })
}

// MessageIDs returns the ids of the stored messages q selects, oldest first.
func (w *World) MessageIDs(tb testing.TB, q chatcore.MessageQuery) []chatcore.MessageID {
	tb.Helper()
	return Read(tb, w.Base, func(ctx context.Context, tx chatcore.Tx) ([]chatcore.MessageID, error) {
		ms, err := tx.Messages(ctx, q)
		var ids []chatcore.MessageID
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		return ids, err
	})
}

// ChannelMessageIDs returns the ids of the messages of a channel topic (nil
// topic: the whole channel), oldest first.
func (w *World) ChannelMessageIDs(tb testing.TB, st *chatcore.Stream, topic *string) []chatcore.MessageID {
	tb.Helper()
	q := chatcore.MessageQuery{RealmID: st.RealmID, Recipients: []chatcore.RecipientID{st.RecipientID}}
	if topic != nil {
		key := chatcore.FoldKey(*topic)
		q.TopicKey = &key
	}
	return w.MessageIDs(tb, q)
}

// DirectMessagesTo returns the contents of the direct messages u received
// from users whose full name is sender, oldest first.
func (w *World) DirectMessagesTo(tb testing.TB, u *chatcore.User, sender string) []string {
	tb.Helper()
	return Read(tb, w.Base, func(ctx context.Context, tx chatcore.Tx) ([]string, error) {
		rids, err := tx.DirectRecipients(ctx, u.ID)
		if err != nil || len(rids) == 0 { // nil Recipients would mean "any"
			return nil, err
		}
		msgs, err := tx.Messages(ctx, chatcore.MessageQuery{RealmID: u.RealmID, Recipients: rids})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, m := range msgs {
			from, err := tx.User(ctx, m.SenderID)
			if err != nil {
				return nil, err
			}
			if from.FullName == sender && from.ID != u.ID {
				out = append(out, m.Content)
			}
		}
		return out, nil
	})
}

// Cast is the standard population [World.SeedCast] stores: realm "zulip"
// with one active user of each role, a bot and a deactivated member, and a
// second realm "lear" with one user.
type Cast struct {
	Realm       *chatcore.Realm // "zulip", named "Zulip Dev"
	Owner       *chatcore.User  // Desdemona, desdemona@zulip.com
	Admin       *chatcore.User  // Iago, iago@zulip.com
	Moderator   *chatcore.User  // Shiva, shiva@zulip.com
	Member      *chatcore.User  // King Hamlet, hamlet@zulip.com
	Guest       *chatcore.User  // Polonius, polonius@zulip.com
	Bot         *chatcore.User  // Welcome Bot, bot@zulip.com, a generic bot of Member
	Deactivated *chatcore.User  // Gone User, gone@zulip.com, a deactivated member
	OtherRealm  *chatcore.Realm // "lear", named "Lear & Co."
	Stranger    *chatcore.User  // King Lear, king@lear.org, an administrator of OtherRealm
}

// CastPassword is the password of the cast's human users with e-mail
// address email.
func CastPassword(email string) string { return email + "-Secret#42" }

// SeedCast stores the [Cast]. Humans have the password [CastPassword] and
// the API key [APIKey]; the bot has no password.
func (w *World) SeedCast(tb testing.TB) *Cast {
	tb.Helper()
	c := &Cast{}
	c.Realm = w.AddRealm(tb, "zulip", func(r *chatcore.Realm) { r.Name = "Zulip Dev" })
	human := func(realm *chatcore.Realm, email, name string, role chatcore.Role, mods ...func(*chatcore.User)) *chatcore.User {
		tb.Helper()
		return w.AddUser(tb, realm, name, role, append([]func(*chatcore.User){Email(email), Password(CastPassword(email))}, mods...)...)
	}
	c.Owner = human(c.Realm, "desdemona@zulip.com", "Desdemona", chatcore.RoleOwner)
	c.Admin = human(c.Realm, "iago@zulip.com", "Iago", chatcore.RoleAdministrator, func(u *chatcore.User) { u.CanCreateUsers = true })
	c.Moderator = human(c.Realm, "shiva@zulip.com", "Shiva", chatcore.RoleModerator)
	c.Member = human(c.Realm, "hamlet@zulip.com", "King Hamlet", chatcore.RoleMember)
	c.Guest = human(c.Realm, "polonius@zulip.com", "Polonius", chatcore.RoleGuest)
	c.Bot = w.AddBot(tb, c.Realm, "Welcome Bot", c.Member, Email("bot@zulip.com"))
	c.Deactivated = human(c.Realm, "gone@zulip.com", "Gone User", chatcore.RoleMember, Deactivated)
	c.OtherRealm = w.AddRealm(tb, "lear", func(r *chatcore.Realm) { r.Name = "Lear & Co." })
	c.Stranger = human(c.OtherRealm, "king@lear.org", "King Lear", chatcore.RoleAdministrator)
	return c
}
