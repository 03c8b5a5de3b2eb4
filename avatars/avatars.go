// Package avatars carries out Zulip's uploaded avatars: POST
// /users/me/avatar (an image, kept as uploaded and as 100×100 and 500×500
// PNG squares) and DELETE /users/me/avatar (back to Gravatar), with the
// avatar_source and avatar_version changes and the realm_user update
// events Zulip's do_change_avatar_fields sends, and the opening of the
// stored images for serving. Images are kept in the Service's
// [chatcore.FileStorage] under [chatcore.AvatarKey]. The realm icon
// ([SetRealmIcon], [DeleteRealmIcon]) is an administrator's upload of the
// same kind, kept under [chatcore.RealmIconKey].
package avatars

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/uploads"
)

// MaxFileSizeMiB is Zulip's MAX_AVATAR_FILE_SIZE_MIB (max_avatar_file_size_mib
// in /register).
const MaxFileSizeMiB = 5

// The sides of the stored squares: Zulip's DEFAULT_AVATAR_SIZE and
// MEDIUM_AVATAR_SIZE.
const (
	SmallSize  = 100
	MediumSize = 500
)

// acceptedFormats are the image formats (as image.DecodeConfig names them)
// accepted as avatars: Zulip's THUMBNAIL_ACCEPT_IMAGE_TYPES that pure Go
// decodes.
var acceptedFormats = map[string]bool{"png": true, "jpeg": true, "gif": true, "webp": true}

// readImage reads the image body yields, refusing one over maxMiB with
// Zulip's "Uploaded file is larger than the allowed limit of N MiB".
func readImage(body io.Reader, maxMiB int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(body, maxMiB<<20+1))
	if err != nil {
		return nil, fmt.Errorf("avatars: read image: %w", err)
	}
	if int64(len(data)) > maxMiB<<20 {
		return nil, tooLarge(maxMiB)
	}
	return data, nil
}

// tooLarge is Zulip's refusal of an image over maxMiB.
func tooLarge(maxMiB int64) error {
	return chatcore.BadRequestf("Uploaded file is larger than the allowed limit of %d MiB", maxMiB)
}

// Set makes the image body yields user's avatar, as Zulip's
// set_avatar_backend: at most MaxFileSizeMiB, a PNG, JPEG, GIF or WebP
// image ("Invalid image format" otherwise, SVG included) whose header is
// within the decoding limits ("Image size exceeds limit.") and whose pixels
// decode ("Could not decode image; did you upload an image file?"). The
// original and the two squares are stored under the next avatar version;
// then, in one transaction, avatar_source becomes "U" and avatar_version
// grows by one, and a realm_user update event goes to the realm's active
// users (with a realm_bot one to a bot's owner). The previous uploaded
// avatar's files are removed afterwards. Nothing is kept when the image is
// refused or the transaction fails. It returns the new avatar_url.
func Set(ctx context.Context, svc *chatcore.Service, user *chatcore.User, body io.Reader) (string, error) {
	fs := svc.FileStorage()
	if fs == nil {
		return "", chatcore.BadRequest("File uploads are not enabled on this server")
	}
	data, err := readImage(body, MaxFileSizeMiB)
	if err != nil {
		return "", err
	}
	squares, err := checkedSquares(data, SmallSize, MediumSize)
	if err != nil {
		return "", err
	}
	prev := chatcore.AvatarVersion(user)
	next := prev + 1
	files := map[string][]byte{chatcore.AvatarOriginal: data, chatcore.AvatarSmall: squares[0], chatcore.AvatarMedium: squares[1]}
	var stored []string
	removeStored := func() {
		for _, key := range stored {
			_ = fs.Delete(context.WithoutCancel(ctx), key)
		}
	}
	for variant, b := range files {
		key := chatcore.AvatarKey(user.RealmID, user.ID, next, variant)
		if _, err := fs.Put(ctx, key, bytes.NewReader(b)); err != nil {
			removeStored()
			return "", fmt.Errorf("avatars: store image: %w", err)
		}
		stored = append(stored, key)
	}
	u, old, err := change(ctx, svc, user.ID, prev, chatcore.UploadedAvatarSource)
	if err != nil {
		removeStored()
		return "", err
	}
	removeFiles(ctx, svc, old)
	return svc.AvatarURL(u), nil
}

// checkedSquares returns the PNG squares of the sides given of the image
// data holds, as Zulip's resize_avatar, after checking it as Zulip's
// libvips_check_image: a PNG, JPEG, GIF or WebP image ("Invalid image
// format" otherwise, SVG included) whose header is within the decoding
// limits ("Image size exceeds limit.") and whose pixels decode ("Could
// not decode image; did you upload an image file?").
func checkedSquares(data []byte, sides ...int) ([][]byte, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || !acceptedFormats[format] {
		return nil, chatcore.BadRequest("Invalid image format")
	}
	if int64(cfg.Width)*int64(cfg.Height) > uploads.MaxImagePixels || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, chatcore.BadRequest("Image size exceeds limit.")
	}
	bufs := make([]bytes.Buffer, len(sides))
	ws := make([]io.Writer, len(sides))
	for i := range bufs {
		ws[i] = &bufs[i]
	}
	if err := uploads.SquareImages(bytes.NewReader(data), sides, ws); err != nil {
		if errors.Is(err, uploads.ErrNotThumbnailed) {
			return nil, chatcore.BadRequest("Image size exceeds limit.")
		}
		return nil, chatcore.BadRequest("Could not decode image; did you upload an image file?")
	}
	out := make([][]byte, len(sides))
	for i := range bufs {
		out[i] = bufs[i].Bytes()
	}
	return out, nil
}

// Delete returns user's avatar to Gravatar, as Zulip's
// delete_avatar_backend: avatar_source becomes "G" and avatar_version
// grows by one (also when it was Gravatar's already), with the realm_user
// update event, and an uploaded avatar's files are removed. It returns the
// new avatar_url.
func Delete(ctx context.Context, svc *chatcore.Service, user *chatcore.User) (string, error) {
	u, old, err := change(ctx, svc, user.ID, 0, chatcore.GravatarAvatarSource)
	if err != nil {
		return "", err
	}
	removeFiles(ctx, svc, old)
	return svc.AvatarURL(u), nil
}

// change sets the avatar source of user to source and counts one avatar
// change, in one transaction with the events; when prev is not 0 the
// stored version must still be prev (else another change came first and
// this one is refused). It returns the changed user and the user as it was.
func change(ctx context.Context, svc *chatcore.Service, id chatcore.UserID, prev int, source string) (*chatcore.User, *chatcore.User, error) {
	var u, old *chatcore.User
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		cur, err := tx.User(ctx, id)
		if err != nil {
			return err
		}
		if prev != 0 && chatcore.AvatarVersion(cur) != prev {
			return chatcore.BadRequest("The avatar was changed by another request; try again")
		}
		before := *cur
		cur.AvatarSource = source
		cur.AvatarVersion = chatcore.AvatarVersion(&before) + 1
		if err := tx.UpdateUser(ctx, cur); err != nil {
			return err
		}
		ids, err := chatcore.ActiveUserIDs(ctx, tx, cur.RealmID)
		if err != nil {
			return err
		}
		avatar := svc.AvatarURL(cur)
		fx.Event(cur.RealmID, ids, map[string]any{"type": "realm_user", "op": "update", "person": map[string]any{
			"user_id": cur.ID, "avatar_source": cur.AvatarSource, "avatar_url": avatar,
			"avatar_url_medium": svc.AvatarMediumURL(cur), "avatar_version": cur.AvatarVersion,
		}})
		if cur.IsBot && cur.BotOwnerID != 0 {
			fx.Event(cur.RealmID, []chatcore.UserID{cur.BotOwnerID}, map[string]any{"type": "realm_bot", "op": "update",
				"bot": map[string]any{"user_id": cur.ID, "avatar_url": avatar}})
		}
		u, old = cur, &before
		return nil
	})
	return u, old, err
}

// removeFiles removes the uploaded avatar files of old (the user before a
// change), when it had an uploaded avatar; a failure leaves files no URL
// names any more.
func removeFiles(ctx context.Context, svc *chatcore.Service, old *chatcore.User) {
	if old.AvatarSource != chatcore.UploadedAvatarSource {
		return
	}
	for _, variant := range []string{chatcore.AvatarOriginal, chatcore.AvatarSmall, chatcore.AvatarMedium} {
		_ = svc.FileStorage().Delete(context.WithoutCancel(ctx), chatcore.AvatarKey(old.RealmID, old.ID, chatcore.AvatarVersion(old), variant))
	}
}

// Open opens the stored avatar image file (the last segment of
// /user_avatars/{realm}/{file}: "{hash}.png" or "{hash}-medium.png") of
// realm for serving; anything else, or a file not stored, is not found.
func Open(ctx context.Context, svc *chatcore.Service, realm chatcore.RealmID, file string) (chatcore.StoredFile, error) {
	fs := svc.FileStorage()
	if fs == nil || !validFile(file) {
		return nil, chatcore.ErrNotFound
	}
	return fs.Open(ctx, "user_avatars/"+strconv.FormatInt(int64(realm), 10)+"/"+file)
}

// validFile reports whether file names a served avatar image: 40
// lower-case hex digits and ".png" or "-medium.png".
func validFile(file string) bool {
	hash, ok := strings.CutSuffix(file, chatcore.AvatarMedium)
	if !ok {
		hash, ok = strings.CutSuffix(file, chatcore.AvatarSmall)
	}
	if !ok || len(hash) != 40 {
		return false
	}
	for i := range len(hash) {
		if c := hash[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
