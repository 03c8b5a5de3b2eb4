package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/chatcore/chatcore/store"
)

const realmEmojiCols = "id, realm_id, name, author_id, file_name, content_type, deactivated, created"

// CreateRealmEmoji implements [store.RealmEmojiStore]; the partial unique
// index on active names gives ErrConflict for a name in use.
func (x *Tx) CreateRealmEmoji(ctx context.Context, e *store.RealmEmoji) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "realm_emoji", "create realm emoji",
		"INSERT INTO realm_emoji ("+realmEmojiCols+") VALUES ("+x.d.IDValue("realm_emoji")+
			", $2, $3, $4, $5, $6, $7, $8) RETURNING id",
		int64(e.ID), int64(e.RealmID), e.Name, int64(e.AuthorID), e.FileName, e.ContentType, e.Deactivated,
		x.d.Time(e.Created.Truncate(time.Second)))
	if err != nil {
		return err
	}
	e.ID = store.RealmEmojiID(id)
	return nil
}

// UpdateRealmEmoji implements [store.RealmEmojiStore].
func (x *Tx) UpdateRealmEmoji(ctx context.Context, e *store.RealmEmoji) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "UPDATE realm_emoji SET file_name = $2, content_type = $3, deactivated = $4 WHERE id = $1",
		int64(e.ID), e.FileName, e.ContentType, e.Deactivated)
	return x.mustAffect(n, err, fmt.Sprintf("update realm emoji %d", e.ID))
}

// RealmEmojisSQL reads the custom emoji of the realm $1, scanned with
// ScanRealmEmoji (see RealmEmojis).
const RealmEmojisSQL = "SELECT " + realmEmojiCols + " FROM realm_emoji WHERE realm_id = $1 ORDER BY id"

// ScanRealmEmoji scans a row of RealmEmojisSQL.
func ScanRealmEmoji(r Row, e *store.RealmEmoji) error {
	return r.Scan(Num(&e.ID), Num(&e.RealmID), &e.Name, Num(&e.AuthorID), &e.FileName, &e.ContentType, &e.Deactivated, Time(&e.Created))
}

// RealmEmojis implements [store.RealmEmojiStore].
func (x *Tx) RealmEmojis(ctx context.Context, realm store.RealmID) ([]store.RealmEmoji, error) {
	out, err := scanAll(ctx, x, "realm emoji", ScanRealmEmoji, RealmEmojisSQL, int64(realm))
	if out == nil && err == nil {
		out = []store.RealmEmoji{}
	}
	return out, err
}
