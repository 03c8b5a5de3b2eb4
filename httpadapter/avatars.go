package httpadapter

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/avatars"
)

// avatarRoutes are the routes of uploaded avatars.
func (h *handler) avatarRoutes() []route {
	return []route{
		{pattern: "POST /api/v1/users/me/avatar", stream: h.setAvatar},
		{pattern: "DELETE /api/v1/users/me/avatar", fn: h.deleteAvatar},
		{pattern: "GET /user_avatars/{realm_id}/{file}", public: true, ids: []string{"realm_id"}, stream: h.serveAvatar},
	}
}

// setAvatar answers POST /users/me/avatar: exactly one file (any field
// name), at most avatars.MaxFileSizeMiB.
func (h *handler) setAvatar(w http.ResponseWriter, c *call) error {
	var url string
	err := oneFile{maxMiB: avatars.MaxFileSizeMiB, wrongCount: "You must upload exactly one avatar.", readError: avatarReadError,
		store: func(ctx context.Context, file io.Reader) (err error) {
			url, err = avatars.Set(ctx, h.svc, c.user, file)
			return err
		},
		undo: func(ctx context.Context) {
			if _, err := avatars.Delete(ctx, h.svc, c.user); err != nil {
				h.log.ErrorContext(ctx, "httpadapter: removing an abandoned avatar", "err", err)
			}
		},
	}.read(w, c.r)
	if err != nil {
		return err
	}
	h.writeSuccess(w, c.r, map[string]any{"avatar_url": url}, nil)
	return nil
}

// avatarReadError is the answer to an avatar upload whose body could not
// be read: one over the limit is Zulip's size refusal, others a bad
// multipart body.
func avatarReadError(err error) error {
	if errors.As(err, new(*http.MaxBytesError)) {
		return chatcore.BadRequestf("Uploaded file is larger than the allowed limit of %d MiB", avatars.MaxFileSizeMiB)
	}
	return chatcore.BadRequest("Invalid multipart upload")
}

// deleteAvatar answers DELETE /users/me/avatar.
func (h *handler) deleteAvatar(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	url, err := avatars.Delete(ctx, h.svc, c.user)
	if err != nil {
		return nil, err
	}
	return map[string]any{"avatar_url": url}, nil
}

// serveAvatar answers GET /user_avatars/{realm_id}/{file}: an uploaded
// avatar's PNG square, with the headers of served uploads.
func (h *handler) serveAvatar(w http.ResponseWriter, c *call) error {
	f, err := avatars.Open(c.r.Context(), h.svc, pathID[chatcore.RealmID](c, "realm_id"), c.r.PathValue("file"))
	if errors.Is(err, chatcore.ErrNotFound) {
		return chatcore.NotFound("File not found.")
	}
	if err != nil {
		return err
	}
	defer f.Close()
	servePNG(w, c.r, f)
	return nil
}

// servePNG serves the stored PNG image f with the headers of served
// uploads, cacheable for a day (its URL changes with its version).
func servePNG(w http.ResponseWriter, r *http.Request, f chatcore.StoredFile) {
	hd := w.Header()
	hd.Set("Content-Type", "image/png")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", uploadCSP)
	hd.Set("Cache-Control", "public, max-age=86400")
	http.ServeContent(w, r, "", f.ModTime(), f)
}
