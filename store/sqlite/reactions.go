package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/chatcore/chatcore/store"
)

// AddReaction implements [store.ReactionStore]: one INSERT that appends
// the reaction after the message's last one (seq), refused by the unique
// index on (message, user, type, code) and by the message's foreign key.
func (t *tx) AddReaction(ctx context.Context, id store.MessageID, r store.Reaction) error {
	if err := t.writable(); err != nil {
		return err
	}
	_, err := t.exec(ctx, `INSERT INTO reactions (message_id, seq, user_id, emoji_name, emoji_code, reaction_type)
		VALUES (?1, (SELECT coalesce(max(seq), -1) + 1 FROM reactions WHERE message_id = ?1), ?2, ?3, ?4, ?5)`,
		id, r.UserID, r.EmojiName, r.EmojiCode, r.ReactionType)
	return classify(err, "add reaction")
}

// RemoveReaction implements [store.ReactionStore].
func (t *tx) RemoveReaction(ctx context.Context, id store.MessageID, user store.UserID, reactionType, emojiCode string) error {
	if err := t.writable(); err != nil {
		return err
	}
	res, err := t.exec(ctx, `DELETE FROM reactions WHERE message_id = ? AND user_id = ? AND reaction_type = ? AND emoji_code = ?`,
		id, user, reactionType, emojiCode)
	if err != nil {
		return classify(err, "remove reaction")
	}
	return mustAffect(res, "remove reaction")
}

const presenceCols = "p.user_id, p.realm_id, p.last_active, p.last_connected, p.last_update_id"

func scanPresence(r *sql.Rows, p *store.Presence) error {
	return r.Scan(&p.UserID, &p.RealmID, timeCol{&p.LastActive}, timeCol{&p.LastConnected}, &p.LastUpdateID)
}

// Presences implements [store.PresenceStore] with one query through the
// (realm, last_update_id) index, joined with users for their state.
func (t *tx) Presences(ctx context.Context, q store.PresenceQuery) ([]store.Presence, error) {
	return scanAll(ctx, t, "presences", scanPresence, "SELECT "+presenceCols+` FROM presence p
		JOIN users u ON u.id = p.user_id AND u.is_active AND NOT u.is_bot
		WHERE p.realm_id = ? AND p.last_update_id > ? AND (? IS NULL OR p.last_connected >= ?)
		ORDER BY p.user_id`, q.RealmID, q.AfterUpdateID, timeArg(q.ConnectedSince), timeArg(q.ConnectedSince))
}

// UserPresences implements [store.PresenceStore].
func (t *tx) UserPresences(ctx context.Context, ids []store.UserID) ([]store.Presence, error) {
	return scanAll(ctx, t, "user presences", scanPresence, "SELECT "+presenceCols+` FROM presence p
		WHERE p.user_id IN (SELECT value FROM json_each(?)) ORDER BY p.user_id`, idsJSON(ids))
}

// presenceRow is one row of PutPresences's JSON argument.
type presenceRow struct {
	User      store.UserID `json:"u"`
	Active    *int64       `json:"a"`
	Connected int64        `json:"c"`
}

// PutPresences implements [store.PresenceStore] with two statements: one
// UPSERT that takes the numbers from the realm's sequence row, and one
// multi-row UPSERT (the rows travel as one JSON argument) that keeps the
// later of each stored and given time.
func (t *tx) PutPresences(ctx context.Context, realm store.RealmID, rows []store.Presence) error {
	if err := t.writable(); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	var last int64
	err := t.queryRow(ctx, `INSERT INTO presence_sequences (realm_id, last_update_id) VALUES (?1, ?2)
		ON CONFLICT (realm_id) DO UPDATE SET last_update_id = last_update_id + ?2
		RETURNING last_update_id`, realm, len(rows)).Scan(&last)
	if err != nil {
		return classify(err, "presence sequence")
	}
	arg := make([]presenceRow, len(rows))
	for i := range rows {
		rows[i].LastUpdateID = last - int64(len(rows)) + int64(i) + 1
		arg[i] = presenceRow{User: rows[i].UserID, Connected: rows[i].LastConnected.Unix()}
		if !rows[i].LastActive.IsZero() {
			arg[i].Active = new(rows[i].LastActive.Unix())
		}
	}
	js, err := json.Marshal(arg)
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, `INSERT INTO presence (user_id, realm_id, last_active, last_connected, last_update_id)
		SELECT j.value ->> 'u', ?2, j.value ->> 'a', j.value ->> 'c', ?3 + j.key FROM json_each(?1) j WHERE true
		ON CONFLICT (user_id) DO UPDATE SET
			realm_id = excluded.realm_id,
			last_active = CASE WHEN last_active IS NULL OR excluded.last_active > last_active
				THEN coalesce(excluded.last_active, last_active) ELSE last_active END,
			last_connected = max(last_connected, excluded.last_connected),
			last_update_id = excluded.last_update_id`,
		string(js), realm, last-int64(len(rows))+1)
	return classify(err, "put presences")
}
