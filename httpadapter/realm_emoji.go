package httpadapter

import (
	"context"
	"io"
	"net/http"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/realmemoji"
)

// realmEmojiRoutes are the routes of custom emoji.
func (h *handler) realmEmojiRoutes() []route {
	return []route{
		{pattern: "GET /api/v1/realm/emoji", fn: h.realmEmoji},
		{pattern: "POST /api/v1/realm/emoji/{emoji_name}", stream: h.addRealmEmoji},
		{pattern: "DELETE /api/v1/realm/emoji/{emoji_name}", fn: h.removeRealmEmoji},
		{pattern: "GET /user_avatars/{realm_id}/emoji/images/{file}", public: true, ids: []string{"realm_id"}, stream: h.serveRealmEmoji},
	}
}

// realmEmoji answers GET /realm/emoji.
func (h *handler) realmEmoji(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	list, err := realmemoji.List(ctx, h.svc, c.user)
	if err != nil {
		return nil, err
	}
	return map[string]any{"emoji": list}, nil
}

// addRealmEmoji answers POST /realm/emoji/{emoji_name}: exactly one file,
// streamed to the storage.
func (h *handler) addRealmEmoji(w http.ResponseWriter, c *call) error {
	name := c.r.PathValue("emoji_name")
	err := oneFile{maxMiB: realmemoji.MaxFileSizeMiB, wrongCount: "You must upload exactly one file.",
		readError: func(err error) error { return uploadReadError(h.svc, err) },
		store:     func(ctx context.Context, file io.Reader) error { return realmemoji.Add(ctx, h.svc, c.user, name, file) },
		undo:      func(ctx context.Context) { _ = realmemoji.Remove(ctx, h.svc, c.user, name) },
	}.read(w, c.r)
	if err != nil {
		return err
	}
	h.writeSuccess(w, c.r, nil, nil)
	return nil
}

// removeRealmEmoji answers DELETE /realm/emoji/{emoji_name}.
func (h *handler) removeRealmEmoji(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	return nil, realmemoji.Remove(ctx, h.svc, c.user, c.r.PathValue("emoji_name"))
}

// serveRealmEmoji answers GET /user_avatars/{realm_id}/emoji/images/{file}.
func (h *handler) serveRealmEmoji(w http.ResponseWriter, c *call) error {
	img, err := realmemoji.Open(c.r.Context(), h.svc, pathID[chatcore.RealmID](c, "realm_id"), c.r.PathValue("file"))
	if err != nil {
		return err
	}
	defer img.Content.Close()
	hd := w.Header()
	hd.Set("Content-Type", img.ContentType)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", uploadCSP)
	hd.Set("Cache-Control", "public, max-age=86400")
	http.ServeContent(w, c.r, "", img.Content.ModTime(), img.Content)
	return nil
}
