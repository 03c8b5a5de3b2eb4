package sqlstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/chatcore/chatcore/store"
)

const presenceCols = "p.user_id, p.realm_id, p.last_active, p.last_connected, p.last_update_id"

func scanPresence(r Row, p *store.Presence) error {
	return r.Scan(Num(&p.UserID), Num(&p.RealmID), Time(&p.LastActive), Time(&p.LastConnected), &p.LastUpdateID)
}

// Presences implements [store.PresenceStore] with one query through the
// (realm, last_update_id) index, joined with users for their state.
func (x *Tx) Presences(ctx context.Context, q store.PresenceQuery) ([]store.Presence, error) {
	return scanAll(ctx, x, "presences", scanPresence, "SELECT "+presenceCols+` FROM presence p
		JOIN users u ON u.id = p.user_id AND u.is_active AND NOT u.is_bot
		WHERE p.realm_id = $1 AND p.last_update_id > $2 AND (`+x.d.Cast("$3", "timestamptz")+` IS NULL OR p.last_connected >= $3)
		ORDER BY p.user_id`, q.RealmID, q.AfterUpdateID, x.d.Time(q.ConnectedSince))
}

// UserPresences implements [store.PresenceStore].
func (x *Tx) UserPresences(ctx context.Context, ids []store.UserID) ([]store.Presence, error) {
	return scanAll(ctx, x, "user presences", scanPresence, "SELECT "+presenceCols+` FROM presence p
		WHERE `+x.d.In("p.user_id", "$1", "bigint")+` ORDER BY p.user_id`, List(x.d, ids))
}

// putPresencesSQL upserts the presence rows of realm $1 numbered from $2
// on (see presenceUpsert). With JSONLists the rows are one JSON array ($3)
// of presenceRow; otherwise they are the arrays $3 (users), $4 (last
// active) and $5 (last connected).
var (
	putPresencesJSONSQL = `INSERT INTO presence AS p (user_id, realm_id, last_active, last_connected, last_update_id)
		SELECT j.value ->> 'u', $1, j.value ->> 'a', j.value ->> 'c', $2 + j.key FROM json_each($3) j WHERE true` +
		presenceUpsert("max")
	putPresencesArraysSQL = `INSERT INTO presence AS p (user_id, realm_id, last_active, last_connected, last_update_id)
		SELECT r.u, $1, r.a, r.c, $2 + r.ord - 1
		FROM unnest($3::bigint[], $4::timestamptz[], $5::timestamptz[]) WITH ORDINALITY AS r(u, a, c, ord)` +
		presenceUpsert("greatest")
)

// presenceUpsert is the ON CONFLICT clause of putPresencesSQL, which keeps
// the later of each stored and given time; greatest names the function
// that returns the larger of two values (max on SQLite, greatest on
// PostgreSQL).
func presenceUpsert(greatest string) string {
	return `
		ON CONFLICT (user_id) DO UPDATE SET
			realm_id = excluded.realm_id,
			last_active = CASE WHEN p.last_active IS NULL OR excluded.last_active > p.last_active
				THEN coalesce(excluded.last_active, p.last_active) ELSE p.last_active END,
			last_connected = ` + greatest + `(p.last_connected, excluded.last_connected),
			last_update_id = excluded.last_update_id`
}

// presenceRow is one row of putPresencesJSONSQL's argument, its times in
// unix seconds (as SQLite, the dialect of JSON lists, stores them).
type presenceRow struct {
	User      store.UserID `json:"u"`
	Active    *int64       `json:"a"`
	Connected int64        `json:"c"`
}

// PutPresences implements [store.PresenceStore] with two statements: one
// upsert that takes the numbers from the realm's sequence row (its row lock
// orders concurrent writers of one realm on PostgreSQL), and one multi-row
// upsert (see putPresencesSQL).
func (x *Tx) PutPresences(ctx context.Context, realm store.RealmID, rows []store.Presence) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	var last int64
	err := x.q.QueryRow(ctx, `INSERT INTO presence_sequences AS q (realm_id, last_update_id) VALUES ($1, $2)
		ON CONFLICT (realm_id) DO UPDATE SET last_update_id = q.last_update_id + $2
		RETURNING last_update_id`, realm, len(rows)).Scan(&last)
	if err != nil {
		return x.classify(err, "presence sequence")
	}
	first := last - int64(len(rows)) + 1
	for i := range rows {
		rows[i].LastUpdateID = first + int64(i)
	}
	if x.d.JSONLists {
		arg := make([]presenceRow, len(rows))
		for i, r := range rows {
			arg[i] = presenceRow{User: r.UserID, Connected: r.LastConnected.Unix()}
			if !r.LastActive.IsZero() {
				arg[i].Active = new(r.LastActive.Unix())
			}
		}
		js, err := json.Marshal(arg)
		if err != nil {
			return err
		}
		_, err = x.q.Exec(ctx, putPresencesJSONSQL, realm, first, string(js))
		return x.classify(err, "put presences")
	}
	users := make([]int64, len(rows))
	active := make([]*time.Time, len(rows)) // nil: never active
	connected := make([]time.Time, len(rows))
	for i, r := range rows {
		users[i], connected[i] = int64(r.UserID), r.LastConnected
		if !r.LastActive.IsZero() {
			active[i] = new(r.LastActive)
		}
	}
	_, err = x.q.Exec(ctx, putPresencesArraysSQL, realm, first, users, active, connected)
	return x.classify(err, "put presences")
}
