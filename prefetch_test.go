package chatcore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// txWrapping is a store that hands each write transaction (each attempt)
// to its fn through wrap.
type txWrapping struct {
	chatcore.Store
	wrap func(chatcore.Tx) chatcore.Tx
}

func (s txWrapping) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(s.wrap(tx)) })
}

// annInZulip returns a world on a store seen through wrap, with the realm
// "zulip" and its member Ann.
func annInZulip(t *testing.T, wrap func(chatcore.Store) chatcore.Store) (*chattest.World, *chatcore.Realm, *chatcore.User) {
	w := chattest.New(t, chattest.Wrap(wrap))
	realm := w.AddRealm(t, "zulip")
	return w, realm, w.AddUser(t, realm, "Ann", chatcore.RoleMember)
}

// announcing records what write transactions are told to prefetch (see
// chatcore.Prefetcher); the store over returns prefetches nothing.
type announcing struct {
	got []chatcore.Prefetch
}

// over returns s with write transactions that announce to a.
func (a *announcing) over(s chatcore.Store) chatcore.Store {
	return txWrapping{s, func(tx chatcore.Tx) chatcore.Tx { return announcingTx{tx, a} }}
}

type announcingTx struct {
	chatcore.Tx
	a *announcing
}

func (t announcingTx) Prefetch(p chatcore.Prefetch) { t.a.got = append(t.a.got, p) }

// TestSendAnnouncesItsReads: a send by the request's authenticated user
// tells a store that prefetches which realm and channel (with its
// subscribers) it reads, the channel as the request names it, and that it
// creates one message; a direct message only its realm and its message; a
// send whose sender is not in the context announces nothing, since the realm
// is not known before the sender is read.
func TestSendAnnouncesItsReads(t *testing.T) {
	is := is.New(t)
	st := &announcing{}
	w, realm, ann := annInZulip(t, st.over)
	bob := w.AddUser(t, realm, "Bob", chatcore.RoleMember)
	ch := w.AddChannel(t, chattest.Channel{Realm: realm, Name: "Verona", Subscribers: []*chatcore.User{ann, bob}})
	send := func(authenticated *chatcore.User, typ, to string) []chatcore.Prefetch {
		t.Helper()
		st.got = nil
		id, err := w.Svc.SendMessage(t.Context(), ann.ID, chatcore.SendMessageRequest{Type: typ, To: &to, Topic: new("t"), Content: "hi", Authenticated: authenticated})
		is.NoErr(err)                            // sent
		is.Equal(w.Message(t, id).Content, "hi") // and stored
		return st.got
	}
	// With what the receivers' own settings need: who muted the sender, the
	// realm's alert words and, for a channel, the sender's subscriptions,
	// the topic's policies and the channel's permission groups.
	own := func(f chatcore.Prefetch) chatcore.Prefetch {
		f.Muters, f.AlertWordRealms = []chatcore.UserID{ann.ID}, []chatcore.RealmID{realm.ID}
		if f.Subscribers {
			f.UserSubscriptions = []chatcore.UserID{ann.ID}
			f.ChannelGroupSettings = true // the channel's can_send_message_group
		}
		return f
	}
	verona := chatcore.StreamName{RealmID: realm.ID, Name: "Verona"}
	is.Equal(send(ann, "stream", " Verona "), []chatcore.Prefetch{own(chatcore.Prefetch{Realms: []chatcore.RealmID{realm.ID},
		StreamNames: []chatcore.StreamName{verona}, Subscribers: true, NewMessages: 1,
		TopicPolicies: []store.StreamTopic{{StreamName: verona, TopicKey: chatcore.TopicKey("t")}}})}) // by name, trimmed as looked up
	is.Equal(send(ann, "stream", fmt.Sprint(ch.ID)), []chatcore.Prefetch{own(chatcore.Prefetch{Realms: []chatcore.RealmID{realm.ID},
		Streams: []chatcore.StreamID{ch.ID}, Subscribers: true, NewMessages: 1,
		TopicPolicies: []store.StreamTopic{{StreamID: ch.ID, TopicKey: chatcore.TopicKey("t")}}})}) // by id
	is.Equal(send(ann, "direct", fmt.Sprintf("[%d]", bob.ID)), []chatcore.Prefetch{own(chatcore.Prefetch{Realms: []chatcore.RealmID{realm.ID}, NewMessages: 1})}) // the realm only
	is.Equal(len(send(nil, "stream", "Verona")), 0)                                                                                                               // sender not known up front
}

// TestDeleteTopicAnnouncesTheAudience: each batch of a topic deletion tells
// a store that prefetches that it reads the channel's audience.
func TestDeleteTopicAnnouncesTheAudience(t *testing.T) {
	is := is.New(t)
	st := &announcing{}
	w := chattest.New(t, chattest.Wrap(st.over),
		chattest.With(chatcore.WithTopicDeletion(2, 0)))
	realm := w.AddRealm(t, "zulip")
	admin := w.AddUser(t, realm, "Iago", chatcore.RoleAdministrator)
	ch := w.AddChannel(t, chattest.Channel{Realm: realm, Name: "Verona", Subscribers: []*chatcore.User{admin}})
	for range 3 {
		_, err := w.Svc.SendMessage(t.Context(), admin.ID, chatcore.SendMessageRequest{Type: "stream", To: new("Verona"), Topic: new("t"), Content: "hi"})
		is.NoErr(err)
	}
	st.got = nil
	res, err := channels.DeleteTopic(t.Context(), w.Svc, admin.ID, ch.ID, "t")
	is.NoErr(err)
	is.True(res.Complete)
	batch := chatcore.Prefetch{Audiences: []chatcore.StreamID{ch.ID}}
	is.Equal(st.got, []chatcore.Prefetch{batch, batch}) // two batches (2 and 1 messages), each announcing
}

// TestSendAnnouncesRealmEmoji: a send whose content has :name: syntax also
// announces the realm's custom emoji, which its rendering reads; other
// content does not.
func TestSendAnnouncesRealmEmoji(t *testing.T) {
	is := is.New(t)
	st := &announcing{}
	w, realm, ann := annInZulip(t, st.over)
	bob := w.AddUser(t, realm, "Bob", chatcore.RoleMember)
	emojiRealms := func(content string) []chatcore.RealmID {
		st.got = nil
		_, err := w.Svc.SendMessage(t.Context(), ann.ID, chatcore.SendMessageRequest{Type: "direct", To: new(fmt.Sprintf("[%d]", bob.ID)), Content: content, Authenticated: ann})
		is.NoErr(err)            // sent
		is.Equal(len(st.got), 1) // one announcement
		return st.got[0].RealmEmojiRealms
	}
	is.Equal(emojiRealms("hi :smile:"), []chatcore.RealmID{realm.ID}) // the sender's realm
	is.Equal(len(emojiRealms("hi 😀 : no")), 0)                        // no :name: syntax, no read
}
