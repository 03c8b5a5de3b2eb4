package uploads

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
)

// TemporaryURLLifetime is how long a temporary URL works (Zulip's 60 s).
const TemporaryURLLifetime = 60 * time.Second

// File is an upload opened for serving.
type File struct {
	Attachment chatcore.Attachment
	// Content is the stored bytes; the caller closes it.
	Content chatcore.StoredFile
	// Inline says the file may be shown in the browser (its type is one of
	// InlineTypes); otherwise it is served as an attachment.
	Inline bool
}

func fileNotFound() *chatcore.Error {
	return &chatcore.Error{Code: chatcore.CodeBadRequest, Kind: chatcore.KindNotFound, Msg: "File not found."}
}

// Open opens the upload pathID for viewer, who must be its uploader or able
// to read a message referencing it (see [chatcore.CanReadAttachment]):
// otherwise a Forbidden error; an unknown path gives a NotFound one.
func Open(ctx context.Context, svc *chatcore.Service, viewer *chatcore.User, pathID string) (*File, error) {
	var a *chatcore.Attachment
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		var err error
		if a, err = attachmentFor(ctx, tx, pathID); err != nil {
			return err
		}
		ok, err := chatcore.CanReadAttachment(ctx, tx, viewer, a)
		if err != nil {
			return err
		}
		if !ok {
			if a.RealmID != viewer.RealmID {
				return fileNotFound()
			}
			return &chatcore.Error{Code: chatcore.CodeBadRequest, Kind: chatcore.KindForbidden, Msg: "You are not authorized to view this file."}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return openStored(ctx, svc, a)
}

// attachmentFor returns the attachment with the path, or Zulip's not found.
func attachmentFor(ctx context.Context, tx chatcore.Tx, pathID string) (*chatcore.Attachment, error) {
	if len(pathID) > chatcore.MaxFileKeyLen {
		return nil, fileNotFound()
	}
	a, err := tx.AttachmentByPath(ctx, pathID)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, fileNotFound()
	}
	return a, err
}

// openStored opens a's bytes.
func openStored(ctx context.Context, svc *chatcore.Service, a *chatcore.Attachment) (*File, error) {
	fs := svc.FileStorage()
	if fs == nil {
		return nil, fileNotFound()
	}
	f, err := fs.Open(ctx, a.PathID)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, fileNotFound()
	}
	if err != nil {
		return nil, fmt.Errorf("uploads: open %q: %w", a.PathID, err)
	}
	return &File{Attachment: *a, Content: f, Inline: InlineTypes[a.ContentType]}, nil
}

// TemporaryURL returns a URL that serves upload pathID without
// authentication for TemporaryURLLifetime, after checking viewer may read
// it as [Open] does: "/user_uploads/temporary/{token}/{file name}" (Zulip's
// GET /user_uploads/{realm_id}/{path} answer for the API).
func TemporaryURL(ctx context.Context, svc *chatcore.Service, viewer *chatcore.User, pathID string) (string, error) {
	f, err := Open(ctx, svc, viewer, pathID)
	if err != nil {
		return "", err
	}
	_ = f.Content.Close()
	exp := svc.Now().Add(TemporaryURLLifetime).Unix()
	payload := strconv.FormatInt(exp, 10) + ":" + pathID
	sig, err := sign(ctx, svc, payload)
	if err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + sig
	return "/user_uploads/temporary/" + token + "/" + f.Attachment.FileName, nil
}

// sign returns the URL-safe signature of payload by the Service's upload
// signing key.
func sign(ctx context.Context, svc *chatcore.Service, payload string) (string, error) {
	key, err := svc.UploadSigningKey(ctx)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18]), nil
}

// OpenTemporary opens the upload a temporary URL names: token and the file
// name after it. A token that is forged, altered or expired gives Zulip's
// "Invalid token"; a file name that is not the upload's "Invalid filename".
func OpenTemporary(ctx context.Context, svc *chatcore.Service, token, name string) (*File, error) {
	enc, sig, ok := strings.Cut(token, ".")
	invalid := chatcore.BadRequest("Invalid token")
	if !ok || len(token) > 2*chatcore.MaxFileKeyLen {
		return nil, invalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return nil, invalid
	}
	payload := string(raw)
	want, err := sign(ctx, svc, payload)
	if err != nil {
		return nil, err
	}
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return nil, invalid
	}
	expStr, pathID, ok := strings.Cut(payload, ":")
	exp, err := strconv.ParseInt(expStr, 10, 64)
	if !ok || err != nil || svc.Now().Unix() > exp {
		return nil, invalid
	}
	if pathID[strings.LastIndex(pathID, "/")+1:] != name {
		return nil, chatcore.BadRequest("Invalid filename")
	}
	var a *chatcore.Attachment
	if err := svc.View(ctx, func(tx chatcore.Tx) (err error) {
		a, err = attachmentFor(ctx, tx, pathID)
		return err
	}); err != nil {
		return nil, err
	}
	return openStored(ctx, svc, a)
}

// MaxListed bounds the attachments GET /attachments lists.
const MaxListed = 10000

// List returns user's attachments as Zulip's GET /attachments lists them
// (newest last, each with the messages referencing it) and the bytes the
// realm's uploads take (upload_space_used).
func List(ctx context.Context, svc *chatcore.Service, user *chatcore.User) ([]map[string]any, int64, error) {
	var out []map[string]any
	var used int64
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		as, err := tx.Attachments(ctx, chatcore.AttachmentFilter{OwnerID: user.ID, RealmID: user.RealmID, Limit: MaxListed})
		if err != nil {
			return err
		}
		ids := make([]chatcore.AttachmentID, len(as))
		for i, a := range as {
			ids[i] = a.ID
		}
		refs, err := tx.AttachmentRefs(ctx, ids)
		if err != nil {
			return err
		}
		byID := map[chatcore.AttachmentID][]chatcore.AttachmentRef{}
		for _, r := range refs {
			byID[r.AttachmentID] = append(byID[r.AttachmentID], r)
		}
		out = make([]map[string]any, len(as))
		for i, a := range as {
			out[i] = attachmentView(a, byID[a.ID])
		}
		used, err = tx.AttachmentSpaceUsed(ctx, user.RealmID)
		return err
	})
	return out, used, err
}

// attachmentView is an attachment as Zulip's Attachment.to_dict shows it.
func attachmentView(a chatcore.Attachment, refs []chatcore.AttachmentRef) map[string]any {
	msgs := make([]map[string]any, len(refs))
	for i, r := range refs {
		msgs[i] = map[string]any{"id": r.MessageID, "date_sent": r.DateSent.UnixMilli()}
	}
	return map[string]any{
		"id": a.ID, "name": a.FileName, "path_id": a.PathID, "size": a.Size,
		"create_time": a.Created.UnixMilli(), "messages": msgs,
	}
}

// Delete deletes user's attachment id and its file; an attachment that is
// not theirs is Zulip's "Invalid attachment". The file goes after the
// commit; a file the storage fails to delete is left for Collect's
// storage-side sweep to report (its metadata is gone).
func Delete(ctx context.Context, svc *chatcore.Service, user *chatcore.User, id chatcore.AttachmentID) error {
	var pathID string
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := tx.Attachment(ctx, id)
		if errors.Is(err, chatcore.ErrNotFound) || (err == nil && a.OwnerID != user.ID) {
			return chatcore.BadRequest("Invalid attachment")
		}
		if err != nil {
			return err
		}
		if err := tx.DeleteAttachment(ctx, id); err != nil {
			return err
		}
		used, err := tx.AttachmentSpaceUsed(ctx, user.RealmID)
		if err != nil {
			return err
		}
		pathID = a.PathID
		fx.Event(user.RealmID, []chatcore.UserID{user.ID}, map[string]any{
			"type": "attachment", "op": "remove", "attachment": map[string]any{"id": id}, "upload_space_used": used,
		})
		return nil
	})
	if err != nil {
		return err
	}
	if fs := svc.FileStorage(); fs != nil {
		if err := fs.Delete(context.WithoutCancel(ctx), pathID); err != nil && !errors.Is(err, chatcore.ErrNotFound) {
			svc.Logger().WarnContext(ctx, "uploads: deleting a file failed", "path_id", pathID, "err", err)
		}
		deleteThumbnails(context.WithoutCancel(ctx), fs, pathID)
	}
	return nil
}

// deleteThumbnails deletes the thumbnails of upload pathID.
func deleteThumbnails(ctx context.Context, fs chatcore.FileStorage, pathID string) {
	for _, f := range ThumbnailFormats {
		_ = fs.Delete(ctx, ThumbnailKey(pathID, f.Name))
	}
}
