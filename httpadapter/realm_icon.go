package httpadapter

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/avatars"
)

// realmIconRoutes are the routes of the realm icon.
func (h *handler) realmIconRoutes() []route {
	return []route{
		{pattern: "POST /api/v1/realm/icon", access: chatcore.AccessAdmin, stream: h.uploadRealmIcon},
		{pattern: "DELETE /api/v1/realm/icon", access: chatcore.AccessAdmin, fn: h.deleteRealmIcon},
		{pattern: "GET /api/v1/realm/icon", untyped: true, raw: h.realmIconRedirect},
		{pattern: "GET /user_avatars/{realm_id}/realm/icon.png", public: true, ids: []string{"realm_id"}, stream: h.serveRealmIcon},
	}
}

// uploadRealmIcon answers POST /realm/icon: exactly one file (any field
// name), at most avatars.MaxIconFileSizeMiB, read whole before anything is
// stored (so a second file refuses the request with nothing kept).
func (h *handler) uploadRealmIcon(w http.ResponseWriter, c *call) error {
	var data []byte
	err := oneFile{maxMiB: avatars.MaxIconFileSizeMiB, wrongCount: "You must upload exactly one icon.",
		readError: imageReadError(avatars.IconTooLarge),
		store: func(_ context.Context, file io.Reader) (err error) {
			data, err = io.ReadAll(io.LimitReader(file, avatars.MaxIconFileSizeMiB<<20+1))
			return err
		},
		undo: func(context.Context) {},
	}.read(w, c.r)
	if err != nil {
		return err
	}
	url, err := avatars.SetRealmIcon(c.r.Context(), h.svc, c.user, bytes.NewReader(data))
	if err != nil {
		return err
	}
	h.writeSuccess(w, c.r, map[string]any{"icon_url": url}, nil)
	return nil
}

// deleteRealmIcon answers DELETE /realm/icon.
func (h *handler) deleteRealmIcon(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	url, err := avatars.DeleteRealmIcon(ctx, h.svc, c.user)
	if err != nil {
		return nil, err
	}
	return map[string]any{"icon_url": url}, nil
}

// realmIconRedirect answers GET /realm/icon as Zulip's get_icon_backend: a
// redirect to the caller's realm icon, the request's query string appended.
func (h *handler) realmIconRedirect(ctx context.Context, c *call, w http.ResponseWriter) error {
	var r *chatcore.Realm
	err := h.svc.View(ctx, func(tx chatcore.Tx) (err error) {
		r, err = tx.Realm(ctx, c.user.RealmID)
		return err
	})
	if err != nil {
		return err
	}
	url := h.opts.ExternalURL + chatcore.RealmIconPath(r)
	if q := c.r.URL.RawQuery; q != "" {
		if chatcore.RealmIconSource(r) == chatcore.UploadedIconSource {
			url += "&" + q
		} else {
			url += "?" + q
		}
	}
	http.Redirect(w, c.r, url, http.StatusFound)
	return nil
}

// serveRealmIcon answers GET /user_avatars/{realm_id}/realm/icon.png: the
// realm's uploaded icon, a 100×100 PNG, with the headers of served
// uploads.
func (h *handler) serveRealmIcon(w http.ResponseWriter, c *call) error {
	f, err := avatars.OpenRealmIcon(c.r.Context(), h.svc, pathID[chatcore.RealmID](c, "realm_id"))
	return servePNG(w, c.r, f, err)
}
