package sqlite

import (
	"strings"
	"sync/atomic"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/fifocache"
)

// DefaultUserCache is how many user rows a Store keeps between transactions
// unless [WithUserCache] says otherwise.
const DefaultUserCache = 4096

// userCache keeps user rows read by id or API key hash between
// transactions, so that authenticating a request and reading its actor
// inside the write transaction need no statement while the users table is
// unchanged.
//
// It relies on the Store being the only writer of its file (see [Open]):
// every committed change to the users table then passes through the writer,
// whose transaction notes it (tx.exec sees the statement's text) and bumps
// gen once it has committed, before its Updates return. An entry is served
// only while gen still has the value it had when the transaction that read
// the row began, and only to a transaction that began at that same value;
// such a transaction's snapshot holds exactly the rows the entry was read
// from. A write transaction that has changed the users table itself (or
// shares its SQLite transaction with an Update that has) neither reads nor
// fills the cache.
type userCache struct {
	gen   atomic.Uint64
	byID  *fifocache.Cache[chatcore.UserID, cachedUser]
	byKey *fifocache.Cache[string, chatcore.UserID]
}

type cachedUser struct {
	u   chatcore.User
	gen uint64
}

// newUserCache returns a cache of at most size users; nil (no caching) when
// size is 0.
func newUserCache(size int) *userCache {
	if size <= 0 {
		return nil
	}
	return &userCache{
		byID:  fifocache.New[chatcore.UserID, cachedUser](size),
		byKey: fifocache.New[string, chatcore.UserID](size),
	}
}

// generation returns the current generation (0 for a nil cache).
func (c *userCache) generation() uint64 {
	if c == nil {
		return 0
	}
	return c.gen.Load()
}

// changed records that a transaction that changed the users table has ended.
func (c *userCache) changed() {
	if c != nil {
		c.gen.Add(1)
	}
}

// get returns a copy of user id as a transaction that began at gen may see
// it, when the cache holds it.
func (c *userCache) get(gen uint64, id chatcore.UserID) (*chatcore.User, bool) {
	if c == nil {
		return nil, false
	}
	e, ok := c.byID.Get(id)
	if !ok || e.gen != gen || c.gen.Load() != gen {
		return nil, false
	}
	u := e.u
	return &u, true
}

// byAPIKey returns a copy of the user whose API key hash is hash, as get.
func (c *userCache) byAPIKey(gen uint64, hash string) (*chatcore.User, bool) {
	if c == nil {
		return nil, false
	}
	id, ok := c.byKey.Get(hash)
	if !ok {
		return nil, false
	}
	u, ok := c.get(gen, id)
	if !ok || u.APIKeyHash != hash {
		return nil, false
	}
	return u, true
}

// put remembers u, read by a transaction that began at gen.
func (c *userCache) put(gen uint64, u *chatcore.User) {
	if c == nil || c.gen.Load() != gen {
		return
	}
	newer := func(old cachedUser) bool { return old.gen < gen }
	c.byID.Put(u.ID, cachedUser{u: *u, gen: gen}, newer)
	if u.APIKeyHash != "" {
		c.byKey.Put(u.APIKeyHash, u.ID, func(chatcore.UserID) bool { return true })
	}
}

// writesUsers reports whether a statement may change the users table: every
// statement of this package that does names it after INSERT INTO or UPDATE
// (users are never deleted).
func writesUsers(query string) bool {
	return strings.Contains(query, "UPDATE users ") || strings.Contains(query, "INSERT INTO users ")
}
