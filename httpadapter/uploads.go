package httpadapter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/uploads"
)

// uploadFormSlack is what a multipart upload body may hold beyond the
// file itself (boundaries, part headers, small fields).
const uploadFormSlack = 1 << 20

// uploadCSP is the Content-Security-Policy of served files: nothing they
// hold may run or load anything (a file opened in the browser is a
// sandboxed document that can show itself and nothing else).
const uploadCSP = "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox"

// uploadRoutes are the routes of uploaded files.
func (h *handler) uploadRoutes() []route {
	return []route{
		{pattern: "POST /api/v1/user_uploads", stream: h.uploadFile},
		{pattern: "GET /api/v1/user_uploads/{realm_id}/{path...}", ids: []string{"realm_id"}, fn: h.uploadTemporaryURL},
		{pattern: "GET /user_uploads/{realm_id}/{path...}", ids: []string{"realm_id"}, stream: h.serveUpload},
		{pattern: "GET /user_uploads/temporary/{token}/{filename}", public: true, stream: h.serveTemporaryUpload},
		{pattern: "GET /user_uploads/thumbnail/{realm_id}/{path...}", ids: []string{"realm_id"}, stream: h.serveThumbnail},
		{pattern: "GET /api/v1/attachments", fn: h.attachments},
		{pattern: "DELETE /api/v1/attachments/{attachment_id}", ids: []string{"attachment_id"}, fn: h.deleteAttachment},
	}
}

// uploadFile answers POST /user_uploads: the request's one file is streamed
// to the storage as it arrives (multipart/form-data, any field name).
func (h *handler) uploadFile(w http.ResponseWriter, c *call) error {
	svc, r := h.svc, c.r
	limit := int64(svc.MaxFileUploadSizeMiB())<<20 + uploadFormSlack
	if r.ContentLength > limit {
		return chatcore.BadRequestf("Uploaded file is larger than the allowed limit of %d MiB", svc.MaxFileUploadSizeMiB())
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mr, err := multipartReader(r)
	if err != nil {
		return chatcore.BadRequest("You must specify a file to upload")
	}
	var got *uploads.Uploaded
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return h.abandonUpload(r.Context(), c.user, got, uploadReadError(svc, err))
		}
		if part.FileName() == "" {
			// A plain field: read past it (bounded by the body limit).
			_, _ = io.Copy(io.Discard, part)
			continue
		}
		if got != nil {
			return h.abandonUpload(r.Context(), c.user, got, chatcore.BadRequest("You may only upload one file at a time"))
		}
		got, err = uploads.Upload(r.Context(), svc, c.user, part.FileName(), part.Header.Get("Content-Type"), -1, part)
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				return uploadReadError(svc, err)
			}
			return err
		}
	}
	if got == nil {
		return chatcore.BadRequest("You must specify a file to upload")
	}
	h.writeSuccess(w, r, map[string]any{"uri": got.URL, "url": got.URL, "filename": got.FileName}, nil)
	return nil
}

// uploadReadError is the answer to a body that could not be read.
func uploadReadError(svc *chatcore.Service, err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return chatcore.BadRequestf("Uploaded file is larger than the allowed limit of %d MiB", svc.MaxFileUploadSizeMiB())
	}
	return chatcore.BadRequest("Invalid multipart upload")
}

// abandonUpload deletes an upload the request turned out to be wrong
// about and returns err.
func (h *handler) abandonUpload(ctx context.Context, user *chatcore.User, got *uploads.Uploaded, err error) error {
	if got != nil {
		if derr := uploads.Delete(context.WithoutCancel(ctx), h.svc, user, got.Attachment.ID); derr != nil {
			h.log.ErrorContext(ctx, "httpadapter: removing an abandoned upload", "err", derr)
		}
	}
	return err
}

// uploadPathID returns the path id a /user_uploads/{realm_id}/{path...}
// request names.
func uploadPathID(c *call) string {
	return c.r.PathValue("realm_id") + "/" + c.r.PathValue("path")
}

// uploadTemporaryURL answers GET /api/v1/user_uploads/{realm_id}/{path}:
// a temporary URL for clients that open the file outside the API.
func (h *handler) uploadTemporaryURL(ctx context.Context, c *call) (map[string]any, error) {
	u, err := uploads.TemporaryURL(ctx, h.svc, c.user, uploadPathID(c))
	if err != nil {
		return nil, err
	}
	return map[string]any{"url": u}, nil
}

// serveUpload answers GET /user_uploads/{realm_id}/{path} for an
// authenticated user who may read the file.
func (h *handler) serveUpload(w http.ResponseWriter, c *call) error {
	f, err := uploads.Open(c.r.Context(), h.svc, c.user, uploadPathID(c))
	if err != nil {
		return err
	}
	writeUpload(w, c.r, f)
	return nil
}

// serveTemporaryUpload answers GET /user_uploads/temporary/{token}/{filename}.
func (h *handler) serveTemporaryUpload(w http.ResponseWriter, c *call) error {
	f, err := uploads.OpenTemporary(c.r.Context(), h.svc, c.r.PathValue("token"), c.r.PathValue("filename"))
	if err != nil {
		return err
	}
	writeUpload(w, c.r, f)
	return nil
}

// writeUpload serves f with its stored type, inline only for Zulip's
// inline types, with nosniff, a sandboxing Content-Security-Policy and an
// ETag; http.ServeContent answers ranges and conditional requests and
// streams the file.
func writeUpload(w http.ResponseWriter, r *http.Request, f *uploads.File) {
	defer f.Content.Close()
	a := f.Attachment
	hd := w.Header()
	ct := a.ContentType
	if strings.HasPrefix(ct, "text/") {
		ct += "; charset=utf-8"
	}
	hd.Set("Content-Type", ct)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", uploadCSP)
	hd.Set("Cache-Control", "private, immutable")
	sum := sha256.Sum256([]byte(a.PathID + "\x00" + strconv.FormatInt(f.Content.Size(), 10) + "\x00" + f.Content.ModTime().UTC().String()))
	hd.Set("ETag", `"`+hex.EncodeToString(sum[:12])+`"`)
	hd.Set("Content-Disposition", contentDisposition(f.Inline, a.FileName))
	var content io.ReadSeeker = f.Content
	if of, ok := f.Content.(interface{ OSFile() *os.File }); ok {
		content = of.OSFile() // served by sendfile where the platform has it
	}
	http.ServeContent(w, r, "", f.Content.ModTime(), content)
}

// contentDisposition returns the header for a file named name, as RFC 6266
// and 8187 spell it: a quoted ASCII name, or an encoded UTF-8 one.
func contentDisposition(inline bool, name string) string {
	disp := "attachment"
	if inline {
		disp = "inline"
	}
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 || name[i] < 0x20 {
			ascii = false
			break
		}
	}
	if ascii {
		return mime.FormatMediaType(disp, map[string]string{"filename": name})
	}
	return fmt.Sprintf("%s; filename*=utf-8''%s", disp, url.PathEscape(name))
}

// attachments answers GET /attachments.
func (h *handler) attachments(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	list, used, err := uploads.List(ctx, h.svc, c.user)
	if err != nil {
		return nil, err
	}
	return map[string]any{"attachments": list, "upload_space_used": used}, nil
}

// deleteAttachment answers DELETE /attachments/{attachment_id}.
func (h *handler) deleteAttachment(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	return nil, uploads.Delete(ctx, h.svc, c.user, pathID[chatcore.AttachmentID](c, "attachment_id"))
}

// serveThumbnail answers GET /user_uploads/thumbnail/{path_id}/{format}
// for a user who may read the upload.
func (h *handler) serveThumbnail(w http.ResponseWriter, c *call) error {
	p := uploadPathID(c)
	i := strings.LastIndex(p, "/")
	f, err := uploads.OpenThumbnail(c.r.Context(), h.svc, c.user, p[:i], p[i+1:])
	if err != nil {
		return err
	}
	writeUpload(w, c.r, f)
	return nil
}
