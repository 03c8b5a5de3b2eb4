package storetest

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var conversationTests = []test{
	{"RecentDirectConversations", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ab := directRecipient(t, st, w.realm, w.alice, w.bob)
		abc := directRecipient(t, st, w.realm, w.alice, w.bob, w.carol)
		self := directRecipient(t, st, w.realm, w.alice)
		directRecipient(t, st, w.realm, w.alice, w.carol) // no message: left out
		bc := directRecipient(t, st, w.realm, w.bob, w.carol)
		ids := send(t, st,
			directMessage(w.realm, ab, w.alice, w.alice, w.bob),
			directMessage(w.realm, abc, w.carol, w.alice, w.bob, w.carol),
			channelMessage(w.general, w.alice, "t"),
			directMessage(w.realm, self, w.alice, w.alice),
			directMessage(w.realm, bc, w.bob, w.bob, w.carol),
			directMessage(w.realm, ab, w.bob, w.alice, w.bob),
		)
		get := func(user store.UserID, limit int) []store.DirectConversation {
			var out []store.DirectConversation
			view(t, st, func(ctx context.Context, tx store.Tx) {
				var err error
				out, err = tx.RecentDirectConversations(ctx, user, limit)
				is.NoErr(err) // conversations read
			})
			return out
		}
		is.Equal(get(w.alice, 10), []store.DirectConversation{
			{RecipientID: ab, Members: []store.UserID{w.alice, w.bob}, MaxMessageID: ids[5]},
			{RecipientID: self, Members: []store.UserID{w.alice}, MaxMessageID: ids[3]},
			{RecipientID: abc, Members: []store.UserID{w.alice, w.bob, w.carol}, MaxMessageID: ids[1]},
		}) // newest first, with members and the newest message; channels and empty conversations left out
		is.Equal(get(w.alice, 2), []store.DirectConversation{
			{RecipientID: ab, Members: []store.UserID{w.alice, w.bob}, MaxMessageID: ids[5]},
			{RecipientID: self, Members: []store.UserID{w.alice}, MaxMessageID: ids[3]},
		}) // bounded by limit
		is.Equal(len(get(w.zed, 10)), 0) // none for a user without conversations
		deleteBatch(t, st, store.MessageFilter{RealmID: w.realm, IDs: []store.MessageID{ids[5]}}, 10)
		is.Equal(get(w.alice, 1)[0].MaxMessageID, ids[3]) // a deleted message no longer counts
		is.Equal(get(w.bob, 1)[0], store.DirectConversation{RecipientID: bc, Members: []store.UserID{w.bob, w.carol}, MaxMessageID: ids[4]})
	}},
}
