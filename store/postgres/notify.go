package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Cross-instance wake-ups. Once an Update that appended events has
// committed, the Store's notifier sends a NOTIFY on its channel carrying the
// realms, users and highest id of what it appended and the Store's instance
// id. PostgreSQL delivers a NOTIFY to every listening session. A [Bus]
// listens on one dedicated connection and hands the notices of other
// instances to its subscribers (package eventqueue wakes the polls waiting
// for them); the notices of its own instance it delivers at once through
// Publish, without the round trip.

// maxPayload bounds a NOTIFY payload below PostgreSQL's 8000 bytes; a larger
// notice is split into several NOTIFYs by its users.
const maxPayload = 7000

// notifier announces the events of committed Updates. Updates hand it their
// events (committed); one goroutine groups whatever has queued up since its
// last round into notices and sends them in one statement, a transaction of
// its own: PostgreSQL serialises the commits of all transactions that
// NOTIFY, in every database of the server, holding a lock until the commit
// is done, so a NOTIFY inside the write transactions would make every write
// with events, of any realm, wait for the others' commits to reach the disk.
// A transaction that only notifies writes no WAL but its commit record,
// which PostgreSQL then does not wait to flush, and a notification lost in a
// crash only delays a wake-up (see [Bus]), it loses no event. Sending after
// the commit, off the request's path, also takes a round trip out of every
// write.
type notifier struct {
	channel  string
	instance string
	pool     *pgxpool.Pool
	logf     func(format string, args ...any)
	queue    chan []store.LoggedEvent
	done     chan struct{}
	stopOnce sync.Once
}

// notifyQueue bounds the commits waiting to be announced; an Update that
// finds the queue full waits for room.
const notifyQueue = 4096

// notifyTimeout bounds one round of notifications.
const notifyTimeout = 5 * time.Second

// startNotifier starts the notifier of a Store on pool.
func startNotifier(pool *pgxpool.Pool, channel string, logf func(string, ...any)) *notifier {
	n := &notifier{channel: channel, instance: newInstanceID(), pool: pool, logf: logf,
		queue: make(chan []store.LoggedEvent, notifyQueue), done: make(chan struct{})}
	go n.run()
	return n
}

// committed queues the events a committed Update appended; the notifier
// encodes them off the Update's path.
func (n *notifier) committed(events []store.LoggedEvent) { n.queue <- events }

// stop sends what is queued and stops the notifier; no Update may commit
// afterwards. Calls after the first only wait for the first to finish.
func (n *notifier) stop() {
	n.stopOnce.Do(func() { close(n.queue) })
	<-n.done
}

// run announces the queued events until stop, each round everything queued
// since the last one, grouped into one notice per realm.
func (n *notifier) run() {
	defer close(n.done)
	for first := range n.queue {
		events := first
	more:
		for commits := 1; commits < notifyQueue; commits++ {
			select {
			case next, ok := <-n.queue:
				if !ok {
					break more
				}
				events = append(events[:len(events):len(events)], next...)
			default:
				break more
			}
		}
		batch := n.payloads(events)
		ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
		_, err := n.pool.Exec(ctx, "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS u(p)", n.channel, batch)
		cancel()
		if err != nil {
			n.logf("postgres: announcing committed events: %v", err)
		}
	}
}

// wireNotice is one notice in a NOTIFY payload.
type wireNotice struct {
	Realm  store.RealmID  `json:"r"`
	Users  []store.UserID `json:"u,omitempty"`
	Public bool           `json:"p,omitempty"`
	LastID int64          `json:"l"`
}

// wirePayload is a NOTIFY payload.
type wirePayload struct {
	Instance string       `json:"i"`
	Notices  []wireNotice `json:"n"`
}

// notices groups events as the Service's commit notices do
// ([store.EventNotices]), in the NOTIFY payload's form.
func notices(events []store.LoggedEvent) []wireNotice {
	grouped := store.EventNotices(events)
	out := make([]wireNotice, len(grouped))
	for i, n := range grouped {
		out[i] = wireNotice{Realm: n.RealmID, Users: n.UserIDs, Public: n.Public, LastID: n.LastID}
	}
	return out
}

// payloads encodes the notices of events as NOTIFY payloads of at most
// maxPayload bytes.
func (n *notifier) payloads(events []store.LoggedEvent) []string {
	var out []string
	cur := wirePayload{Instance: n.instance}
	size := 0
	flush := func() {
		if len(cur.Notices) > 0 {
			b, _ := json.Marshal(cur)
			out = append(out, string(b))
		}
		cur.Notices, size = nil, 0
	}
	for _, no := range notices(events) {
		// Users cost at most 21 bytes each; split a notice whose users
		// would not fit.
		for first := true; first || len(no.Users) > 0; first = false {
			part := no
			room := max((maxPayload-size-64)/21, 0)
			if len(part.Users) > room {
				if room < 16 && len(cur.Notices) > 0 {
					flush()
					room = (maxPayload - 64) / 21
				}
				part.Users = no.Users[:min(room, len(no.Users))]
			}
			no.Users = no.Users[len(part.Users):]
			cur.Notices = append(cur.Notices, part)
			size += 64 + 21*len(part.Users)
			if len(no.Users) > 0 {
				flush()
			}
		}
	}
	flush()
	return out
}

// WithoutNotify turns off the NOTIFY that announces committed events, for a
// Store that is the only one on its database and has no [Bus].
func WithoutNotify() Option { return func(c *config) { c.noNotify = true } }

// channelName is the NOTIFY channel of a store in schema ("" for the
// connection's search path).
func channelName(schema string) string {
	if schema == "" {
		return "chatcore_events"
	}
	return "chatcore_events_" + schema
}

// newInstanceID returns a random id for a Store.
func newInstanceID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
