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
	err := oneFile{maxMiB: avatars.MaxFileSizeMiB, wrongCount: "You must upload exactly one avatar.", readError: imageReadError(avatars.AvatarTooLarge),
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

// imageReadError returns the answer to a single-image upload whose body
// could not be read: tooLarge's for one cut at the size bound, else a bad
// multipart body.
func imageReadError(tooLarge func() error) func(error) error {
	return func(err error) error {
		if errors.As(err, new(*http.MaxBytesError)) {
			return tooLarge()
		}
		return chatcore.BadRequest("Invalid multipart upload")
	}
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
	return servePNG(w, c.r, f, err)
}

// servePNG serves the stored PNG image f, opened with error err, with the
// headers of served uploads, cacheable for a day (its URL changes with its
// version); a missing file is Zulip's "File not found.".
func servePNG(w http.ResponseWriter, r *http.Request, f chatcore.StoredFile, err error) error {
	if errors.Is(err, chatcore.ErrNotFound) {
		return chatcore.NotFound("File not found.")
	}
	if err != nil {
		return err
	}
	defer f.Close()
	hd := w.Header()
	hd.Set("Content-Type", "image/png")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", uploadCSP)
	hd.Set("Cache-Control", "public, max-age=86400")
	http.ServeContent(w, r, "", f.ModTime(), f)
	return nil
}
