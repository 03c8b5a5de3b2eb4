// Package realmemoji carries out Zulip's custom emoji: GET /realm/emoji,
// POST /realm/emoji/{emoji_name} (an image upload), DELETE
// /realm/emoji/{emoji_name} (deactivation), the realm_emoji events and
// /register section, and serving the images. Images are kept in the
// Service's [chatcore.FileStorage] under "user_avatars/{realm}/emoji/images/".
package realmemoji

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/uploads"
)

// MaxFileSizeMiB is Zulip's MAX_EMOJI_FILE_SIZE_MIB.
const MaxFileSizeMiB = 5

// MaxNameLen bounds an emoji name.
const MaxNameLen = 60

var (
	validName   = regexp.MustCompile(`^[0-9a-z\-_]+$`)
	emojiFormat = map[string]string{"png": "image/png", "gif": "image/gif", "jpeg": "image/jpeg", "webp": "image/webp"}
	extOf       = map[string]string{"image/png": ".png", "image/gif": ".gif", "image/jpeg": ".jpg", "image/webp": ".webp"}
)

// CheckName checks an emoji name as Zulip's check_valid_emoji_name.
func CheckName(name string) error {
	switch {
	case name == "":
		return chatcore.BadRequest("Emoji name is missing")
	case len(name) > MaxNameLen || !validName.MatchString(name):
		return chatcore.BadRequest("Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores.")
	case strings.HasSuffix(name, "-") || strings.HasSuffix(name, "_"):
		return chatcore.BadRequest("Emoji names must end with either a letter or digit.")
	}
	return nil
}

// Key is the storage key of an emoji image of the realm.
func Key(realm chatcore.RealmID, fileName string) string {
	return chatcore.RealmEmojiKey(realm, fileName)
}

// View is an emoji as Zulip's RealmEmoji dictionary shows it.
func View(e chatcore.RealmEmoji) map[string]any {
	v := map[string]any{
		"id": strconv.FormatInt(int64(e.ID), 10), "name": e.Name, "deactivated": e.Deactivated,
		"source_url": "/" + Key(e.RealmID, e.FileName), "author_id": nil,
	}
	if e.AuthorID != 0 {
		v["author_id"] = e.AuthorID
	}
	return v
}

// State returns the realm's emoji keyed by id, deactivated ones included:
// the realm_emoji section of /register and the answer of GET /realm/emoji.
func State(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID) (map[string]any, error) {
	es, err := tx.RealmEmojis(ctx, realm)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(es))
	for _, e := range es {
		out[strconv.FormatInt(int64(e.ID), 10)] = View(e)
	}
	return out, nil
}

// List answers GET /realm/emoji.
func List(ctx context.Context, svc *chatcore.Service, user *chatcore.User) (map[string]any, error) {
	var out map[string]any
	err := svc.View(ctx, func(tx chatcore.Tx) (err error) {
		out, err = State(ctx, tx, user.RealmID)
		return err
	})
	return out, err
}

// event records the realm_emoji update event for the realm's active users.
func event(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, realm chatcore.RealmID) error {
	state, err := State(ctx, tx, realm)
	if err != nil {
		return err
	}
	ids, err := chatcore.ActiveUserIDs(ctx, tx, realm)
	if err != nil {
		return err
	}
	fx.Event(realm, ids, map[string]any{"type": "realm_emoji", "op": "update", "realm_emoji": state})
	return nil
}

// Add adds the custom emoji name with the image body yields, as Zulip's
// upload_emoji: a valid name not used by an active emoji, an uploader in
// the realm's can_add_custom_emoji_group (role:members by default; never
// guests nor bots), a PNG, GIF, JPEG or WebP image of at
// most MaxFileSizeMiB whose header is readable and within
// uploads.MaxImagePixels. The image is streamed to the storage; nothing is
// kept when the emoji is refused. A realm_emoji event follows.
func Add(ctx context.Context, svc *chatcore.Service, user *chatcore.User, name string, body io.Reader) error {
	name = strings.ReplaceAll(strings.TrimSpace(name), " ", "_")
	if err := CheckName(name); err != nil {
		return err
	}
	if user.IsBot {
		return chatcore.BadRequest("Insufficient permission")
	}
	// Asked before the image is stored, and again in the transaction that
	// adds the emoji, where the realm's groups may have changed.
	if err := svc.View(ctx, func(tx chatcore.Tx) error {
		return groups.RequireRealmPermission(ctx, tx, user, "can_add_custom_emoji_group")
	}); err != nil {
		return err
	}
	fs := svc.FileStorage()
	if fs == nil {
		return chatcore.BadRequest("File uploads are not enabled on this server")
	}
	br := bufio.NewReaderSize(body, 64<<10)
	head, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return fmt.Errorf("realmemoji: read image: %w", err)
	}
	if len(head) == 0 {
		return chatcore.BadRequest("You must upload exactly one file.")
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(head))
	ct, ok := emojiFormat[format]
	if err != nil || !ok {
		return chatcore.BadRequest("Invalid image format")
	}
	if int64(cfg.Width)*int64(cfg.Height) > uploads.MaxImagePixels {
		return chatcore.BadRequest("Image size exceeds limit.")
	}
	var rnd [9]byte
	_, _ = rand.Read(rnd[:])
	e := chatcore.RealmEmoji{RealmID: user.RealmID, Name: name, AuthorID: user.ID, ContentType: ct, Created: svc.Now(),
		FileName: base64.RawURLEncoding.EncodeToString(rnd[:]) + extOf[ct]}
	key := Key(user.RealmID, e.FileName)
	lim := &limited{r: br, left: MaxFileSizeMiB << 20}
	if _, err := fs.Put(ctx, key, lim); err != nil {
		if lim.over {
			return chatcore.BadRequestf("Uploaded file is larger than the allowed limit of %d MiB", MaxFileSizeMiB)
		}
		return fmt.Errorf("realmemoji: store image: %w", err)
	}
	err = svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		if err := groups.RequireRealmPermission(ctx, tx, user, "can_add_custom_emoji_group"); err != nil {
			return err
		}
		if old, err := chatcore.ActiveRealmEmoji(ctx, tx, user.RealmID, name); err != nil {
			return err
		} else if old != nil {
			return chatcore.BadRequest("A custom emoji with this name already exists.")
		}
		e.ID = 0
		if err := tx.CreateRealmEmoji(ctx, &e); err != nil {
			return err
		}
		return event(ctx, tx, fx, user.RealmID)
	})
	if err != nil {
		_ = fs.Delete(context.WithoutCancel(ctx), key)
	}
	return err
}

// Remove deactivates the realm's active emoji name, as Zulip's
// delete_emoji: "Emoji 'x' does not exist" when there is none; only an
// administrator or the emoji's author may. A realm_emoji event follows.
func Remove(ctx context.Context, svc *chatcore.Service, user *chatcore.User, name string) error {
	if len(name) > MaxNameLen {
		return chatcore.BadRequestf("Emoji '%s' does not exist", name[:MaxNameLen])
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		e, err := chatcore.ActiveRealmEmoji(ctx, tx, user.RealmID, name)
		if err != nil {
			return err
		}
		if e == nil {
			return chatcore.BadRequestf("Emoji '%s' does not exist", name)
		}
		if !user.Role.IsAdmin() && e.AuthorID != user.ID {
			return chatcore.BadRequest("Must be an organization administrator or emoji author")
		}
		e.Deactivated = true
		if err := tx.UpdateRealmEmoji(ctx, e); err != nil {
			return err
		}
		return event(ctx, tx, fx, user.RealmID)
	})
}

// Image is an emoji image opened for serving.
type Image struct {
	Content     chatcore.StoredFile
	ContentType string
}

// Open opens the image fileName of the realm's emoji (deactivated ones
// included: old reactions show them). Emoji images are public, as in
// Zulip.
func Open(ctx context.Context, svc *chatcore.Service, realm chatcore.RealmID, fileName string) (*Image, error) {
	notFound := &chatcore.Error{Code: chatcore.CodeBadRequest, Kind: chatcore.KindNotFound, Msg: "File not found."}
	var ct string
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		es, err := tx.RealmEmojis(ctx, realm)
		if err != nil {
			return err
		}
		for _, e := range es {
			if e.FileName == fileName && fileName != "" {
				ct = e.ContentType
				return nil
			}
		}
		return notFound
	})
	if err != nil {
		return nil, err
	}
	fs := svc.FileStorage()
	if fs == nil {
		return nil, notFound
	}
	f, err := fs.Open(ctx, Key(realm, fileName))
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	return &Image{Content: f, ContentType: ct}, nil
}

// limited fails a read past left bytes.
type limited struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limited) Read(p []byte) (int, error) {
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		l.over = true
		return 0, errors.New("realmemoji: image too large")
	}
	return n, err
}
