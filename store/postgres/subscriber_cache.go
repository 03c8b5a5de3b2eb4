package postgres

import (
	"slices"

	"github.com/chatcore/chatcore/internal/fifocache"
	"github.com/chatcore/chatcore/store"
)

// subscriberCache holds the active subscribers of the Store's big streams,
// each list with the version of it that it was read at (the stream's
// subscribers_version, which every change of the list replaces with a new
// value of one sequence: a version names one stream's list at one point,
// whichever transaction reads it). A read of a stream's subscribers sends
// the version it holds, and the server sends the list only when the
// stream's version in the transaction's snapshot is another (see
// subscribersCols): the answer is the list as the transaction sees it
// either way. Under serializable isolation the read of the stream's row
// conflicts with a concurrent change of its subscribers as the read of
// their rows would, since the change writes the row's version. A list read
// in a transaction that then rolls back may hold changes that never
// commit, but its version is never taken again, so it is never sent.
//
// Safe for concurrent use; a nil *subscriberCache holds nothing.
type subscriberCache struct {
	byID *fifocache.Cache[store.StreamID, subscriberList]
	// byName finds the stream a read by name will most likely find.
	byName *fifocache.Cache[streamKey, store.StreamID]
}

// subscriberList is a stream's active subscribers, ascending, at version.
type subscriberList struct {
	version int64
	ids     []store.UserID
}

const (
	// cachedStreams bounds the lists a Store keeps: at most this many
	// streams of up to a realm's users each (15,000 users: 120 kB a list).
	cachedStreams = 256
	// minCachedSubscribers is the shortest list kept: a shorter one costs
	// the server little to send again.
	minCachedSubscribers = 64
)

func newSubscriberCache() *subscriberCache {
	return &subscriberCache{byID: fifocache.New[store.StreamID, subscriberList](cachedStreams),
		byName: fifocache.New[streamKey, store.StreamID](cachedStreams)}
}

// noVersion is the version a read sends when it holds no list: versions
// are positive.
const noVersion int64 = 0

// held returns the list held for stream id, or one with noVersion.
func (c *subscriberCache) held(id store.StreamID) subscriberList {
	if c == nil {
		return subscriberList{}
	}
	l, _ := c.byID.Get(id)
	return l
}

// heldByName returns the list held for the stream named k was last found
// to be, or one with noVersion.
func (c *subscriberCache) heldByName(k streamKey) subscriberList {
	if c == nil {
		return subscriberList{}
	}
	if id, ok := c.byName.Get(k); ok {
		return c.held(id)
	}
	return subscriberList{}
}

// answer returns the subscribers of a stream read with the list held
// (sent): the stream's version in the read was version and the list it
// sent ids (nil when the version was sent's). A list the read sent is
// kept when it is long enough and newer than the one held; a stream found
// by name k (zero for a read by id) is remembered under its name. The
// caller may change the slice returned.
func (c *subscriberCache) answer(id store.StreamID, k streamKey, sent subscriberList, version int64, ids []store.UserID) []store.UserID {
	if sent.version != noVersion && version == sent.version {
		return slices.Clone(sent.ids)
	}
	if c != nil && len(ids) >= minCachedSubscribers {
		c.byID.Put(id, subscriberList{version: version, ids: slices.Clone(ids)}, func(old subscriberList) bool { return old.version < version })
		if k != (streamKey{}) {
			c.byName.Put(k, id, func(store.StreamID) bool { return true })
		}
	}
	return ids
}

// subscribersCols are the columns of a stream's row that read its active
// subscribers: the stream's subscribers_version, and its subscribers
// unless that is the version the parameter v names (then NULL, and the
// subquery does not run).
func subscribersCols(v string) string {
	return "subscribers_version, CASE WHEN subscribers_version = " + v + " THEN NULL ELSE " + activeSubscribersOf("streams.id") + " END"
}
