package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/jackc/pgx/v5"
)

// Cross-instance wake-ups. Once an Update that appended events has
// committed, the Store sends a NOTIFY on its channel carrying the realms,
// users and highest id of what it appended and the Store's instance id
// (notifyCommitted). PostgreSQL delivers a NOTIFY to every listening
// session. A [Bus] listens on one dedicated connection and hands the notices
// of other instances to its subscribers (package eventqueue wakes the polls
// waiting for them); the notices of its own instance it delivers at once
// through Publish, without the round trip.

// maxPayload bounds a NOTIFY payload below PostgreSQL's 8000 bytes; a larger
// notice is split into several NOTIFYs by its users.
const maxPayload = 7000

// notifier is how a Store's transactions announce appended events.
type notifier struct {
	channel  string
	instance string
}

// wireNotice is one notice in a NOTIFY payload.
type wireNotice struct {
	Realm  chatcore.RealmID  `json:"r"`
	Users  []chatcore.UserID `json:"u,omitempty"`
	Public bool              `json:"p,omitempty"`
	LastID int64             `json:"l"`
}

// wirePayload is a NOTIFY payload.
type wirePayload struct {
	Instance string       `json:"i"`
	Notices  []wireNotice `json:"n"`
}

// notices groups events as the Service's commit notices do
// ([chatcore.EventNotices]), in the NOTIFY payload's form.
func notices(events []chatcore.LoggedEvent) []wireNotice {
	grouped := chatcore.EventNotices(events)
	out := make([]wireNotice, len(grouped))
	for i, n := range grouped {
		out[i] = wireNotice{Realm: n.RealmID, Users: n.UserIDs, Public: n.Public, LastID: n.LastID}
	}
	return out
}

// payloads encodes the notices of events as NOTIFY payloads of at most
// maxPayload bytes.
func (n *notifier) payloads(events []chatcore.LoggedEvent) []string {
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

// WithoutNotify turns off the NOTIFY of AppendEvents, for a Store that is
// the only one on its database and has no [Bus].
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

// Bus carries event notices between the server instances of one database;
// it implements package eventqueue's Bus (Publish, Subscribe), to be given
// to eventqueue.New as Options.Bus. Notices of other instances arrive
// through LISTEN on one dedicated connection, normally within a few
// milliseconds of their commit; when that connection breaks, the Bus
// reconnects (waiting at most [BusRetry] between attempts) and then hands
// its subscribers one notice per realm for every entry appended in the
// meantime. A notice can still be lost (the committing process died before
// its NOTIFY, or see catchUp); a lost notice loses no event, it only leaves
// the polls it would have woken waiting for their user's next event or
// their heartbeat. Close it when done.
type Bus struct {
	store  *Store
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	next int
	subs map[int]func([]chatcore.EventNotice)
	// from is the highest log id committed when the current listening
	// connection started listening: a notice lost with that connection is
	// about an entry above it (or one still being appended then, see
	// catchUp).
	from int64
	// lost, when set, runs when the listening connection is lost, before
	// the Bus reconnects (tests).
	lost atomic.Pointer[func()]
}

// BusRetry is the longest pause between two attempts of a [Bus] to
// reconnect its listening connection.
const BusRetry = 2 * time.Second

// Bus starts listening for the notices of other instances on a connection
// of its own, made with the pool's connection settings. It returns once
// LISTEN is in place (so no later commit is missed), or with ctx's error or
// the connection error of the first attempt.
func (s *Store) Bus(ctx context.Context) (*Bus, error) {
	if s.notify == nil {
		return nil, errors.New("postgres: bus: the store was opened WithoutNotify")
	}
	b := &Bus{store: s, subs: map[int]func([]chatcore.EventNotice){}, done: make(chan struct{})}
	conn, err := b.listen(ctx)
	if err != nil {
		return nil, err
	}
	if b.from, err = logHead(ctx, conn); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	go b.run(runCtx, conn)
	return b, nil
}

// listen opens the listening connection.
func (b *Bus) listen(ctx context.Context) (*pgx.Conn, error) {
	cfg := b.store.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = busApplicationName(b.store.notify.channel)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{b.store.notify.channel}.Sanitize()); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// busApplicationName is the application_name of a Bus's listening
// connection (pg_stat_activity shows it).
func busApplicationName(channel string) string {
	name := "chatcore bus " + channel
	return name[:min(len(name), 63)]
}

// Publish implements package eventqueue's Bus: it hands this instance's
// notices to the subscribers at once (other instances get them through
// PostgreSQL).
func (b *Bus) Publish(notices []chatcore.EventNotice) { b.deliver(notices) }

// Subscribe implements package eventqueue's Bus.
func (b *Bus) Subscribe(fn func([]chatcore.EventNotice)) (stop func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.next
	b.next++
	b.subs[id] = fn
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs, id)
	}
}

// Close stops listening and waits for the listening goroutine to end.
func (b *Bus) Close() {
	b.cancel()
	<-b.done
}

func (b *Bus) deliver(notices []chatcore.EventNotice) {
	b.mu.Lock()
	fns := make([]func([]chatcore.EventNotice), 0, len(b.subs))
	for _, fn := range b.subs {
		fns = append(fns, fn)
	}
	b.mu.Unlock()
	for _, fn := range fns {
		fn(notices)
	}
}

// run receives notifications until ctx ends, reconnecting when the
// connection breaks.
func (b *Bus) run(ctx context.Context, conn *pgx.Conn) {
	defer close(b.done)
	pause := 50 * time.Millisecond
	for {
		err := b.receive(ctx, conn)
		conn.Close(context.Background())
		if ctx.Err() != nil {
			return
		}
		b.store.logf("postgres: bus: listening connection lost, reconnecting: %v", err)
		if fn := b.lost.Load(); fn != nil {
			(*fn)()
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
			pause = min(2*pause, BusRetry)
			c, err := b.listen(ctx)
			if err == nil {
				conn, pause = c, 50*time.Millisecond
				break
			}
		}
		if err := b.catchUp(ctx, conn); err != nil {
			b.store.logf("postgres: bus: catching up after reconnecting: %v", err)
		}
	}
}

// receive hands out the notifications of other instances until the
// connection fails or ctx ends.
func (b *Bus) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		var p wirePayload
		if json.Unmarshal([]byte(n.Payload), &p) != nil || p.Instance == b.store.notify.instance {
			continue
		}
		out := make([]chatcore.EventNotice, len(p.Notices))
		for i, w := range p.Notices {
			out[i] = chatcore.EventNotice{RealmID: w.Realm, UserIDs: w.Users, Public: w.Public, LastID: w.LastID}
		}
		b.deliver(out)
	}
}

// logHead returns the highest id in the log.
func logHead(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var id int64
	err := conn.QueryRow(ctx, "SELECT coalesce(max(id), 0) FROM event_log").Scan(&id)
	return id, err
}

// catchUp, on the new connection conn, hands out one notice per realm for
// the entries appended after the lost connection started listening: those
// whose NOTIFY may have been lost with it. (Appends of different realms
// commit out of id order, so an entry at or below that point that was still
// being appended then and whose NOTIFY was lost too is not caught up: its
// polls wake with the next event of their users or at their heartbeat.)
func (b *Bus) catchUp(ctx context.Context, conn *pgx.Conn) error {
	head, err := logHead(ctx, conn)
	if err != nil {
		return err
	}
	b.mu.Lock()
	from := b.from
	b.from = head
	b.mu.Unlock()
	rows, err := conn.Query(ctx, `SELECT e.realm_id, bool_or(e.public), max(e.id),
			coalesce(array_agg(DISTINCT u.user_id) FILTER (WHERE u.user_id IS NOT NULL), '{}')
		FROM event_log e LEFT JOIN event_users u ON u.event_id = e.id
		WHERE e.id > $1 GROUP BY e.realm_id`, from)
	if err != nil {
		return err
	}
	var out []chatcore.EventNotice
	for rows.Next() {
		var n chatcore.EventNotice
		if err := rows.Scan(&n.RealmID, &n.Public, &n.LastID, &n.UserIDs); err != nil {
			rows.Close()
			return err
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(out) > 0 {
		b.deliver(out)
	}
	return nil
}
