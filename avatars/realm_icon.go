package avatars

// The realm icon: POST /realm/icon (an image, kept as uploaded and as a
// 100×100 PNG square) and DELETE /realm/icon, with the icon_source and
// icon_version changes and the realm update_dict event Zulip's
// do_change_icon_source sends.

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/chatcore/chatcore"
)

// MaxIconFileSizeMiB is Zulip's MAX_ICON_FILE_SIZE_MIB.
const MaxIconFileSizeMiB = 5

// IconTooLarge is Zulip's refusal of a realm icon over MaxIconFileSizeMiB.
func IconTooLarge() error { return tooLarge(MaxIconFileSizeMiB) }

// AvatarTooLarge is Zulip's refusal of an avatar over MaxFileSizeMiB.
func AvatarTooLarge() error { return tooLarge(MaxFileSizeMiB) }

// SetRealmIcon makes the image body yields the icon of the realm of the
// administrator actor, as Zulip's upload_icon: at most
// MaxIconFileSizeMiB, checked and squared as avatars are (see [Set]) to
// SmallSize. The square and the original are stored; then, in one
// transaction, the actor is checked to be an administrator still
// ("Must be an organization administrator"), the realm's icon_source
// becomes "U", its icon_version grows by one, and a realm update_dict
// event (property "icon", with icon_source and icon_url) goes to the
// realm's active users. It returns the new icon_url. A refused image
// stores nothing; when the transaction fails, the stored files are
// removed unless they were the realm's icon already (whose files they
// then replaced, as Zulip's do).
func SetRealmIcon(ctx context.Context, svc *chatcore.Service, actor *chatcore.User, body io.Reader) (string, error) {
	if err := chatcore.Authorize(actor, chatcore.AccessAdmin); err != nil {
		return "", err
	}
	fs := svc.FileStorage()
	if fs == nil {
		return "", chatcore.BadRequest("File uploads are not enabled on this server")
	}
	data, err := readImage(body, MaxIconFileSizeMiB)
	if err != nil {
		return "", err
	}
	squares, err := checkedSquares(data, SmallSize)
	if err != nil {
		return "", err
	}
	var hadIcon bool // the realm shows an uploaded icon, whose files these replace
	if err := svc.View(ctx, func(tx chatcore.Tx) error {
		r, err := tx.Realm(ctx, actor.RealmID)
		hadIcon = err == nil && chatcore.RealmIconSource(r) == chatcore.UploadedIconSource
		return err
	}); err != nil {
		return "", err
	}
	for file, b := range map[string][]byte{chatcore.RealmIconOriginal: data, chatcore.RealmIconFile: squares[0]} {
		if _, err := fs.Put(ctx, chatcore.RealmIconKey(actor.RealmID, file), bytes.NewReader(b)); err != nil {
			return "", fmt.Errorf("avatars: store icon: %w", err)
		}
	}
	url, wasUploaded, err := changeIcon(ctx, svc, actor.ID, chatcore.UploadedIconSource)
	if err != nil && !wasUploaded && !hadIcon {
		for _, file := range []string{chatcore.RealmIconOriginal, chatcore.RealmIconFile} {
			_ = fs.Delete(context.WithoutCancel(ctx), chatcore.RealmIconKey(actor.RealmID, file))
		}
	}
	return url, err
}

// DeleteRealmIcon returns the realm of the administrator actor to the
// default icon, as Zulip's delete_icon_backend: icon_source becomes "G"
// and icon_version grows by one, with the update_dict event; the uploaded
// files are kept (Zulip keeps them for URLs cached before). It returns the
// new icon_url.
func DeleteRealmIcon(ctx context.Context, svc *chatcore.Service, actor *chatcore.User) (string, error) {
	url, _, err := changeIcon(ctx, svc, actor.ID, chatcore.DefaultIconSource)
	return url, err
}

// changeIcon sets the icon source of the realm of actor, who must be an
// administrator, and counts one icon change, in one transaction with the
// event. It returns the new icon_url and whether the realm's icon was an
// uploaded one before.
func changeIcon(ctx context.Context, svc *chatcore.Service, actor chatcore.UserID, source string) (url string, wasUploaded bool, err error) {
	err = svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.AuthorizedActor(ctx, tx, actor, chatcore.AccessAdmin)
		if err != nil {
			return err
		}
		r, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		wasUploaded = chatcore.RealmIconSource(r) == chatcore.UploadedIconSource
		r.IconSource = source
		r.IconVersion++
		if err := tx.UpdateRealm(ctx, r); err != nil {
			return err
		}
		ids, err := chatcore.ActiveUserIDs(ctx, tx, r.ID)
		if err != nil {
			return err
		}
		url = svc.RealmIconURL(r)
		fx.Event(r.ID, ids, map[string]any{"type": "realm", "op": "update_dict", "property": "icon",
			"data": map[string]any{"icon_source": source, "icon_url": url}})
		return nil
	})
	return url, wasUploaded, err
}

// OpenRealmIcon opens the uploaded icon of realm (its 100×100 PNG) for
// serving; a realm without one is not found.
func OpenRealmIcon(ctx context.Context, svc *chatcore.Service, realm chatcore.RealmID) (chatcore.StoredFile, error) {
	fs := svc.FileStorage()
	if fs == nil {
		return nil, chatcore.ErrNotFound
	}
	return fs.Open(ctx, chatcore.RealmIconKey(realm, chatcore.RealmIconFile))
}
