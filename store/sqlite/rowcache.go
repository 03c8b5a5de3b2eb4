package sqlite

import (
	"crypto/sha256"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chatcore/chatcore/internal/fifocache"
	"github.com/chatcore/chatcore/store"
)

// DefaultRowCache is how many rows of each cached table (users, realms,
// channels, and also channels' subscriber lists and group settings, users'
// subscriptions and muters, topics' user policies, realms' alert words and
// linkifier versions, and the event log's audiences) a Store keeps between
// transactions unless [WithRowCache] says otherwise.
const DefaultRowCache = 4096

// cachedTable names a table whose rows a Store keeps between transactions.
type cachedTable uint8

const (
	usersTable cachedTable = iota
	realmsTable
	streamsTable
	subscriptionsTable
	audiencesTable // event_audiences
	// linkifiersTable stands for the linkifier versions, which only the
	// triggers of linkifiers write, in the statement changing a linkifier.
	linkifiersTable
	// The tables of what a channel message's send reads besides (the
	// channel's group settings, the topic's policies, who muted the
	// sender, the realm's alert words).
	groupSettingsTable
	userTopicsTable
	mutedUsersTable
	alertWordsTable
	cachedTables
)

// tableWrites are texts of which every statement of this package that
// changes a cached table contains one (no statement deletes rows of the
// first four, so neither do their foreign keys' cascades, which are the
// only other way the last four could change; event_audiences and
// linkifiers lose rows only to DELETE FROM).
var tableWrites = [cachedTables][]string{
	usersTable:         {"UPDATE users ", "INSERT INTO users "},
	realmsTable:        {"UPDATE realms ", "INSERT INTO realms "},
	streamsTable:       {"UPDATE streams ", "INSERT INTO streams "},
	subscriptionsTable: {"UPDATE subscriptions ", "INSERT INTO subscriptions "},
	audiencesTable:     {"INSERT INTO event_audiences ", "DELETE FROM event_audiences "},
	linkifiersTable:    {"INSERT INTO linkifiers ", "UPDATE linkifiers ", "DELETE FROM linkifiers "},
	groupSettingsTable: {"INSERT INTO group_settings ", "UPDATE group_settings ", "DELETE FROM group_settings "},
	userTopicsTable:    {"INSERT INTO user_topics ", "UPDATE user_topics ", "DELETE FROM user_topics "},
	mutedUsersTable:    {"INSERT INTO muted_users ", "UPDATE muted_users ", "DELETE FROM muted_users "},
	alertWordsTable:    {"INSERT INTO alert_words ", "UPDATE alert_words ", "DELETE FROM alert_words "},
}

// tableSet is a set of cached tables.
type tableSet uint16

func (s tableSet) has(t cachedTable) bool { return s&(1<<t) != 0 }

// changedTables returns the cached tables query may change.
func changedTables(query string) tableSet {
	var s tableSet
	for t, texts := range tableWrites {
		for _, text := range texts {
			if strings.Contains(query, text) {
				s |= 1 << t
				break
			}
		}
	}
	return s
}

// generations are the generations of the cached tables a transaction began
// at.
type generations [cachedTables]uint64

// rowCache keeps rows of the users, realms and streams tables between
// transactions: authenticating a request, reading its actor inside the write
// transaction and looking up its realm and channel then need no statement
// while those tables are unchanged. Users are found by id and by API key
// hash, channels by id and by realm and name key. It also keeps what a
// channel message's write reads besides: the channel's active subscribers
// (from subscriptions), the id of the log audience of a set of users (by
// its hash, from event_audiences), the realm's linkifiers version, and the
// lists of send_reads.go (the sender's subscriptions, the channel's group
// settings, the topic's policies, the sender's muters, the realm's alert
// words), each from its one table.
//
// It relies on the Store being the only writer of its file (see
// [WithRowCache]): every committed change to a cached table then passes
// through the writer, whose transaction notes the change (tx.prepare sees
// the statement's text) and bumps the table's generation once it has
// committed, before its Updates return. An entry is served only while its
// table's generation still has the value it had when the transaction that
// read the row began, and only to a transaction that began at that same
// value. For an Update that is exact: it runs on the writer while no other
// transaction commits, so its snapshot holds exactly the row the entry was
// read from. A View takes its SQLite snapshot at its first statement, a
// little after it took the generations, so a row it reads from the cache is
// the row as some moment of the View's run saw it, and may predate a commit
// its snapshot includes (one that committed in the moment before its
// generation bump). A write transaction that has changed a table (or shares
// its SQLite transaction with an Update that has) neither reads nor fills
// that table's entries.
//
// A write of one user's row alone (UpdateUser, UpdateUserSettings) leaves the
// users generation be, so that one user's change does not drop every user's
// entry: it is counted instead (userWrites), and the count it was given is
// kept as that user's last change. A user's entry is served only when that
// change was counted before both the transaction that read it and the one
// asking began.
type rowCache struct {
	gens        [cachedTables]atomic.Uint64
	userWrites  atomic.Uint64
	changedMu   sync.RWMutex
	userChanged map[store.UserID]uint64 // by changedMu
	users       *fifocache.Cache[store.UserID, entry[store.User]]
	userKeys    *fifocache.Cache[string, entry[store.UserID]]
	realms      *fifocache.Cache[store.RealmID, entry[store.Realm]]
	streams     *fifocache.Cache[store.StreamID, entry[store.Stream]]
	streamNames *fifocache.Cache[streamName, entry[store.StreamID]]
	subscribers *fifocache.Cache[store.StreamID, entry[[]store.UserID]]
	// realmUsers are realms' whole user lists (Users with a realm alone),
	// served only while no user row has changed since they were read.
	realmUsers *fifocache.Cache[store.RealmID, entry[[]store.User]]
	audiences  *fifocache.Cache[[sha256.Size]byte, entry[int64]]
	linkifiers *fifocache.Cache[store.RealmID, entry[int64]]
	// userSubscriptions are users' whole subscription lists (from
	// subscriptions).
	userSubscriptions *fifocache.Cache[store.UserID, entry[[]store.Subscription]]
	groupSettings     *fifocache.Cache[store.StreamID, entry[[]store.GroupSetting]]
	topicUserTopics   *fifocache.Cache[streamTopic, entry[[]store.UserTopic]]
	muters            *fifocache.Cache[store.UserID, entry[[]store.UserID]]
	alertWords        *fifocache.Cache[store.RealmID, entry[[]store.AlertWord]]
}

// entry is a cached row (or a row's id under one of its keys) and the
// generation of its table it was read at; for users, also the count of
// single-user writes when the reading transaction began.
type entry[V any] struct {
	row    V
	gen    uint64
	writes uint64
}

// streamName is a channel's realm and name key.
type streamName struct {
	realm store.RealmID
	key   string
}

// newRowCache returns a cache of at most size rows per table and lookup key;
// nil (no caching) when size is 0.
func newRowCache(size int) *rowCache {
	if size <= 0 {
		return nil
	}
	return &rowCache{
		userChanged: map[store.UserID]uint64{},
		users:       fifocache.New[store.UserID, entry[store.User]](size),
		userKeys:    fifocache.New[string, entry[store.UserID]](size),
		realms:      fifocache.New[store.RealmID, entry[store.Realm]](size),
		streams:     fifocache.New[store.StreamID, entry[store.Stream]](size),
		streamNames: fifocache.New[streamName, entry[store.StreamID]](size),
		subscribers: fifocache.New[store.StreamID, entry[[]store.UserID]](size),
		realmUsers:  fifocache.New[store.RealmID, entry[[]store.User]](realmUserLists),
		audiences:   fifocache.New[[sha256.Size]byte, entry[int64]](size),
		linkifiers:  fifocache.New[store.RealmID, entry[int64]](size),

		userSubscriptions: fifocache.New[store.UserID, entry[[]store.Subscription]](size),
		groupSettings:     fifocache.New[store.StreamID, entry[[]store.GroupSetting]](size),
		topicUserTopics:   fifocache.New[streamTopic, entry[[]store.UserTopic]](size),
		muters:            fifocache.New[store.UserID, entry[[]store.UserID]](size),
		alertWords:        fifocache.New[store.RealmID, entry[[]store.AlertWord]](size),
	}
}

// now returns the current generations (zero for a nil cache).
func (c *rowCache) now() generations {
	var g generations
	if c != nil {
		for t := range g {
			g[t] = c.gens[t].Load()
		}
	}
	return g
}

// userWritesNow returns the current count of single-user writes (zero for a
// nil cache).
func (c *rowCache) userWritesNow() uint64 {
	if c == nil {
		return 0
	}
	return c.userWrites.Load()
}

// changed records that a transaction that changed the tables of s, and the
// rows of users alone, has ended.
func (c *rowCache) changed(s tableSet, users []store.UserID) {
	if c == nil {
		return
	}
	for t := range cachedTables {
		if s.has(t) {
			c.gens[t].Add(1)
		}
	}
	if len(users) == 0 {
		return
	}
	c.changedMu.Lock()
	defer c.changedMu.Unlock()
	for _, u := range users {
		c.userChanged[u] = c.userWrites.Add(1)
	}
}

// userUnchanged reports whether no write of user id's row alone was counted
// after a transaction that began at count a, or one that began at count b.
func (c *rowCache) userUnchanged(id store.UserID, a, b uint64) bool {
	c.changedMu.RLock()
	last := c.userChanged[id]
	c.changedMu.RUnlock()
	return last <= min(a, b)
}

// get returns a copy of the row (or id) of m under k, as a transaction that
// began at generation at of table t may see it, when the cache holds it. An
// id found under a key and the row found under that id were then read at
// the same generation, so the row still has that key.
func get[K comparable, V any](c *rowCache, t cachedTable, at uint64, m *fifocache.Cache[K, entry[V]], k K) (*V, bool) {
	e, ok := getEntry(c, t, at, m, k)
	if !ok {
		return nil, false
	}
	return &e.row, true
}

// getEntry is get, returning the whole entry.
func getEntry[K comparable, V any](c *rowCache, t cachedTable, at uint64, m *fifocache.Cache[K, entry[V]], k K) (entry[V], bool) {
	e, ok := m.Get(k)
	if !ok || e.gen != at || c.gens[t].Load() != at {
		return entry[V]{}, false
	}
	return e, true
}

// put remembers row (or an id) under k, read by a transaction that began at
// generation at of table t (and, for users, at count writes of single-user
// writes).
func put[K comparable, V any](c *rowCache, t cachedTable, at, writes uint64, m *fifocache.Cache[K, entry[V]], k K, row *V) {
	if c.gens[t].Load() != at {
		return
	}
	m.Put(k, entry[V]{row: *row, gen: at, writes: writes}, func(old entry[V]) bool {
		return old.gen < at || old.gen == at && old.writes < writes
	})
}

// cachedUser returns user id from the cache, for t.
func (t *tx) cachedUser(id store.UserID) (*store.User, bool) {
	if !t.userCacheUsable(id) {
		return nil, false
	}
	e, ok := getEntry(t.rows, usersTable, t.gens[usersTable], t.rows.users, id)
	if !ok || !t.rows.userUnchanged(id, e.writes, t.userWrites) {
		return nil, false
	}
	return &e.row, true
}

// cacheUser remembers u, read by t.
func (t *tx) cacheUser(u *store.User) {
	if !t.userCacheUsable(u.ID) {
		return
	}
	at := t.gens[usersTable]
	put(t.rows, usersTable, at, t.userWrites, t.rows.users, u.ID, u)
	if u.APIKeyHash != "" {
		put(t.rows, usersTable, at, t.userWrites, t.rows.userKeys, u.APIKeyHash, &u.ID)
	}
}

// realmUserLists is how many realms' whole user lists the cache keeps: each
// is as large as the realm, so few are kept whatever the row cache's size.
const realmUserLists = 4

// cachedRealmUsers returns a copy of the whole user list of realm from the
// cache, for t. The list is served only when no write of any user's row was
// counted between the transaction that read it and the one asking, and the
// users table's generation is unchanged, so it is the list as both see it.
func (t *tx) cachedRealmUsers(realm store.RealmID) ([]store.User, bool) {
	if !t.cacheUsable(usersTable) || t.group != nil && len(t.group.users) > 0 {
		return nil, false
	}
	e, ok := getEntry(t.rows, usersTable, t.gens[usersTable], t.rows.realmUsers, realm)
	if !ok || e.writes != t.userWrites || t.rows.userWrites.Load() != t.userWrites {
		return nil, false
	}
	return slices.Clone(e.row), true
}

// cacheRealmUsers remembers users, the whole user list of realm read by t.
func (t *tx) cacheRealmUsers(realm store.RealmID, users []store.User) {
	if !t.cacheUsable(usersTable) || t.group != nil && len(t.group.users) > 0 ||
		t.rows.userWrites.Load() != t.userWrites {
		return
	}
	list := slices.Clone(users)
	put(t.rows, usersTable, t.gens[usersTable], t.userWrites, t.rows.realmUsers, realm, &list)
}

// cachedUserByKey returns the user whose API key hash is hash from the
// cache, for t. The user's row and the key's entry both pass
// userUnchanged, so the row still has that key.
func (t *tx) cachedUserByKey(hash string) (*store.User, bool) {
	if !t.cacheUsable(usersTable) {
		return nil, false
	}
	e, ok := getEntry(t.rows, usersTable, t.gens[usersTable], t.rows.userKeys, hash)
	if !ok || !t.rows.userUnchanged(e.row, e.writes, t.userWrites) {
		return nil, false
	}
	return t.cachedUser(e.row)
}

// cachedRealm returns realm id from the cache, for t.
func (t *tx) cachedRealm(id store.RealmID) (*store.Realm, bool) {
	if !t.cacheUsable(realmsTable) {
		return nil, false
	}
	return get(t.rows, realmsTable, t.gens[realmsTable], t.rows.realms, id)
}

// cacheRealm remembers r, read by t.
func (t *tx) cacheRealm(r *store.Realm) {
	if t.cacheUsable(realmsTable) {
		put(t.rows, realmsTable, t.gens[realmsTable], 0, t.rows.realms, r.ID, r)
	}
}

// cachedStream returns channel id from the cache, for t.
func (t *tx) cachedStream(id store.StreamID) (*store.Stream, bool) {
	if !t.cacheUsable(streamsTable) {
		return nil, false
	}
	return get(t.rows, streamsTable, t.gens[streamsTable], t.rows.streams, id)
}

// cachedStreamByName returns the channel of realm whose name key is key
// from the cache, for t.
func (t *tx) cachedStreamByName(realm store.RealmID, key string) (*store.Stream, bool) {
	if !t.cacheUsable(streamsTable) {
		return nil, false
	}
	id, ok := get(t.rows, streamsTable, t.gens[streamsTable], t.rows.streamNames, streamName{realm, key})
	if !ok {
		return nil, false
	}
	return t.cachedStream(*id)
}

// cacheStream remembers s, read by t.
func (t *tx) cacheStream(s *store.Stream) {
	if !t.cacheUsable(streamsTable) {
		return
	}
	at := t.gens[streamsTable]
	put(t.rows, streamsTable, at, 0, t.rows.streams, s.ID, s)
	put(t.rows, streamsTable, at, 0, t.rows.streamNames, streamName{s.RealmID, store.FoldKey(s.Name)}, &s.ID)
}

// lookup returns the value the cache holds under k in the map of table
// that of selects, for t.
func lookup[K comparable, V any](t *tx, table cachedTable, of func(*rowCache) *fifocache.Cache[K, entry[V]], k K) (V, bool) {
	var zero V
	if !t.cacheUsable(table) {
		return zero, false
	}
	v, ok := get(t.rows, table, t.gens[table], of(t.rows), k)
	if !ok {
		return zero, false
	}
	return *v, true
}

// remember stores v under k in the map of table that of selects, read by t.
func remember[K comparable, V any](t *tx, table cachedTable, of func(*rowCache) *fifocache.Cache[K, entry[V]], k K, v V) {
	if t.cacheUsable(table) {
		put(t.rows, table, t.gens[table], 0, of(t.rows), k, &v)
	}
}

// The maps lookup and remember serve: channels' active subscribers, log
// audiences' ids by hash, realms' linkifier versions.
func subscribersMap(c *rowCache) *fifocache.Cache[store.StreamID, entry[[]store.UserID]] {
	return c.subscribers
}
func audiencesMap(c *rowCache) *fifocache.Cache[[sha256.Size]byte, entry[int64]] { return c.audiences }
func linkifiersMap(c *rowCache) *fifocache.Cache[store.RealmID, entry[int64]]    { return c.linkifiers }
