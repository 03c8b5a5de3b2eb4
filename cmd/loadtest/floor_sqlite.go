package main

import (
	"context"
	"database/sql"
	"errors"
	"net/url"

	"github.com/chatcore/chatcore"
	_ "modernc.org/sqlite" // the driver store/sqlite uses, registered as "sqlite"
)

// sqliteFloor is the floor on the SQLite file: the reads through a read-only
// pool, the writes on one writer connection, synchronous=NORMAL (as
// store/sqlite runs it).
type sqliteFloor struct {
	readers, writer *sql.DB
	// Prepared statements: the user by e-mail and the channel by name on the
	// readers, the settings update and the message insert on the writer.
	userStmt, channelStmt, settingsStmt, insertStmt, starStmt, unstarStmt, queueStmt, eventsStmt *sql.Stmt
}

// floorDSN returns the data source name of the floor's pools, with the
// pragmas store/sqlite sets (WAL, synchronous=NORMAL, a 5 s busy timeout;
// query_only on the readers).
func floorDSN(path string, reader bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", "5000")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	if reader {
		q.Set("_query_only", "1")
	}
	return "file:" + path + "?" + q.Encode()
}

// openSQLiteFloor opens the file at path with readers read connections.
func openSQLiteFloor(ctx context.Context, path string, readers int) (_ *sqliteFloor, err error) {
	f := &sqliteFloor{}
	defer func() {
		if err != nil {
			f.close()
		}
	}()
	if f.readers, err = sql.Open("sqlite", floorDSN(path, true)); err != nil {
		return nil, err
	}
	f.readers.SetMaxOpenConns(readers)
	f.readers.SetMaxIdleConns(readers)
	if f.writer, err = sql.Open("sqlite", floorDSN(path, false)); err != nil {
		return nil, err
	}
	f.writer.SetMaxOpenConns(1)
	f.writer.SetMaxIdleConns(1)
	prepare := func(db *sql.DB, query string) (s *sql.Stmt) {
		if err == nil {
			s, err = db.PrepareContext(ctx, query)
		}
		return s
	}
	f.userStmt = prepare(f.readers, "SELECT id, api_key_hash FROM users WHERE realm_id = ? AND email_key = ? AND is_active = 1")
	f.channelStmt = prepare(f.readers, "SELECT id, recipient_id FROM streams WHERE realm_id = ? AND name_key = ? AND is_archived = 0")
	f.settingsStmt = prepare(f.writer, "UPDATE users SET enter_sends = ? WHERE id = ?")
	f.insertStmt = prepare(f.writer, `INSERT INTO messages (realm_id, sender_id, type, recipient_id, stream_id, topic, topic_key,
		content, rendered_content, client, sent_at, is_me_message, default_flags)
		VALUES (?, ?, 'stream', ?, ?, ?, ?, ?, ?, 'floor', ?, 0, 0) RETURNING id`)
	f.starStmt = prepare(f.writer, `INSERT INTO user_message_flags (user_id, message_id, flags)
		SELECT ?, id, default_flags | 2 FROM messages WHERE id = ?
		ON CONFLICT (user_id, message_id) DO UPDATE SET flags = flags | 2`)
	f.unstarStmt = prepare(f.writer, "UPDATE user_message_flags SET flags = flags & ~2 WHERE user_id = ? AND message_id = ?")
	f.queueStmt = prepare(f.readers, "SELECT position FROM event_queues WHERE id = ? AND user_id = ?")
	f.eventsStmt = prepare(f.readers, `SELECT e.id, e.data FROM event_log e
		WHERE EXISTS (SELECT 1 FROM event_audience_users a WHERE a.user_id = ?1 AND a.audience_id = e.audience_id)
		AND e.id > ?2 ORDER BY e.id LIMIT 100`)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (f *sqliteFloor) user(ctx context.Context, emailKey string) (int64, string, error) {
	var id int64
	var hash sql.NullString
	err := f.userStmt.QueryRowContext(ctx, floorRealm, emailKey).Scan(&id, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", errFloorNotFound
	}
	return id, hash.String, err
}

func (f *sqliteFloor) channel(ctx context.Context, nameKey string) (int64, int64, error) {
	var id, recipient int64
	err := f.channelStmt.QueryRowContext(ctx, floorRealm, nameKey).Scan(&id, &recipient)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, errFloorNotFound
	}
	return id, recipient, err
}

func (f *sqliteFloor) setEnterSends(ctx context.Context, user int64, enter bool) error {
	_, err := f.settingsStmt.ExecContext(ctx, enter, user)
	return err
}

// setStarred uses chatcore's flag row (the starred bit is 2): adding sets
// it on the row, made from the message's default flags when missing.
func (f *sqliteFloor) setStarred(ctx context.Context, user, message int64, star bool) error {
	if !star {
		_, err := f.unstarStmt.ExecContext(ctx, user, message)
		return err
	}
	res, err := f.starStmt.ExecContext(ctx, user, message)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(err, errFloorNotFound)
	}
	return nil
}

// events reads the queue and its entries in two statements (the floor does
// not need them in one snapshot: it answers nothing that pairs them).
func (f *sqliteFloor) events(ctx context.Context, user int64, queue string, after int64) ([]floorEvent, error) {
	var position int64
	err := f.queueStmt.QueryRowContext(ctx, queue, user).Scan(&position)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errFloorNotFound
	}
	if err != nil {
		return nil, err
	}
	rows, err := f.eventsStmt.QueryContext(ctx, user, max(after, position))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []floorEvent
	for rows.Next() {
		var e floorEvent
		if err := rows.Scan(&e.id, &e.data); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func (f *sqliteFloor) insertMessage(ctx context.Context, m floorMessage) (int64, error) {
	if m.log != noEventLog {
		return 0, errors.New("floor: logging the event is implemented on PostgreSQL only")
	}
	var id int64
	err := f.insertStmt.QueryRowContext(ctx, floorRealm, m.sender, m.recipient, m.channel, m.topic, chatcore.TopicKey(m.topic),
		m.content, m.rendered, m.sentAt.Unix()).Scan(&id)
	return id, err
}

func (f *sqliteFloor) loadChannelCount(ctx context.Context) (int, error) {
	var n int
	err := f.readers.QueryRowContext(ctx, "SELECT count(*) FROM messages WHERE stream_id = ?", loadChannel).Scan(&n)
	return n, err
}

// serverProcess is 0: SQLite runs in this process.
func (f *sqliteFloor) serverProcess(context.Context) (int, error) { return 0, nil }

func (f *sqliteFloor) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{f.userStmt, f.channelStmt, f.settingsStmt, f.insertStmt, f.starStmt, f.unstarStmt, f.queueStmt, f.eventsStmt} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	for _, db := range []*sql.DB{f.readers, f.writer} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	return errors.Join(errs...)
}
