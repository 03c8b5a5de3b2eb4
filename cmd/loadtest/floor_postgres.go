package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/chatcore/chatcore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// postgresFloor is the floor on PostgreSQL: one pool, each request's
// statements in autocommit (one implicit transaction each, at PostgreSQL's
// default isolation and durability), prepared once per connection by pgx's
// statement cache.
type postgresFloor struct {
	pool *pgxpool.Pool
}

// openPostgresFloor connects to the database url names, working in schema,
// with a pool of conns connections.
func openPostgresFloor(ctx context.Context, url, schema string, conns int) (*postgresFloor, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(conns)
	if schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &postgresFloor{pool: pool}, nil
}

func (f *postgresFloor) user(ctx context.Context, emailKey string) (int64, string, error) {
	var id int64
	var hash *string
	err := f.pool.QueryRow(ctx, "SELECT id, api_key_hash FROM users WHERE realm_id = $1 AND email_key = $2 AND is_active",
		floorRealm, emailKey).Scan(&id, &hash)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && hash == nil) {
		return 0, "", errFloorNotFound
	}
	if err != nil {
		return 0, "", err
	}
	return id, *hash, nil
}

func (f *postgresFloor) channel(ctx context.Context, nameKey string) (int64, int64, error) {
	var id, recipient int64
	err := f.pool.QueryRow(ctx, "SELECT id, recipient_id FROM streams WHERE realm_id = $1 AND name_key = $2 AND NOT is_archived",
		floorRealm, nameKey).Scan(&id, &recipient)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, errFloorNotFound
	}
	return id, recipient, err
}

func (f *postgresFloor) setEnterSends(ctx context.Context, user int64, enter bool) error {
	_, err := f.pool.Exec(ctx, "UPDATE users SET enter_sends = $1 WHERE id = $2", enter, user)
	return err
}

// setStarred uses chatcore's flag row (the starred bit is 2): adding sets
// it on the row, made from the message's default flags when missing.
func (f *postgresFloor) setStarred(ctx context.Context, user, message int64, star bool) error {
	if !star {
		_, err := f.pool.Exec(ctx, "UPDATE user_message_flags SET flags = flags & ~2 WHERE user_id = $1 AND message_id = $2", user, message)
		return err
	}
	tag, err := f.pool.Exec(ctx, `INSERT INTO user_message_flags (user_id, message_id, flags)
		SELECT $1, id, default_flags | 2 FROM messages WHERE id = $2
		ON CONFLICT (user_id, message_id) DO UPDATE SET flags = user_message_flags.flags | 2`, user, message)
	if err == nil && tag.RowsAffected() == 0 {
		err = errFloorNotFound
	}
	return err
}

// events reads the queue and its entries in one statement.
func (f *postgresFloor) events(ctx context.Context, user int64, queue string, after int64) ([]floorEvent, error) {
	rows, err := f.pool.Query(ctx, `WITH q AS (SELECT position FROM event_queues WHERE id = $1 AND user_id = $2)
		SELECT 0::bigint, NULL::text FROM q
		UNION ALL
		(SELECT e.id, e.data::text FROM q, event_audience_users a JOIN event_log e ON e.audience_id = a.audience_id
		WHERE a.user_id = $2 AND e.id > greatest($3, q.position) ORDER BY e.id LIMIT 100)`, queue, user, after)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []floorEvent
	found := false
	for rows.Next() {
		var id int64
		var data *string
		if err := rows.Scan(&id, &data); err != nil {
			return nil, err
		}
		if data == nil { // the queue's own row
			found = true
			continue
		}
		out = append(out, floorEvent{id: id, data: []byte(*data)})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, errFloorNotFound
	}
	return out, nil
}

// insertMessageSQL inserts a floor message and returns its id.
const insertMessageSQL = `INSERT INTO messages (realm_id, sender_id, type, recipient_id, stream_id, topic, topic_key,
	content, rendered_content, client, sent_at, is_me_message, default_flags)
	VALUES ($1, $2, 'stream', $3, $4, $5, $6, $7, $8, 'floor', $9, false, 0) RETURNING id`

// floorAppendLockSeed seeds the key of a realm's append lock, as the
// PostgreSQL store's appendLockSeed does: the floor takes the same lock.
const floorAppendLockSeed = 0x65766e74

// appendFloorEventSQL appends event $2 of realm $1 for the active
// subscribers of channel $3 as the PostgreSQL store appends an entry: under
// the realm's append lock (held to the end of the transaction, so that the
// realm's ids follow commit order), one log entry naming the audience of
// those users, found by the hash of their ids as the store keys it (the
// SHA-256 of the sorted ids as 8-byte big-endian numbers), or added with
// its users when the log has none. appendUnorderedFloorEventSQL appends the
// same rows without the lock (see unorderedEventLog); it takes the same
// arguments.
const (
	appendFloorEventSQL          = `WITH l AS MATERIALIZED (` + floorAppendLockSQL + appendFloorEventRowsSQL
	appendUnorderedFloorEventSQL = `WITH l AS MATERIALIZED (SELECT $4::bigint AS seed` + appendFloorEventRowsSQL

	floorAppendLockSQL = `SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || '/' || $1::bigint, $4))`

	appendFloorEventRowsSQL = `
	), s AS MATERIALIZED (
		SELECT ARRAY(SELECT user_id FROM subscriptions WHERE stream_id = $3 AND active ORDER BY user_id) AS users
	), known AS MATERIALIZED (
		SELECT s.users, h.hash, (SELECT id FROM event_audiences WHERE hash = h.hash) AS id
		FROM s, LATERAL (SELECT sha256(coalesce((SELECT string_agg(int8send(u), ''::bytea ORDER BY o)
			FROM unnest(s.users) WITH ORDINALITY AS x(u, o)), ''::bytea)) AS hash) h
	), added AS (
		INSERT INTO event_audiences (hash) SELECT hash FROM known WHERE id IS NULL ON CONFLICT (hash) DO NOTHING RETURNING id
	), added_users AS (
		INSERT INTO event_audience_users (user_id, audience_id) SELECT u, a.id FROM added a, known k, unnest(k.users) AS u
	), e AS MATERIALIZED (
		SELECT nextval('event_log_id_seq') AS id FROM l
	)
	INSERT INTO event_log (id, realm_id, public, group_start, data, audience_id)
	SELECT e.id, $1, false, e.id, $2::json, coalesce((SELECT id FROM known), (SELECT id FROM added)) FROM e`
)

// insertMessage runs one autocommit INSERT; with m.log, the INSERT and
// the event's append (see appendFloorEventSQL) in one SERIALIZABLE
// transaction, as chatcore's store runs a send: BEGIN with the INSERT, then
// the append with the COMMIT, two round trips.
func (f *postgresFloor) insertMessage(ctx context.Context, m floorMessage) (int64, error) {
	args := []any{floorRealm, m.sender, m.recipient, m.channel, m.topic, chatcore.TopicKey(m.topic), m.content, m.rendered, m.sentAt}
	var id int64
	if m.log == noEventLog {
		err := f.pool.QueryRow(ctx, insertMessageSQL, args...).Scan(&id)
		return id, err
	}
	conn, err := f.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	b := &pgx.Batch{}
	b.Queue("BEGIN ISOLATION LEVEL SERIALIZABLE")
	b.Queue(insertMessageSQL, args...).QueryRow(func(r pgx.Row) error { return r.Scan(&id) })
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return 0, errors.Join(err, rollback(conn))
	}
	event, err := json.Marshal(floorMessageEvent{Type: "message", Flags: []string{}, Message: floorEventMessage{
		ID: id, SenderID: m.sender, Content: m.content, RenderedContent: m.rendered, RecipientID: m.recipient,
		StreamID: m.channel, Subject: m.topic, Timestamp: m.sentAt.Unix(), Client: "floor", Type: "stream"}})
	if err != nil {
		return 0, errors.Join(err, rollback(conn))
	}
	b = &pgx.Batch{}
	appendSQL := appendFloorEventSQL
	if m.log == unorderedEventLog {
		appendSQL = appendUnorderedFloorEventSQL
	}
	b.Queue(appendSQL, floorRealm, event, m.channel, floorAppendLockSeed)
	b.Queue("COMMIT")
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return 0, errors.Join(err, rollback(conn))
	}
	return id, nil
}

// rollback ends the transaction on conn after a failure (no transaction:
// a warning, no error).
func rollback(conn *pgxpool.Conn) error {
	_, err := conn.Exec(context.Background(), "ROLLBACK")
	return err
}

// floorMessageEvent is the message event the floor logs, about the size of
// chatcore's. No event queue lives while the floor logs them (the
// comparison deletes its queues after the poll's rounds), so none is ever
// delivered.
type floorMessageEvent struct {
	Type    string            `json:"type"`
	Message floorEventMessage `json:"message"`
	Flags   []string          `json:"flags"`
}

// floorEventMessage is the message of a floorMessageEvent: the fields of
// Zulip's message event that a channel message has.
type floorEventMessage struct {
	ID              int64  `json:"id"`
	SenderID        int64  `json:"sender_id"`
	Content         string `json:"content"`
	RenderedContent string `json:"rendered_content"`
	RecipientID     int64  `json:"recipient_id"`
	StreamID        int64  `json:"stream_id"`
	Subject         string `json:"subject"`
	Timestamp       int64  `json:"timestamp"`
	Client          string `json:"client"`
	Type            string `json:"type"`
}

func (f *postgresFloor) loadChannelCount(ctx context.Context) (int, error) {
	var n int
	err := f.pool.QueryRow(ctx, "SELECT count(*) FROM messages WHERE stream_id = $1", loadChannel).Scan(&n)
	return n, err
}

func (f *postgresFloor) serverProcess(ctx context.Context) (int, error) {
	var pid int
	err := f.pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid)
	return pid, err
}

func (f *postgresFloor) close() error {
	f.pool.Close()
	return nil
}
