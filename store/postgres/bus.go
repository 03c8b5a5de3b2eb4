package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
)

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
	subs map[int]func([]store.EventNotice)
	// from bounds what a lost listening connection may have lost: a notice
	// lost with it is about an entry above from (or one still being
	// appended when from was read, see catchUp). It is the log head read
	// when the connection started listening, then, while the connection
	// stays up, the head read one refresh before the last (busRefresh
	// apart, far longer than the notifier takes to send a committed
	// entry's NOTIFY), so a catch-up reads at most about two refreshes of
	// log. recent is the head read at the last refresh.
	from, recent int64
	// lost, when set, runs when the listening connection is lost, before
	// the Bus reconnects (tests).
	lost atomic.Pointer[func()]
}

// busRefresh is how long a Bus waits for a notification before it reads the
// log head again (see Bus.from), in nanoseconds; tests shorten it.
var busRefresh atomic.Int64

func init() { busRefresh.Store(int64(30 * time.Second)) }

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
	b := &Bus{store: s, subs: map[int]func([]store.EventNotice){}, done: make(chan struct{})}
	conn, err := b.listen(ctx)
	if err != nil {
		return nil, err
	}
	if b.from, err = logHead(ctx, conn); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	b.recent = b.from
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
func (b *Bus) Publish(notices []store.EventNotice) { b.deliver(notices) }

// Subscribe implements package eventqueue's Bus.
func (b *Bus) Subscribe(fn func([]store.EventNotice)) (stop func()) {
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

func (b *Bus) deliver(notices []store.EventNotice) {
	b.mu.Lock()
	fns := make([]func([]store.EventNotice), 0, len(b.subs))
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
		wait, cancel := context.WithTimeout(ctx, time.Duration(busRefresh.Load()))
		n, err := conn.WaitForNotification(wait)
		cancel()
		if err != nil && wait.Err() != nil && ctx.Err() == nil {
			// Nothing for a while: move from forward (see Bus.from).
			head, err := logHead(ctx, conn)
			if err != nil {
				return err
			}
			b.mu.Lock()
			b.from, b.recent = b.recent, head
			b.mu.Unlock()
			continue
		}
		if err != nil {
			return err
		}
		var p wirePayload
		if json.Unmarshal([]byte(n.Payload), &p) != nil || p.Instance == b.store.notify.instance {
			continue
		}
		out := make([]store.EventNotice, len(p.Notices))
		for i, w := range p.Notices {
			out[i] = store.EventNotice{RealmID: w.Realm, UserIDs: w.Users, Public: w.Public, LastID: w.LastID}
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
	b.from, b.recent = head, head
	b.mu.Unlock()
	// The users of each realm's distinct audiences (many entries share one).
	rows, err := conn.Query(ctx, `WITH x AS (
			SELECT realm_id, bool_or(public) AS public, max(id) AS top, array_agg(DISTINCT audience_id) AS audiences
			FROM event_log WHERE id > $1 GROUP BY realm_id
		)
		SELECT x.realm_id, x.public, x.top,
			coalesce((SELECT array_agg(DISTINCT u.user_id) FROM event_audience_users u WHERE u.audience_id = ANY(x.audiences)), '{}')
		FROM x`, from)
	if err != nil {
		return err
	}
	var out []store.EventNotice
	for rows.Next() {
		var n store.EventNotice
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
