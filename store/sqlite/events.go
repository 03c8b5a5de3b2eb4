package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"

	"github.com/chatcore/chatcore/internal/slicex"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

// AppendEvents implements [store.EventStore]. Ids come from the
// AUTOINCREMENT of event_log; the single writer connection makes them follow
// commit order. Each entry names the audience of its users (see
// audience).
func (t *tx) AppendEvents(ctx context.Context, events []store.LoggedEvent) error {
	if err := t.writable(); err != nil {
		return err
	}
	starts := map[int64]int64{}
	audiences := map[[sha256.Size]byte]int64{}
	for i := range events {
		e := &events[i]
		var start int64 // 0: the entry starts its group (or has none)
		if e.Group != 0 {
			start = starts[e.Group]
		}
		aud, err := t.audience(ctx, e.UserIDs, audiences)
		if err != nil {
			return err
		}
		// The id is the row id (id is INTEGER PRIMARY KEY), taken from the
		// statement's result: a plain INSERT skips the query machinery of a
		// RETURNING row.
		res, err := t.exec(ctx, "INSERT INTO event_log (realm_id, public, group_start, audience_id, data) VALUES (?, ?, ?, ?, ?)",
			e.RealmID, e.Public, start, aud, e.Data)
		if err == nil {
			e.ID, err = res.LastInsertId()
		}
		if err != nil {
			return classify(err, "append event")
		}
		if e.Group != 0 && start == 0 {
			starts[e.Group] = e.ID
		}
		if t.group != nil {
			t.group.appended = max(t.group.appended, e.ID)
		}
	}
	return nil
}

// audience returns the id of the audience of users (sorted, without
// duplicates), adding it when the log has none yet; 0 for no users. known
// holds the audiences this AppendEvents has found so far.
func (t *tx) audience(ctx context.Context, users []store.UserID, known map[[sha256.Size]byte]int64) (int64, error) {
	if len(users) == 0 {
		return 0, nil
	}
	users = slicex.SortedSet(users) // one set, one hash, whatever the order given
	hash := sqlstore.AudienceHash(users)
	if id, ok := known[hash]; ok {
		return id, nil
	}
	if id, ok := lookup(t, audiencesTable, audiencesMap, hash); ok {
		known[hash] = id
		return id, nil
	}
	var id int64
	err := t.queryRow(ctx, "SELECT id FROM event_audiences WHERE hash = ?", hash[:]).Scan(&id)
	if err == nil {
		remember(t, audiencesTable, audiencesMap, hash, id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		var res sql.Result
		res, err = t.exec(ctx, "INSERT INTO event_audiences (hash) VALUES (?)", hash[:])
		if err == nil {
			id, err = res.LastInsertId()
		}
		if err == nil && len(users) == 1 { // most events but messages: one row, without json_each
			_, err = t.exec(ctx, "INSERT INTO event_audience_users (user_id, audience_id) VALUES (?, ?)", users[0], id)
		} else if err == nil {
			_, err = t.exec(ctx, "INSERT INTO event_audience_users (user_id, audience_id) SELECT value, ? FROM json_each(?)",
				id, idsJSON(users))
		}
	}
	if err != nil {
		return 0, classify(err, "address event")
	}
	known[hash] = id
	return id, nil
}

// LastEventID implements [store.EventStore]: the AUTOINCREMENT counter,
// which pruning does not lower (the store has one writer, so the highest id
// of any realm is every realm's head).
func (t *tx) LastEventID(ctx context.Context, _ store.RealmID) (int64, error) {
	var id int64
	err := t.queryRow(ctx, "SELECT seq FROM sqlite_sequence WHERE name = 'event_log'").Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, classify(err, "last event id")
}

// The entries of an EventLogQuery are the user's, then (when the query asks
// for them) the realm's public entries that no entry of their group
// addresses to the user. A user's entries are found one of two ways:
// eventsByScan tests the audience of every entry after the query's bound,
// which is cheapest when few entries follow it (a queue that keeps up, the
// common poll); eventsByAudience walks the user's audiences through
// event_log_audience, whose cost grows with how many audiences the user is
// in (one per channel and conversation with live entries), which is cheaper
// for a queue far behind. A public entry's group is read by id (NOT INDEXED
// keeps the planner from walking the user's audiences instead). Arguments of
// both: user, after, realm, public (0/1).
const (
	eventsByScan = `
SELECT e.id, e.realm_id, e.public, e.data FROM event_log e
WHERE EXISTS (SELECT 1 FROM event_audience_users a WHERE a.user_id = ?1 AND a.audience_id = e.audience_id)
  AND e.id > ?2 AND e.realm_id = ?3` + eventsPublicSQL
	eventsByAudience = `
SELECT e.id, e.realm_id, e.public, e.data FROM event_audience_users a JOIN event_log e ON e.audience_id = a.audience_id
WHERE a.user_id = ?1 AND e.id > ?2 AND e.realm_id = ?3` + eventsPublicSQL
	eventsPublicSQL = `
UNION ALL
SELECT e.id, e.realm_id, e.public, e.data FROM event_log e
WHERE ?4 AND e.public = 1 AND e.realm_id = ?3 AND e.id > ?2
  AND NOT EXISTS (SELECT 1 FROM event_log g NOT INDEXED
    WHERE g.id BETWEEN (CASE e.group_start WHEN 0 THEN e.id ELSE e.group_start END) AND e.id
      AND EXISTS (SELECT 1 FROM event_audience_users ga WHERE ga.user_id = ?1 AND ga.audience_id = g.audience_id))`
)

// scanGap is how many ids behind the log's head a query's bound may always
// be for its entries to be found by eventsByScan; further behind, the scan
// is still chosen while the gap is at most scanPerAudience times the
// user's audiences (the walk then reads and sorts about as many entries).
const (
	scanGap         = 256
	scanPerAudience = 4
)

// eventsFor returns the statement that selects q's entries (see
// eventsByScan) and its arguments.
func (t *tx) eventsFor(ctx context.Context, q store.EventLogQuery) (string, []any, error) {
	args := []any{q.UserID, q.After, q.RealmID, q.Public}
	gap := t.logHead.Load() - q.After // a hint: a plan is only slower when it is off
	if gap <= scanGap {
		return eventsByScan, args, nil
	}
	var audiences int64
	err := t.queryRow(ctx, "SELECT count(*) FROM event_audience_users WHERE user_id = ?", q.UserID).Scan(&audiences)
	if err != nil {
		return "", nil, classify(err, "count audiences")
	}
	if gap <= scanPerAudience*audiences {
		return eventsByScan, args, nil
	}
	return eventsByAudience, args, nil
}

// EventsFor implements [store.EventStore].
func (t *tx) EventsFor(ctx context.Context, q store.EventLogQuery) ([]store.LoggedEvent, error) {
	query, args, err := t.eventsFor(ctx, q)
	if err != nil {
		return nil, err
	}
	query += " ORDER BY 1"
	if q.Limit > 0 {
		query += " LIMIT ?5"
		args = append(args, q.Limit)
	}
	return scanAll(ctx, t, "events", func(r *sql.Rows, e *store.LoggedEvent) error {
		return r.Scan(&e.ID, &e.RealmID, &e.Public, &e.Data)
	}, query, args...)
}

// CountEventsFor implements [store.EventStore].
func (t *tx) CountEventsFor(ctx context.Context, q store.EventLogQuery, max int) (int, error) {
	query, args, err := t.eventsFor(ctx, q)
	if err != nil {
		return 0, err
	}
	var n int
	err = t.queryRow(ctx, "SELECT count(*) FROM ("+query+" LIMIT ?5)", append(args, max)...).Scan(&n)
	return n, classify(err, "count events")
}

// prunedAudiencesSQL gives, as a JSON array, the audiences that entries up
// to ?1 name and no later entry does. NOT INDEXED keeps the scan on the
// pruned id range (the planner would otherwise walk all of
// event_log_audience for the DISTINCT).
const prunedAudiencesSQL = `SELECT coalesce(json_group_array(audience_id), '[]') FROM (
	SELECT DISTINCT e.audience_id FROM event_log e NOT INDEXED WHERE e.id <= ?1 AND e.audience_id != 0
	AND NOT EXISTS (SELECT 1 FROM event_log l WHERE l.audience_id = e.audience_id AND l.id > ?1))`

// PruneEvents implements [store.EventStore]. The audiences that only
// the pruned entries name are deleted with them.
func (t *tx) PruneEvents(ctx context.Context, through int64, limit int) (int, error) {
	if err := t.writable(); err != nil {
		return 0, err
	}
	var first, top sql.NullInt64
	err := t.queryRow(ctx, `SELECT min(id), max(id) FROM (SELECT id FROM event_log WHERE id <= ? ORDER BY id LIMIT ?)`, through, limit).Scan(&first, &top)
	if err != nil || !top.Valid {
		return 0, classify(err, "prune events")
	}
	// A group is pruned whole (see store.EventStore); the single writer
	// gives a group's entries consecutive ids.
	var start int64
	err = t.queryRow(ctx, "SELECT group_start FROM event_log WHERE id > ? ORDER BY id LIMIT 1", top.Int64).Scan(&start)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, classify(err, "prune events")
	}
	if start != 0 {
		if start <= first.Int64 {
			return 0, nil
		}
		top.Int64 = start - 1
	}
	var gone string
	if err := t.queryRow(ctx, prunedAudiencesSQL, top.Int64).Scan(&gone); err != nil {
		return 0, classify(err, "prune events")
	}
	for _, q := range []string{
		"DELETE FROM event_audience_users WHERE audience_id IN (SELECT value FROM json_each(?))",
		"DELETE FROM event_audiences WHERE id IN (SELECT value FROM json_each(?))",
	} {
		if gone == "[]" {
			break
		}
		if _, err := t.exec(ctx, q, gone); err != nil {
			return 0, classify(err, "prune events")
		}
	}
	res, err := t.exec(ctx, "DELETE FROM event_log WHERE id <= ?", top.Int64)
	if err != nil {
		return 0, classify(err, "prune events")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, classify(err, "prune events")
	}
	if _, err := t.exec(ctx, "UPDATE event_log_state SET pruned_through = max(pruned_through, ?)", top.Int64); err != nil {
		return 0, classify(err, "prune events")
	}
	return int(n), nil
}

// EventsPrunedThrough implements [store.EventStore] with the highest id
// pruned in any realm (one writer: see LastEventID).
func (t *tx) EventsPrunedThrough(ctx context.Context, _ store.RealmID) (int64, error) {
	var id int64
	err := t.queryRow(ctx, "SELECT pruned_through FROM event_log_state").Scan(&id)
	return id, classify(err, "pruned events")
}

// CreateEventQueue implements [store.EventStore].
func (t *tx) CreateEventQueue(ctx context.Context, q *store.EventQueue) error {
	if err := t.writable(); err != nil {
		return err
	}
	_, err := t.exec(ctx, "INSERT INTO event_queues ("+sqlstore.QueueCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		q.ID, q.RealmID, q.UserID, sqlstore.QueueParams(q.Params), q.Public, int64(q.Lifespan.Seconds()), q.Position, q.Acked,
		q.Created.Unix(), q.LastPoll.Unix())
	return classify(err, fmt.Sprintf("create event queue %q", q.ID))
}

// UpdateEventQueue implements [store.EventStore].
func (t *tx) UpdateEventQueue(ctx context.Context, q *store.EventQueue) error {
	if err := t.writable(); err != nil {
		return err
	}
	what := fmt.Sprintf("update event queue %q", q.ID)
	res, err := t.exec(ctx, "UPDATE event_queues SET position = ?, acked = ?, last_poll = ? WHERE id = ?",
		q.Position, q.Acked, q.LastPoll.Unix(), q.ID)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}

// OldestEventQueuePosition implements [store.EventStore].
func (t *tx) OldestEventQueuePosition(ctx context.Context) (int64, bool, error) {
	var p sql.NullInt64
	err := t.queryRow(ctx, "SELECT min(position) FROM event_queues").Scan(&p)
	return p.Int64, p.Valid, classify(err, "oldest event queue")
}
