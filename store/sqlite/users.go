package sqlite

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// User implements [store.UserStore], from the row cache when it holds
// the row.
func (t *tx) User(ctx context.Context, id store.UserID) (*store.User, error) {
	if u, ok := t.cachedUser(id); ok {
		return u, nil
	}
	u, err := t.Tx.User(ctx, id)
	if err == nil {
		t.cacheUser(u)
	}
	return u, err
}

// Users implements [store.UserStore]; a realm's whole user list (a filter
// naming the realm alone, as /register reads it) comes from the row cache
// when it holds it, and so do the users of a filter naming ids alone (the
// senders a page of messages shows) that it holds. Profile is not needed
// here: every user comes whole.
func (t *tx) Users(ctx context.Context, f store.UserFilter) ([]store.User, error) {
	// The row cache holds whole users (and SQLite reads a row's columns
	// in-process), so a Profile listing is read and answered whole.
	f.Profile = false
	if idsOnly(f) && t.rows != nil {
		return t.usersByID(ctx, f.RealmID, f.IDs)
	}
	if !realmOnly(f) {
		return t.Tx.Users(ctx, f)
	}
	if us, ok := t.cachedRealmUsers(f.RealmID); ok {
		return us, nil
	}
	us, err := t.Tx.Users(ctx, f)
	if err == nil {
		t.cacheRealmUsers(f.RealmID, us)
	}
	return us, err
}

// UserByAPIKeyHash implements [store.UserStore], from the row cache
// when it holds the row.
func (t *tx) UserByAPIKeyHash(ctx context.Context, hash string) (*store.User, error) {
	if hash == "" {
		return nil, notFound("user by api key")
	}
	if u, ok := t.cachedUserByKey(hash); ok {
		return u, nil
	}
	u, err := t.Tx.UserByAPIKeyHash(ctx, hash)
	if err == nil {
		t.cacheUser(u)
	}
	return u, err
}

// KeyHolder implements [store.UserStore]: a user the row cache holds by
// their own key is answered with their realm read through the cache (both
// entries follow every write of their tables, so a realm's deactivation is
// seen at once), which leaves the cache holding the realm; any other key
// costs the one statement, whose user is cached then.
func (t *tx) KeyHolder(ctx context.Context, hash string) (store.KeyHolder, error) {
	if hash == "" {
		return store.KeyHolder{}, notFound("user by api key")
	}
	if u, ok := t.cachedUserByKey(hash); ok {
		r, err := t.Realm(ctx, u.RealmID)
		if err != nil {
			return store.KeyHolder{}, err
		}
		return store.KeyHolder{User: u, OwnKey: true, RealmDeactivated: r.Deactivated}, nil
	}
	k, err := t.Tx.KeyHolder(ctx, hash)
	if err == nil {
		t.cacheUser(k.User)
	}
	return k, err
}

// UpdateUser implements [store.UserStore]: its statement writes u's row
// alone, so the row cache forgets only u's entries (see execUserRow). It
// sets u.FullNameKey.
func (t *tx) UpdateUser(ctx context.Context, u *store.User) error {
	if err := t.writable(); err != nil {
		return err
	}
	query, args := t.UserUpdate(u)
	what := fmt.Sprintf("update user %d", u.ID)
	res, err := t.execUserRow(ctx, u.ID, true, query, args...)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}

// realmOnly reports whether f names a realm and nothing else.
func realmOnly(f store.UserFilter) bool {
	rest := f
	rest.RealmID = 0
	return f.RealmID != 0 && reflect.ValueOf(rest).IsZero()
}

// idsOnly reports whether f names user ids and nothing else but perhaps a
// realm.
func idsOnly(f store.UserFilter) bool {
	rest := f
	rest.IDs, rest.RealmID = nil, 0
	return f.IDs != nil && reflect.ValueOf(rest).IsZero()
}

// usersByID returns the users with the ids (of realm, when not 0),
// ascending: those the row cache holds from it, the others in one statement
// (and then cached).
func (t *tx) usersByID(ctx context.Context, realm store.RealmID, ids []store.UserID) ([]store.User, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	out := make([]store.User, 0, len(ids))
	var missing []store.UserID
	for _, id := range ids {
		if u, ok := t.cachedUser(id); ok {
			if realm == 0 || u.RealmID == realm {
				out = append(out, *u)
			}
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	read, err := t.Tx.Users(ctx, store.UserFilter{RealmID: realm, IDs: missing})
	if err != nil {
		return nil, err
	}
	for i := range read {
		t.cacheUser(&read[i])
	}
	out = append(out, read...)
	slices.SortFunc(out, func(a, b store.User) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
