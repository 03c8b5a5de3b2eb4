package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// bigChannel adds a realm with a channel of n subscribers to w.
func bigChannel(t *testing.T, w *chattest.World, stringID string, n int) (*store.Realm, []*store.User, *store.Stream) {
	t.Helper()
	realm := w.AddRealm(t, stringID)
	users := make([]*store.User, n)
	for i := range users {
		users[i] = w.AddUser(t, realm, fmt.Sprintf("User %d", i), store.RoleMember)
	}
	return realm, users, w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: users})
}

// TestSubscriberCacheFollowsChanges: a Store answers a big channel's
// subscribers from the list it holds while the list's version is the one
// the transaction sees, and reads them again after any change of who they
// are, made by another Store on the same database (a subscription added,
// deactivated, deleted), but not after a change of a subscription's own
// settings; a list read in a transaction that rolls back is never
// answered; announced reads by id and by name follow the same rules.
func TestSubscriberCacheFollowsChanges(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	url, schema := pgtest.Schema(t)
	open := func() *postgres.Store {
		st, err := postgres.Open(ctx, url, postgres.WithSchema(schema), postgres.WithoutNotify())
		is.NoErr(err)
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b := open(), open()
	w := chattest.New(t, chattest.OnStore(b))
	realm, users, ch := bigChannel(t, w, "subscache", 70)
	want := make([]store.UserID, len(users))
	for i, u := range users {
		want[i] = u.ID
	}
	sentinel := []store.UserID{999_999_999}

	read := func(st *postgres.Store) []store.UserID {
		var ids []store.UserID
		is.NoErr(st.View(ctx, func(tx store.Tx) error {
			var err error
			ids, err = tx.ActiveSubscriberIDs(ctx, ch.ID)
			return err
		}))
		return ids
	}
	announced := func(st *postgres.Store, byName bool) []store.UserID {
		var ids []store.UserID
		is.NoErr(st.View(ctx, func(tx store.Tx) error {
			p := store.Prefetch{Subscribers: true}
			if byName {
				p.StreamNames = []store.StreamName{{RealmID: realm.ID, Name: ch.Name}}
			} else {
				p.Streams = []store.StreamID{ch.ID}
			}
			tx.(store.Prefetcher).Prefetch(p)
			var s *store.Stream
			var err error
			if byName {
				s, err = tx.StreamByName(ctx, realm.ID, ch.Name)
			} else {
				s, err = tx.Stream(ctx, ch.ID)
			}
			if err != nil {
				return err
			}
			is.Equal(s.ID, ch.ID)
			ids, err = tx.ActiveSubscriberIDs(ctx, ch.ID)
			return err
		}))
		return ids
	}

	is.Equal(read(a), want)                                 // read from the server
	is.True(postgres.PoisonSubscribers(a, ch.ID, sentinel)) // and held
	is.Equal(read(a), sentinel)                             // answered from the list held: the version is the same
	is.Equal(announced(a, false), sentinel)                 // announced by id too
	got := read(b)
	got[0] = 0                  // the caller's copy
	is.Equal(read(b), want)     // not the list b holds
	is.Equal(read(a), sentinel) // nothing changed

	// A subscription's own setting: the list is the same.
	is.NoErr(b.Update(ctx, func(tx store.Tx) error {
		subs, err := tx.Subscriptions(ctx, ch.ID, users[0].ID)
		if err != nil {
			return err
		}
		subs[0].Color, subs[0].IsMuted = "#123456", true
		return tx.PutSubscription(ctx, subs[0])
	}))
	is.Equal(read(a), sentinel) // still the list held

	// A new subscriber.
	extra := w.AddUser(t, realm, "Extra", store.RoleMember)
	is.NoErr(b.Update(ctx, func(tx store.Tx) error {
		return tx.PutSubscription(ctx, store.Subscription{StreamID: ch.ID, UserID: extra.ID, Active: true})
	}))
	want = append(want, extra.ID)
	is.Equal(read(a), want) // read again

	// An unsubscribed user, seen by an announced read by name.
	is.Equal(announced(a, true), want) // the name is remembered
	postgres.PoisonSubscribers(a, ch.ID, sentinel)
	is.Equal(announced(a, true), sentinel) // and leads to the list held
	is.NoErr(b.Update(ctx, func(tx store.Tx) error {
		subs, err := tx.Subscriptions(ctx, ch.ID, users[1].ID)
		if err != nil {
			return err
		}
		subs[0].Active = false
		return tx.PutSubscription(ctx, subs[0])
	}))
	want = slices.Delete(want, 1, 2)
	is.Equal(announced(a, true), want)

	// A deleted subscription.
	postgres.PoisonSubscribers(a, ch.ID, sentinel)
	_, err := b.Pool().Exec(ctx, "DELETE FROM subscriptions WHERE stream_id = $1 AND user_id = $2", ch.ID, users[2].ID)
	is.NoErr(err)
	want = slices.Delete(want, 1, 2)
	is.Equal(announced(a, false), want)

	// A change read in a transaction that rolls back.
	late := w.AddUser(t, realm, "Late", store.RoleMember)
	errUndo := errors.New("undo")
	err = a.Update(ctx, func(tx store.Tx) error {
		if err := tx.PutSubscription(ctx, store.Subscription{StreamID: ch.ID, UserID: late.ID, Active: true}); err != nil {
			return err
		}
		ids, err := tx.ActiveSubscriberIDs(ctx, ch.ID)
		is.Equal(ids, append(slices.Clone(want), late.ID)) // the transaction's own change
		if err != nil {
			return err
		}
		return errUndo
	})
	is.True(errors.Is(err, errUndo))
	is.Equal(read(a), want) // the list without it
}

// TestSubscribersVersionMigration: migration 0024 gives every existing
// stream a version of its own, and the lists of streams that existed before
// it follow changes.
func TestSubscribersVersionMigration(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	var ch *store.Stream
	var realm *store.Realm
	st := migratedFrom(t, func(st *postgres.Store) {
		w := chattest.New(t, chattest.OnStore(st))
		realm, _, ch = bigChannel(t, w, "versions", 70)
		w.AddChannel(t, chattest.Channel{Realm: realm, Name: "other"})
	},
		// Back to the schema before 0024.
		`DROP TRIGGER subscriptions_insert_version ON subscriptions;
		DROP TRIGGER subscriptions_update_version ON subscriptions;
		DROP TRIGGER subscriptions_delete_version ON subscriptions;
		DROP FUNCTION subscriptions_bump_version();
		ALTER TABLE streams DROP COLUMN subscribers_version;
		DROP SEQUENCE stream_subscribers_version_seq;
		UPDATE chatcore_schema SET version = 23`)
	var streams, versions int
	is.NoErr(st.Pool().QueryRow(ctx, "SELECT count(*), count(DISTINCT subscribers_version) FROM streams WHERE subscribers_version > 0").Scan(&streams, &versions))
	is.True(streams >= 2)       // the streams made before the migration
	is.Equal(versions, streams) // each with a version of its own

	var before []store.UserID
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		var err error
		before, err = tx.ActiveSubscriberIDs(ctx, ch.ID)
		return err
	}))
	is.Equal(len(before), 70)
	u := chattest.New(t, chattest.OnStore(st)).AddUser(t, realm, "New", store.RoleMember)
	is.NoErr(st.Update(ctx, func(tx store.Tx) error {
		return tx.PutSubscription(ctx, store.Subscription{StreamID: ch.ID, UserID: u.ID, Active: true})
	}))
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		after, err := tx.ActiveSubscriberIDs(ctx, ch.ID)
		is.Equal(after, append(before, u.ID)) // the new subscriber is seen
		return err
	}))
}
