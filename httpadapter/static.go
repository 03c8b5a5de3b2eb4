package httpadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/emoji"
)

// The paths of the files the adapter serves itself, so that every URL its
// answers carry resolves: the default avatar (a user who deleted their
// profile picture), the realm icon and Zulip's emoji data
// (server_emoji_data_url). Avatars not uploaded are Gravatar's, as in a
// Zulip server with ENABLE_GRAVATAR (its default).
const (
	defaultAvatarPath = "/static/images/default-avatar.png"
	realmIconPath     = chatcore.DefaultRealmIconPath
	emojiDataPath     = "/static/generated/emoji/emoji_api.json"
)

// realmIconSVG is the realm icon: a rounded square with a speech bubble.
const realmIconSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">` +
	`<rect width="64" height="64" rx="12" fill="#6492fe"/>` +
	`<path d="M14 18h36a4 4 0 0 1 4 4v18a4 4 0 0 1-4 4H28l-10 8v-8h-4a4 4 0 0 1-4-4V22a4 4 0 0 1 4-4z" fill="#fff"/></svg>`

// defaultAvatarPNG is the default avatar: a grey silhouette on a light
// background, 100×100, drawn once.
var defaultAvatarPNG = sync.OnceValue(func() []byte {
	const n = 100
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	bg, fg := color.RGBA{0xe0, 0xe0, 0xe0, 0xff}, color.RGBA{0x9e, 0x9e, 0x9e, 0xff}
	for y := range n {
		for x := range n {
			c := bg
			dx, dy := x-n/2, y-38
			if dx*dx+dy*dy <= 18*18 { // the head
				c = fg
			}
			dy = y - 100
			if y > 62 && dx*dx+dy*dy <= 38*38 { // the shoulders
				c = fg
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // an in-memory image always encodes
	return buf.Bytes()
})

// emojiDataJSON is the body of server_emoji_data_url: Zulip's
// {"code_to_names": {code: [canonical name, aliases...]}}.
var emojiDataJSON = sync.OnceValue(func() []byte {
	b, _ := json.Marshal(map[string]any{"code_to_names": emoji.CodeToNames()}) // strings always marshal
	return b
})

// serveFile writes a static file with a day's caching.
func serveFile(w http.ResponseWriter, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

func (h *handler) defaultAvatar(_ context.Context, _ *call, w http.ResponseWriter) error {
	serveFile(w, "image/png", defaultAvatarPNG())
	return nil
}

func (h *handler) realmIcon(_ context.Context, _ *call, w http.ResponseWriter) error {
	serveFile(w, "image/svg+xml", []byte(realmIconSVG))
	return nil
}

func (h *handler) emojiData(_ context.Context, _ *call, w http.ResponseWriter) error {
	serveFile(w, "application/json", emojiDataJSON())
	return nil
}

// avatar answers GET /avatar/{user_id_or_email} (and .../medium) as Zulip
// does: a 302 redirect to the avatar of the user of the caller's realm with
// that id or e-mail address (the address the caller sees, so a hidden
// address finds nobody), the request's query string appended; an unknown
// user is treated as an address without an account, whose Gravatar the
// redirect names.
func (h *handler) avatar(ctx context.Context, c *call, w http.ResponseWriter) error {
	key := c.r.PathValue("user_id_or_email")
	if len(key) > maxLoggedEmail {
		return chatcore.BadRequest("Invalid email or user ID")
	}
	var target string
	err := h.svc.View(ctx, func(tx chatcore.Tx) error {
		var u *chatcore.User
		var err error
		if id, perr := strconv.ParseInt(key, 10, 64); perr == nil {
			u, err = tx.User(ctx, chatcore.UserID(id))
		} else {
			u, err = tx.UserByEmail(ctx, c.user.RealmID, key)
			if err == nil && !strings.EqualFold(h.svc.APIEmail(u), key) {
				u, err = nil, chatcore.ErrNotFound
			}
		}
		if errors.Is(err, chatcore.ErrNotFound) || err == nil && u.RealmID != c.user.RealmID {
			target = chatcore.GravatarURL(key) + "&version=1"
			return nil
		}
		if err != nil {
			return err
		}
		if strings.HasSuffix(c.r.URL.Path, "/medium") {
			target = h.svc.AvatarMediumURL(u)
		} else {
			target = h.svc.AvatarURL(u)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if q := c.r.URL.RawQuery; q != "" {
		if strings.Contains(target, "?") {
			target += "&" + q
		} else {
			target += "?" + q
		}
	}
	w.Header().Set("Location", target)
	w.WriteHeader(http.StatusFound)
	return nil
}
