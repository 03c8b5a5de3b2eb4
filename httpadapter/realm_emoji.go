package httpadapter

import (
	"context"
	"errors"
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
	r := c.r
	const limit = realmemoji.MaxFileSizeMiB<<20 + uploadFormSlack
	if r.ContentLength > limit {
		return chatcore.BadRequestf("Uploaded file is larger than the allowed limit of %d MiB", realmemoji.MaxFileSizeMiB)
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mr, err := r.MultipartReader()
	if err != nil {
		return chatcore.BadRequest("You must upload exactly one file.")
	}
	done := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return uploadReadError(h.svc, err)
		}
		if part.FileName() == "" {
			_, _ = io.Copy(io.Discard, part)
			continue
		}
		if done {
			// Zulip refuses several files before storing any; here the
			// first is stored already: take it back.
			_ = realmemoji.Remove(context.WithoutCancel(r.Context()), h.svc, c.user, r.PathValue("emoji_name"))
			return chatcore.BadRequest("You must upload exactly one file.")
		}
		if err := realmemoji.Add(r.Context(), h.svc, c.user, r.PathValue("emoji_name"), part); err != nil {
			return err
		}
		done = true
	}
	if !done {
		return chatcore.BadRequest("You must upload exactly one file.")
	}
	h.writeSuccess(w, r, nil, nil)
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
