package postgres

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"time"

	"github.com/chatcore/chatcore/internal/slicex"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// appendLockSeed seeds the hash of the advisory lock keys AppendEvents takes
// (one per realm, from the schema and the realm id).
const appendLockSeed = 0x65766e74 // "evnt"

// appendEventsSQL takes the append lock of each realm of the entries, in
// ascending realm order (held until the transaction ends, so a realm's ids
// follow commit order: a transaction that appends to a realm waits for the
// one appending to it before to commit or roll back, and appends to other
// realms do not wait), then takes one id per entry in the given order, sets
// each entry's group_start (the group's first id), inserts the entries, and
// returns the ids in order. Each entry names its audience ($6: 0 for none,
// else the 1-based position of its hash in $7): an audience the log has is
// found by its hash, one it lacks is added with its users ($8[$9:$10], the
// audience's first and last in $8). Adding one writes a row per user once;
// every later entry of the same users (the next message to the channel)
// writes none. (The users are sliced by audience so that those of the
// audiences found are never read, and an audience is looked up by a
// subquery, through the hash's index whatever the plan.) An audience
// another transaction adds meanwhile fails this one to serialise (ON
// CONFLICT meets a row its snapshot does not see), and it runs again. The
// lock keys live in the single-bigint space of advisory locks, apart from
// the migration lock's two-integer key.
const appendEventsSQL = `WITH l AS MATERIALIZED (
		SELECT count(pg_advisory_xact_lock(hashtextextended(current_schema() || '/' || realm, $1)))
		FROM (SELECT DISTINCT realm FROM unnest($2::bigint[]) AS u(realm) ORDER BY realm) r
	), known AS MATERIALIZED (
		SELECT a.ord, a.hash, a.first, a.last, (SELECT x.id FROM event_audiences x WHERE x.hash = a.hash) AS id
		FROM unnest($7::bytea[], $9::int[], $10::int[]) WITH ORDINALITY AS a(hash, first, last, ord)
	), added AS (
		INSERT INTO event_audiences (hash) SELECT hash FROM known WHERE id IS NULL ORDER BY ord
		ON CONFLICT (hash) DO NOTHING RETURNING id, hash
	), added_users AS (
		INSERT INTO event_audience_users (user_id, audience_id)
		SELECT u.user_id, n.id FROM added n JOIN known k ON k.hash = n.hash,
			unnest(($8::bigint[])[k.first:k.last]) AS u(user_id)
	), e AS MATERIALIZED (
		SELECT nextval('event_log_id_seq') AS id, r.realm, r.public, r.grp, r.data, r.aud, r.ord
		FROM l, unnest($2::bigint[], $3::boolean[], $4::bigint[], $5::text[], $6::bigint[]) WITH ORDINALITY AS r(realm, public, grp, data, aud, ord)
	), g AS MATERIALIZED (
		SELECT e.*, CASE WHEN grp = 0 THEN id ELSE min(id) OVER (PARTITION BY grp) END AS start FROM e
	), ins AS (
		INSERT INTO event_log (id, realm_id, public, group_start, data, audience_id)
		SELECT g.id, g.realm, g.public, g.start, g.data::json, CASE WHEN g.aud = 0 THEN 0 ELSE coalesce(k.id, n.id) END
		FROM g LEFT JOIN known k ON k.ord = g.aud LEFT JOIN added n ON n.hash = k.hash
	)
	SELECT id FROM g ORDER BY ord`

// AppendEvents implements [store.EventStore] with one statement for the
// entries and their audiences (under the append locks of their realms, see
// appendEventsSQL). The statement is not sent at once: it goes to the server
// in one batch with the transaction's COMMIT, or before the transaction's
// next statement when it has one (see lazyTx.enqueueKind), and the ids are
// filled in then. Sent with the COMMIT, the append locks are held while the
// server runs the two, never across a round trip to this process, and the
// write saves a round trip. In a write group the appends of its Updates go
// with the group's COMMIT as one statement (see writeGroups). Unless the
// store was opened without notifications, the Update that committed the
// entries then announces them to every listening instance (see [Store.Bus]
// and notifier).
func (t *tx) AppendEvents(ctx context.Context, events []store.LoggedEvent) error {
	if err := t.writable(); err != nil {
		return err
	}
	if err := t.usable(); err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	a := &pendingAppend{events: events}
	// On its generic plan (see onGenericPlan): the plans made for the
	// arrays of an append are no better, and planning it costs more than
	// running it.
	_, err := onGenericPlan(t, func() (struct{}, error) {
		t.tx.enqueueKind(aheadStmt{sql: appendEventsSQL, args: appendArgs([]*pendingAppend{a}), kind: aheadAppend, append: a,
			read: t.readAppended(a)})
		return struct{}{}, nil
	})
	return err
}

// logReadable fails with errRegroup in an Update of a write group whose
// earlier Updates have appends waiting for the group's COMMIT (see
// lazyTx.deferred): a read of the log would miss them, so the Update runs
// again in a transaction of its own.
func (t *tx) logReadable() error {
	if len(t.tx.deferred) > 0 {
		return errRegroup
	}
	return nil
}

// pendingAppend is one AppendEvents call's entries, on their way to the
// server.
type pendingAppend struct {
	events []store.LoggedEvent
}

// appendArgs returns the arguments of appendEventsSQL for the entries of
// appends, in order, with each distinct audience (set of users) once.
func appendArgs(appends []*pendingAppend) []any {
	var (
		realms, groups, auds, users []int64
		public                      []bool
		data                        []string
		hashes                      [][]byte
		firsts, lasts               []int32
	)
	index := map[[sha256.Size]byte]int64{}
	for _, a := range appends {
		for _, e := range a.events {
			var aud int64 // 0: no users
			if len(e.UserIDs) > 0 {
				set := slicex.SortedSet(e.UserIDs)
				h := sqlstore.AudienceHash(set)
				var ok bool
				if aud, ok = index[h]; !ok {
					hashes = append(hashes, h[:])
					aud = int64(len(hashes))
					index[h] = aud
					firsts = append(firsts, int32(len(users)+1))
					for _, u := range set {
						users = append(users, int64(u))
					}
					lasts = append(lasts, int32(len(users)))
				}
			}
			realms, public, groups, data, auds = append(realms, int64(e.RealmID)), append(public, e.Public),
				append(groups, e.Group), append(data, string(e.Data)), append(auds, aud)
		}
	}
	return []any{appendLockSeed, realms, public, groups, data, auds, hashes, users, firsts, lasts}
}

// mergedAppend returns the one statement that appends the entries of
// appends, in order: a write group's appends, sent with its COMMIT. One
// statement takes every realm's append lock in one order, ascending, as two
// groups committing at once must (separate statements could take them in
// opposite orders). Entries of different appends never share a group (a
// group is one message's, appended by one call).
func mergedAppend(appends []*pendingAppend) aheadStmt {
	return aheadStmt{sql: appendEventsSQL, args: appendArgs(appends), kind: aheadAppend,
		read: func(br pgx.BatchResults) error { return readAppendedIDs(br, appends) }}
}

// readAppended reads the result of the append of a: its entries' ids.
func (t *tx) readAppended(a *pendingAppend) func(pgx.BatchResults) error {
	return func(br pgx.BatchResults) error {
		if err := readAppendedIDs(br, []*pendingAppend{a}); err != nil {
			return err
		}
		if t.notify != nil {
			t.appended = append(t.appended, a.events...)
		}
		return nil
	}
}

// readAppendedIDs reads the ids an append statement returns, the next
// result of br, into the entries of appends, in order.
func readAppendedIDs(br pgx.BatchResults, appends []*pendingAppend) error {
	rows, err := br.Query()
	if err == nil {
		err = scanAppended(rows, appends)
		rows.Close()
	}
	return classify(err, "append events")
}

// scanAppended reads the ids the append statement returns into the entries
// of appends, in order.
func scanAppended(rows pgx.Rows, appends []*pendingAppend) error {
	total := 0
	for _, a := range appends {
		total += len(a.events)
	}
	n := 0 // the ids read
	for _, a := range appends {
		for i := range a.events {
			if !rows.Next() {
				if err := rows.Err(); err != nil {
					return err
				}
				return fmt.Errorf("postgres: append events: %d ids for %d events", n, total)
			}
			if err := rows.Scan(&a.events[i].ID); err != nil {
				return err
			}
			n++
		}
	}
	if rows.Next() {
		return fmt.Errorf("postgres: append events: more ids than %d events", total)
	}
	return rows.Err()
}

// LastEventID implements [store.EventStore] from the transaction's
// snapshot: the highest id of the realm's entries (of any realm's for realm
// 0), or the highest id of the realm's entries ever pruned when that is
// higher. (The sequence itself also counts ids taken by transactions still
// running or rolled back, which a snapshot must not: a queue positioned
// after an id its registration did not see would miss that event.) A
// realm's appends follow commit order, so every id of the realm at or below
// the result that was ever appended is in the snapshot or pruned. (Two
// statements rather than one with "$1 = 0 OR realm_id = $1": a cached
// generic plan of that one may scan the whole log backwards by id for a
// realm without recent entries.)
func (t *tx) LastEventID(ctx context.Context, realm store.RealmID) (int64, error) {
	if err := t.logReadable(); err != nil {
		return 0, err
	}
	if head, ok := take(t.answers().heads, realm); ok {
		return head, nil
	}
	var id int64
	var err error
	if realm == 0 {
		err = t.queryRow(ctx, `SELECT greatest((SELECT coalesce(max(id), 0) FROM event_log),
			(SELECT coalesce(max(pruned_through), 0) FROM event_log_pruned))`).Scan(&id)
	} else {
		err = t.queryRow(ctx, "SELECT "+realmHead("$1"), realm).Scan(&id)
	}
	return id, classify(err, "last event id")
}

// realmHead is the SQL expression of LastEventID for the realm id the
// expression realm gives.
func realmHead(realm string) string {
	return `greatest((SELECT coalesce(max(id), 0) FROM event_log WHERE realm_id = ` + realm + `),
		(SELECT coalesce(max(pruned_through), 0) FROM event_log_pruned WHERE realm_id = ` + realm + `))`
}

// eventsForSQL selects the entries of an EventLogQuery: the user's, then
// (when the query asks for them) the realm's public entries that no entry
// of their group addresses to the user. The user's entries are found one of
// two ways, whichever the first parts (h, p) pick: testing the audience
// of every entry of the realm after the query's bound, cheapest when few
// entries follow it (a queue that keeps up, the common poll), or walking
// the user's audiences through event_log_audience, whose cost grows with
// how many audiences the user is in (one per channel and conversation with
// live entries), cheaper for a queue far behind. The scan is chosen while
// the bound is at most scanGap ids behind the realm's last entry, or at
// most scanPerAudience times the user's audiences (the walk then reads and
// sorts about as many entries). The branch not picked does not run (its
// condition is a one-time filter). Arguments: $1 user, $2 after, $3 realm,
// $4 public.
var eventsForSQL = `
WITH h AS MATERIALIZED (
	SELECT coalesce((SELECT max(id) FROM event_log WHERE realm_id = $3), 0) - $2 AS gap
), p AS MATERIALIZED (
	SELECT gap <= ` + strconv.Itoa(scanGap) + ` OR gap <= ` + strconv.Itoa(scanPerAudience) + ` * (SELECT count(*) FROM event_audience_users WHERE user_id = $1) AS scan FROM h
)
SELECT e.id, e.realm_id, e.public, e.data::text FROM event_log e
WHERE (SELECT scan FROM p) AND e.realm_id = $3 AND e.id > $2
  AND EXISTS (SELECT 1 FROM event_audience_users a WHERE a.user_id = $1 AND a.audience_id = e.audience_id)
UNION ALL
SELECT e.id, e.realm_id, e.public, e.data::text FROM event_audience_users a JOIN event_log e ON e.audience_id = a.audience_id
WHERE NOT (SELECT scan FROM p) AND a.user_id = $1 AND e.id > $2 AND e.realm_id = $3
UNION ALL
SELECT e.id, e.realm_id, e.public, e.data::text FROM event_log e
WHERE $4 AND e.public AND e.realm_id = $3 AND e.id > $2
  AND NOT EXISTS (SELECT 1 FROM event_log g JOIN event_audience_users ga ON ga.audience_id = g.audience_id AND ga.user_id = $1
    WHERE g.realm_id = $3 AND g.id BETWEEN e.group_start AND e.id)`

// scanGap and scanPerAudience set the plan of eventsForSQL.
const (
	scanGap         = 256
	scanPerAudience = 4
)

func eventsForArgs(q store.EventLogQuery) []any {
	return []any{q.UserID, q.After, q.RealmID, q.Public}
}

// EventsFor implements [store.EventStore].
func (t *tx) EventsFor(ctx context.Context, q store.EventLogQuery) ([]store.LoggedEvent, error) {
	if err := t.logReadable(); err != nil {
		return nil, err
	}
	query := eventsForSQL + " ORDER BY 1"
	args := eventsForArgs(q)
	if q.Limit > 0 {
		query += " LIMIT $5"
		args = append(args, q.Limit)
	}
	return scanAll(ctx, t, "events", func(r pgx.Rows, e *store.LoggedEvent) error {
		var data string
		err := r.Scan(&e.ID, &e.RealmID, &e.Public, &data)
		e.Data = []byte(data)
		return err
	}, query, args...)
}

// CountEventsFor implements [store.EventStore].
func (t *tx) CountEventsFor(ctx context.Context, q store.EventLogQuery, max int) (int, error) {
	var n int
	err := t.queryRow(ctx, "SELECT count(*) FROM ("+eventsForSQL+" LIMIT $5) c", append(eventsForArgs(q), max)...).Scan(&n)
	return n, classify(err, "count events")
}

// PruneEvents implements [store.EventStore] in one statement: it deletes
// the entries and the audiences no entry left names (their users with
// them), and keeps each realm's highest deleted id in event_log_pruned. An
// entry appended meanwhile that names an audience this deletes cannot
// commit with it: the append read the audience's row, which this deletes,
// and this read the audience's entries through event_log_audience, where
// the append inserts, so one of the two fails to serialise.
func (t *tx) PruneEvents(ctx context.Context, through int64, limit int) (int, error) {
	if err := t.logReadable(); err != nil {
		return 0, err
	}
	if err := t.writable(); err != nil {
		return 0, err
	}
	if limit <= 0 {
		return 0, fmt.Errorf("postgres: prune events: limit %d is not positive", limit)
	}
	// The batch's entries of a group that continues past the batch stay (see
	// store.EventStore), found through event_log_group_continuations. An
	// audience's entries are walked from its first, the ones deleted here,
	// to the first one left.
	var n int
	err := t.queryRow(ctx, `WITH b AS MATERIALIZED (
			SELECT id, group_start FROM event_log WHERE id <= $1 ORDER BY id LIMIT $2
		), r AS (
			SELECT min(id) AS first, max(id) AS top FROM b
		), keep AS (
			SELECT DISTINCT l.group_start FROM event_log l, r
			WHERE l.group_start < l.id AND l.group_start BETWEEN r.first AND r.top AND l.id > r.top
		), d AS (
			DELETE FROM event_log WHERE id IN (SELECT id FROM b WHERE group_start NOT IN (SELECT group_start FROM keep))
			RETURNING id, realm_id, audience_id
		), gone AS MATERIALIZED (
			SELECT x.audience_id AS id FROM (SELECT DISTINCT audience_id FROM d WHERE audience_id <> 0) x
			WHERE NOT EXISTS (SELECT 1 FROM event_log l WHERE l.audience_id = x.audience_id AND l.id NOT IN (SELECT id FROM d))
		), au AS (
			DELETE FROM event_audience_users u USING gone WHERE u.audience_id = gone.id
		), aa AS (
			DELETE FROM event_audiences a USING gone WHERE a.id = gone.id
		), s AS (
			INSERT INTO event_log_pruned AS p (realm_id, pruned_through) SELECT realm_id, max(id) FROM d GROUP BY realm_id
			ON CONFLICT (realm_id) DO UPDATE SET pruned_through = greatest(p.pruned_through, excluded.pruned_through)
		)
		SELECT count(*) FROM d`, through, limit).Scan(&n)
	return n, classify(err, "prune events")
}

// EventsPrunedThrough implements [store.EventStore]: the highest id of
// the realm's entries that a prune deleted.
func (t *tx) EventsPrunedThrough(ctx context.Context, realm store.RealmID) (int64, error) {
	var id int64
	err := t.queryRow(ctx, "SELECT coalesce(max(pruned_through), 0) FROM event_log_pruned WHERE realm_id = $1", realm).Scan(&id)
	return id, classify(err, "pruned events")
}

// queueWithHeadSQL reads an event queue ($1) with the head of its realm
// (see LastEventID), for an announced poll.
var queueWithHeadSQL = "SELECT " + sqlstore.QueueCols + ", " + realmHead("q.realm_id") + " FROM event_queues q WHERE id = $1"

// CreateEventQueue implements [store.EventStore]. The insert is held back
// to go with the transaction's next statement or its COMMIT (see
// holdBack): a registration's last write saves its round trip, and a
// queue id in use fails the Update there.
func (t *tx) CreateEventQueue(ctx context.Context, q *store.EventQueue) error {
	if err := t.writable(); err != nil {
		return err
	}
	return t.holdBack(fmt.Sprintf("create event queue %q", q.ID), "INSERT INTO event_queues ("+sqlstore.QueueCols+`, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10::timestamptz + $6::bigint * interval '1 second')`,
		[]any{q.ID, q.RealmID, q.UserID, sqlstore.QueueParams(q.Params), q.Public, int64(q.Lifespan.Seconds()), q.Position, q.Acked,
			q.Created.Truncate(time.Second), q.LastPoll.Truncate(time.Second)}, nil)
}

// EventQueue implements [store.EventStore]: from the prefetched answers
// when a Prefetch read the queue, else with the shared statement.
func (t *tx) EventQueue(ctx context.Context, id string) (*store.EventQueue, error) {
	if q, ok := take(t.answers().queues, id); ok {
		if q == nil {
			return nil, notFound(fmt.Sprintf("event queue %q", id))
		}
		return q, nil
	}
	return t.Tx.EventQueue(ctx, id)
}

// UpdateEventQueue implements [store.EventStore].
func (t *tx) UpdateEventQueue(ctx context.Context, q *store.EventQueue) error {
	if err := t.writable(); err != nil {
		return err
	}
	tag, err := t.exec(ctx, `UPDATE event_queues SET position = $1, acked = $2, last_poll = $3::timestamptz,
		expires_at = $3::timestamptz + lifespan_secs * interval '1 second' WHERE id = $4`,
		q.Position, q.Acked, q.LastPoll.Truncate(time.Second), q.ID)
	return mustAffect(tag, err, fmt.Sprintf("update event queue %q", q.ID))
}

// OldestEventQueuePosition implements [store.EventStore]. A realm's head
// (LastEventID) stays at its own last entry while other realms append, so
// the Position of a queue in a realm without new events stays there too
// however often its client polls; the smallest Position would keep every
// realm's later entries from being pruned for as long as such a queue
// lives. A queue reads only its realm's entries, so the answer is, for
// each realm with queues, the id below the first of its entries above the
// smallest Position of its queues (the log's head when there is none, and
// never below that Position), and the smallest of those. An entry still
// being appended below it is not in this snapshot, so a prune of this
// transaction does not delete it; once committed it bounds the answer of
// every later transaction.
func (t *tx) OldestEventQueuePosition(ctx context.Context) (int64, bool, error) {
	if err := t.logReadable(); err != nil {
		return 0, false, err
	}
	var p *int64
	err := t.queryRow(ctx, `WITH q AS (
			SELECT realm_id, min(position) AS position FROM event_queues GROUP BY realm_id
		), head AS (
			SELECT greatest((SELECT coalesce(max(id), 0) FROM event_log),
				(SELECT coalesce(max(pruned_through), 0) FROM event_log_pruned)) AS id
		)
		SELECT min(coalesce(
			(SELECT min(e.id) - 1 FROM event_log e WHERE e.realm_id = q.realm_id AND e.id > q.position),
			greatest(q.position, head.id)))
		FROM q, head`).Scan(&p)
	if err != nil || p == nil {
		return 0, false, classify(err, "oldest event queue")
	}
	return *p, true, nil
}
