package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// idKind is one kind of row with an id, as the never-reused check drives it.
type idKind[ID ~int64] struct {
	// create stores the n-th row of the kind (n counts from 0, so names can
	// differ) with the id, zero letting the store choose, and returns the id
	// stored.
	create func(tx store.Tx, ctx context.Context, n int, id ID) (ID, error)
	// remove deletes the row with the id; nil for kinds the Store cannot delete.
	remove func(tx store.Tx, ctx context.Context, id ID) error
}

// neverReused checks the Store contract that a zero id is replaced by one above
// every id ever used for the kind: it creates a row with a zero id, one with an
// explicit id well above it and one with an explicit id in between, deletes
// all three when the kind can be deleted (in a later transaction, as a stale
// client would), and then creates a row with a zero id, whose id must be above
// every id used before, deleted or not.
func neverReused[ID ~int64](t *testing.T, st store.Store, k idKind[ID]) {
	t.Helper()
	is := is.New(t)
	var used []ID
	update(t, st, func(ctx context.Context, tx store.Tx) {
		first, err := k.create(tx, ctx, 0, 0)
		is.NoErr(err) // first row created with a store-chosen id
		high, err := k.create(tx, ctx, 1, first+50)
		is.NoErr(err)            // row created with an explicit id
		is.Equal(high, first+50) // an explicit id is kept
		mid, err := k.create(tx, ctx, 2, first+20)
		is.NoErr(err)           // row created with a lower explicit id
		is.Equal(mid, first+20) // a lower explicit id is kept too
		used = []ID{first, high, mid}
	})
	if k.remove != nil {
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, id := range slices.Backward(slices.Sorted(slices.Values(used))) {
				is.NoErr(k.remove(tx, ctx, id)) // row deleted, highest id first
			}
		})
	}
	var next ID
	update(t, st, func(ctx context.Context, tx store.Tx) {
		var err error
		next, err = k.create(tx, ctx, 3, 0)
		is.NoErr(err) // row created with a store-chosen id after the others
	})
	if next <= slices.Max(used) {
		t.Logf("ids used %v, new id %d", used, next)
	}
	is.True(next > slices.Max(used)) // a new id is above every id ever used, deleted ones included
}

var idTests = []test{
	{"Realms", func(t *testing.T, st store.Store) {
		neverReused(t, st, idKind[store.RealmID]{
			create: func(tx store.Tx, ctx context.Context, n int, id store.RealmID) (store.RealmID, error) {
				r := &store.Realm{ID: id, StringID: fmt.Sprintf("r%d", n), Name: "org", DateCreated: epoch}
				return r.ID, tx.CreateRealm(ctx, r)
			},
		})
	}},
	{"Users", func(t *testing.T, st store.Store) {
		realm := newRealm(t, st, "acme")
		neverReused(t, st, idKind[store.UserID]{
			create: func(tx store.Tx, ctx context.Context, n int, id store.UserID) (store.UserID, error) {
				u := human(realm, fmt.Sprintf("u%d@x.test", n))
				u.ID = id
				err := tx.CreateUser(ctx, u)
				return u.ID, err
			},
		})
	}},
	{"BotServices", func(t *testing.T, st store.Store) {
		w := newWorld(t, st)
		neverReused(t, st, idKind[store.BotServiceID]{
			create: func(tx store.Tx, ctx context.Context, n int, id store.BotServiceID) (store.BotServiceID, error) {
				s := &store.BotService{ID: id, BotID: w.bot, Name: fmt.Sprintf("s%d", n), BaseURL: "https://bot.test", Token: "t", Interface: "generic"}
				err := tx.CreateBotService(ctx, s)
				return s.ID, err
			},
		})
	}},
	{"Groups", func(t *testing.T, st store.Store) {
		w := newWorld(t, st)
		neverReused(t, st, idKind[store.GroupID]{
			create: func(tx store.Tx, ctx context.Context, n int, id store.GroupID) (store.GroupID, error) {
				g := &store.Group{ID: id, RealmID: w.realm, Name: fmt.Sprintf("g%d", n), Members: []store.UserID{w.alice}}
				err := tx.CreateGroup(ctx, g)
				return g.ID, err
			},
		})
	}},
	{"Channels", func(t *testing.T, st store.Store) {
		realm := newRealm(t, st, "acme")
		neverReused(t, st, idKind[store.StreamID]{
			create: func(tx store.Tx, ctx context.Context, n int, id store.StreamID) (store.StreamID, error) {
				s := &store.Stream{ID: id, RealmID: realm, Name: fmt.Sprintf("c%d", n), DateCreated: epoch}
				err := tx.CreateStream(ctx, s)
				return s.ID, err
			},
		})
	}},
	{"Messages", func(t *testing.T, st store.Store) {
		w := newWorld(t, st)
		neverReused(t, st, idKind[store.MessageID]{
			create: func(tx store.Tx, ctx context.Context, n int, id store.MessageID) (store.MessageID, error) {
				m := channelMessage(w.general, w.alice, fmt.Sprintf("t%d", n))
				m.ID = id
				err := tx.CreateMessage(ctx, m)
				return m.ID, err
			},
			remove: func(tx store.Tx, ctx context.Context, id store.MessageID) error {
				// The highest remaining id goes first, so the newest message at
				// or above id is the message id itself.
				del, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: w.realm, MinID: id}, 1)
				if err == nil && (len(del) != 1 || del[0].ID != id) {
					err = fmt.Errorf("deleted %v, want message %d", deletedIDs(del), id)
				}
				return err
			},
		})
	}},
	{"Submessages", func(t *testing.T, st store.Store) {
		w := newWorld(t, st)
		parent := map[int64]store.MessageID{} // submessage id -> its message
		neverReused(t, st, idKind[int64]{
			create: func(tx store.Tx, ctx context.Context, n int, id int64) (int64, error) {
				m := channelMessage(w.general, w.alice, fmt.Sprintf("t%d", n))
				m.Submessages = []store.Submessage{{ID: id, SenderID: w.bob, MsgType: "widget", Content: "{}"}}
				if err := tx.CreateMessage(ctx, m); err != nil {
					return 0, err
				}
				parent[m.Submessages[0].ID] = m.ID
				return m.Submessages[0].ID, nil
			},
			remove: func(tx store.Tx, ctx context.Context, id int64) error {
				_, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: w.realm, MinID: parent[id]}, 1)
				return err
			},
		})
	}},
	{"ScheduledAndReminders", func(t *testing.T, st store.Store) {
		w := newWorld(t, st)
		neverReused(t, st, idKind[store.ScheduledMessageID]{
			create: func(tx store.Tx, ctx context.Context, n int, id store.ScheduledMessageID) (store.ScheduledMessageID, error) {
				// Both kinds share one id space: alternate them.
				m := &store.ScheduledMessage{
					ID: id, RealmID: w.realm, SenderID: w.alice, Kind: store.ScheduledSendLater,
					Type: store.MessageTypeStream, StreamID: w.general.ID, Topic: "later",
					Content: "c", RenderedContent: "<p>c</p>", DeliverAt: epoch,
				}
				if n%2 == 1 {
					m.Kind, m.Type, m.StreamID, m.DirectMembers = store.ScheduledReminder, store.MessageTypePrivate, 0, []store.UserID{w.alice}
				}
				err := tx.CreateScheduledMessage(ctx, m)
				return m.ID, err
			},
			remove: store.Tx.DeleteScheduledMessage,
		})
	}},
	{"Linkifiers", func(t *testing.T, st store.Store) {
		w := newWorld(t, st)
		neverReused(t, st, idKind[store.LinkifierID]{
			create: func(tx store.Tx, ctx context.Context, n int, id store.LinkifierID) (store.LinkifierID, error) {
				// The last one is in another realm: ids are global, not per realm.
				realm := w.realm
				if n == 3 {
					realm = w.other
				}
				l := &store.Linkifier{ID: id, RealmID: realm, Pattern: fmt.Sprintf("#(?P<id>[0-9]+)x%d", n), URLTemplate: "https://t.test/{id}", Order: n}
				err := tx.CreateLinkifier(ctx, l)
				return l.ID, err
			},
			remove: store.Tx.DeleteLinkifier,
		})
	}},
	{"Drafts", func(t *testing.T, st store.Store) {
		w := newWorld(t, st)
		owner := map[store.DraftID]store.UserID{} // one draft per user, so deleting a user's drafts deletes one
		users := []store.UserID{w.alice, w.bob, w.carol, w.alice}
		neverReused(t, st, idKind[store.DraftID]{
			create: func(tx store.Tx, ctx context.Context, n int, id store.DraftID) (store.DraftID, error) {
				d := &store.Draft{ID: id, UserID: users[n], Type: store.MessageTypeStream, StreamID: w.general.ID, Topic: "t", Content: "c", LastEdit: epoch}
				err := tx.CreateDraft(ctx, d)
				owner[d.ID] = d.UserID
				return d.ID, err
			},
			remove: func(tx store.Tx, ctx context.Context, id store.DraftID) error {
				n, err := tx.DeleteDrafts(ctx, owner[id])
				if err == nil && n != 1 {
					err = fmt.Errorf("deleted %d drafts of user %d, want 1", n, owner[id])
				}
				return err
			},
		})
	}},
}
