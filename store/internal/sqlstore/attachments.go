package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/chatcore/chatcore/store"
)

const attachmentCols = "id, realm_id, owner_id, path_id, file_name, content_type, size, created, image_width, image_height, thumbnail"

// CreateAttachment implements [store.AttachmentStore]; a zero id becomes
// one above every id used (AUTOINCREMENT on SQLite, the identity sequence
// on PostgreSQL).
func (x *Tx) CreateAttachment(ctx context.Context, a *store.Attachment) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "attachments", "create attachment",
		"INSERT INTO attachments ("+attachmentCols+") VALUES ("+x.d.IDValue("attachments")+
			", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
		int64(a.ID), int64(a.RealmID), int64(a.OwnerID), a.PathID, a.FileName, a.ContentType, a.Size,
		x.d.Time(a.Created.Truncate(time.Second)), a.ImageWidth, a.ImageHeight, a.Thumbnail)
	if err != nil {
		return err
	}
	a.ID = store.AttachmentID(id)
	return nil
}

// scanAttachment reads one row of attachmentCols.
func scanAttachment(r Row, a *store.Attachment) error {
	return r.Scan(Num(&a.ID), Num(&a.RealmID), Num(&a.OwnerID), &a.PathID, &a.FileName, &a.ContentType, &a.Size, Time(&a.Created),
		&a.ImageWidth, &a.ImageHeight, &a.Thumbnail)
}

// Attachment implements [store.AttachmentStore].
func (x *Tx) Attachment(ctx context.Context, id store.AttachmentID) (*store.Attachment, error) {
	var a store.Attachment
	err := scanAttachment(x.q.QueryRow(ctx, "SELECT "+attachmentCols+" FROM attachments WHERE id = $1", int64(id)), &a)
	if err != nil {
		return nil, x.classify(err, fmt.Sprintf("attachment %d", id))
	}
	return &a, nil
}

// AttachmentByPath implements [store.AttachmentStore].
func (x *Tx) AttachmentByPath(ctx context.Context, path string) (*store.Attachment, error) {
	var a store.Attachment
	err := scanAttachment(x.q.QueryRow(ctx, "SELECT "+attachmentCols+" FROM attachments WHERE path_id = $1", path), &a)
	if err != nil {
		return nil, x.classify(err, fmt.Sprintf("attachment %q", path))
	}
	return &a, nil
}

// Attachments implements [store.AttachmentStore].
func (x *Tx) Attachments(ctx context.Context, f store.AttachmentFilter) ([]store.Attachment, error) {
	query := "SELECT " + attachmentCols + " FROM attachments a WHERE true"
	var args []any
	param := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.RealmID != 0 {
		query += " AND realm_id = " + param(int64(f.RealmID))
	}
	if f.OwnerID != 0 {
		query += " AND owner_id = " + param(int64(f.OwnerID))
	}
	if f.PathIDs != nil {
		query += " AND " + x.d.In("path_id", param(x.d.Strings(f.PathIDs)), "text")
	}
	if !f.CreatedBefore.IsZero() {
		query += " AND created < " + param(x.d.Time(f.CreatedBefore))
	}
	if f.AwaitingThumbnail { // the partial index attachments_awaiting_thumbnail
		query += " AND image_width > 0 AND thumbnail = ''"
	}
	if f.AfterID != 0 {
		query += " AND id > " + param(int64(f.AfterID))
	}
	if f.Unreferenced {
		query += " AND NOT EXISTS (SELECT 1 FROM attachment_messages am JOIN messages m ON m.id = am.message_id WHERE am.attachment_id = a.id)"
	}
	query += " ORDER BY id"
	if f.Limit > 0 {
		query += " LIMIT " + param(f.Limit)
	}
	out, err := scanAll(ctx, x, "attachments", scanAttachment, query, args...)
	if out == nil && err == nil {
		out = []store.Attachment{}
	}
	return out, err
}

// AttachmentSpaceUsed implements [store.AttachmentStore].
func (x *Tx) AttachmentSpaceUsed(ctx context.Context, realm store.RealmID) (int64, error) {
	var n int64
	err := x.q.QueryRow(ctx, "SELECT coalesce(sum(size), 0) FROM attachments WHERE realm_id = $1", int64(realm)).Scan(&n)
	return n, x.classify(err, "attachment space used")
}

// DeleteAttachment implements [store.AttachmentStore].
func (x *Tx) DeleteAttachment(ctx context.Context, id store.AttachmentID) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	if _, err := x.q.Exec(ctx, "DELETE FROM attachment_messages WHERE attachment_id = $1", int64(id)); err != nil {
		return x.classify(err, "delete attachment references")
	}
	n, err := x.q.Exec(ctx, "DELETE FROM attachments WHERE id = $1", int64(id))
	return x.mustAffect(n, err, fmt.Sprintf("delete attachment %d", id))
}

// SetMessageAttachments implements [store.AttachmentStore] with one DELETE
// and one INSERT ... SELECT.
func (x *Tx) SetMessageAttachments(ctx context.Context, msg store.MessageID, ids []store.AttachmentID) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	if _, err := x.q.Exec(ctx, "DELETE FROM attachment_messages WHERE message_id = $1", int64(msg)); err != nil {
		return x.classify(err, "set message attachments")
	}
	if len(ids) == 0 {
		return nil
	}
	_, err := x.q.Exec(ctx, "INSERT INTO attachment_messages (attachment_id, message_id) SELECT DISTINCT a.id, "+x.d.Cast("$1", "bigint")+" FROM "+
		x.d.Each("$2", "bigint")+" JOIN attachments a ON a.id = value WHERE true ON CONFLICT DO NOTHING",
		int64(msg), List(x.d, ids))
	return x.classify(err, "set message attachments")
}

// SetAttachmentImage implements [store.AttachmentStore] with one UPDATE.
func (x *Tx) SetAttachmentImage(ctx context.Context, id store.AttachmentID, width, height int, thumbnail string) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "UPDATE attachments SET image_width = $2, image_height = $3, thumbnail = $4 WHERE id = $1",
		int64(id), width, height, thumbnail)
	return x.mustAffect(n, err, fmt.Sprintf("set attachment %d image", id))
}

// AttachmentRefs implements [store.AttachmentStore].
func (x *Tx) AttachmentRefs(ctx context.Context, ids []store.AttachmentID) ([]store.AttachmentRef, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return scanAll(ctx, x, "attachment references", func(r Row, a *store.AttachmentRef) error {
		return r.Scan(Num(&a.AttachmentID), Num(&a.MessageID), Time(&a.DateSent))
	}, "SELECT am.attachment_id, am.message_id, m.sent_at FROM attachment_messages am JOIN messages m ON m.id = am.message_id WHERE "+
		x.d.In("am.attachment_id", "$1", "bigint")+" ORDER BY am.attachment_id, am.message_id", List(x.d, ids))
}
