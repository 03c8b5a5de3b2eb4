package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
)

// AddReaction implements [store.ReactionStore] with one statement that
// appends the reaction after the message's last one (seq) unless the
// message is missing or the user already has the reaction; neither case is
// an error of PostgreSQL's, so the transaction stays usable. Reactions hang
// off messages (see writableKeepingAnswers).
func (t *tx) AddReaction(ctx context.Context, id store.MessageID, r store.Reaction) error {
	if err := t.writableKeepingAnswers(); err != nil {
		return err
	}
	var found, added bool
	err := t.queryRow(ctx, `WITH m AS (SELECT id FROM messages WHERE id = $1),
		ins AS (
			INSERT INTO reactions (message_id, seq, user_id, emoji_name, emoji_code, reaction_type)
			SELECT m.id, (SELECT coalesce(max(seq), -1) + 1 FROM reactions WHERE message_id = $1), $2, $3, $4, $5 FROM m
			ON CONFLICT (message_id, user_id, reaction_type, emoji_code) DO NOTHING
			RETURNING 1)
		SELECT EXISTS (SELECT 1 FROM m), EXISTS (SELECT 1 FROM ins)`,
		id, r.UserID, r.EmojiName, r.EmojiCode, r.ReactionType).Scan(&found, &added)
	switch {
	case err != nil:
		return classify(err, "add reaction")
	case !found:
		return notFound(fmt.Sprintf("add reaction: message %d", id))
	case !added:
		return fmt.Errorf("postgres: add reaction: %w: the user has this reaction", store.ErrConflict)
	}
	return nil
}

// RemoveReaction implements [store.ReactionStore]. Reactions hang off
// messages (see writableKeepingAnswers).
func (t *tx) RemoveReaction(ctx context.Context, id store.MessageID, user store.UserID, reactionType, emojiCode string) error {
	if err := t.writableKeepingAnswers(); err != nil {
		return err
	}
	tag, err := t.exec(ctx, `DELETE FROM reactions WHERE message_id = $1 AND user_id = $2 AND reaction_type = $3 AND emoji_code = $4`,
		id, user, reactionType, emojiCode)
	return mustAffect(tag, err, "remove reaction")
}

const presenceCols = "p.user_id, p.realm_id, p.last_active, p.last_connected, p.last_update_id"

func scanPresence(r pgx.Rows, p *store.Presence) error {
	return r.Scan(&p.UserID, &p.RealmID, timeCol{&p.LastActive}, timeCol{&p.LastConnected}, &p.LastUpdateID)
}

// Presences implements [store.PresenceStore] with one query through the
// (realm, last_update_id) index, joined with users for their state.
func (t *tx) Presences(ctx context.Context, q store.PresenceQuery) ([]store.Presence, error) {
	return scanAll(ctx, t, "presences", scanPresence, "SELECT "+presenceCols+` FROM presence p
		JOIN users u ON u.id = p.user_id AND u.is_active AND NOT u.is_bot
		WHERE p.realm_id = $1 AND p.last_update_id > $2 AND ($3::timestamptz IS NULL OR p.last_connected >= $3)
		ORDER BY p.user_id`, q.RealmID, q.AfterUpdateID, timeArg(q.ConnectedSince))
}

// UserPresences implements [store.PresenceStore].
func (t *tx) UserPresences(ctx context.Context, ids []store.UserID) ([]store.Presence, error) {
	return scanAll(ctx, t, "user presences", scanPresence, "SELECT "+presenceCols+` FROM presence p
		WHERE p.user_id = ANY($1) ORDER BY p.user_id`, ids)
}

// PutPresences implements [store.PresenceStore] with two statements: one
// upsert that takes the numbers from the realm's sequence row (its row lock
// orders concurrent writers of one realm), and one multi-row upsert (the rows
// travel as arrays) that keeps the later of each stored and given time.
func (t *tx) PutPresences(ctx context.Context, realm store.RealmID, rows []store.Presence) error {
	if err := t.writable(); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	var last int64
	err := t.queryRow(ctx, `INSERT INTO presence_sequences AS q (realm_id, last_update_id) VALUES ($1, $2)
		ON CONFLICT (realm_id) DO UPDATE SET last_update_id = q.last_update_id + $2
		RETURNING last_update_id`, realm, len(rows)).Scan(&last)
	if err != nil {
		return classify(err, "presence sequence")
	}
	first := last - int64(len(rows)) + 1
	users := make([]int64, len(rows))
	active := make([]*time.Time, len(rows))
	connected := make([]time.Time, len(rows))
	for i := range rows {
		rows[i].LastUpdateID = first + int64(i)
		users[i], active[i], connected[i] = int64(rows[i].UserID), timeArg(rows[i].LastActive), rows[i].LastConnected
	}
	_, err = t.exec(ctx, `INSERT INTO presence AS p (user_id, realm_id, last_active, last_connected, last_update_id)
		SELECT r.u, $1, r.a, r.c, $2 + r.ord - 1
		FROM unnest($3::bigint[], $4::timestamptz[], $5::timestamptz[]) WITH ORDINALITY AS r(u, a, c, ord)
		ON CONFLICT (user_id) DO UPDATE SET
			realm_id = excluded.realm_id,
			last_active = CASE WHEN p.last_active IS NULL OR excluded.last_active > p.last_active
				THEN coalesce(excluded.last_active, p.last_active) ELSE p.last_active END,
			last_connected = greatest(p.last_connected, excluded.last_connected),
			last_update_id = excluded.last_update_id`,
		realm, first, users, active, connected)
	return classify(err, "put presences")
}
