// Package uploads carries out Zulip's file uploads: POST /user_uploads,
// serving /user_uploads/{realm_id}/{path} to those who may read the file
// (its uploader and the readers of a message referencing it), Zulip's
// temporary URLs, GET /attachments and DELETE /attachments/{id}, and the
// collection of unreferenced uploads. Bytes go to the Service's
// [chatcore.FileStorage] as a stream; metadata and references live in the
// store ([chatcore.Attachment]).
package uploads

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // registers GIF for DecodeConfig
	_ "image/jpeg" // registers JPEG for DecodeConfig
	_ "image/png"  // registers PNG for DecodeConfig
	"io"
	"mime"
	"net/http"
	"regexp"
	"strings"

	"github.com/chatcore/chatcore"
	_ "golang.org/x/image/webp" // registers WebP for DecodeConfig
)

// MaxImagePixels is the largest image (width × height, as its header says)
// accepted: Zulip's IMAGE_BOMB_TOTAL_PIXELS.
const MaxImagePixels = 90_000_000

// sniffBytes is how much of an upload is read ahead to check its type
// and, for images, its header.
const sniffBytes = 64 << 10

// Uploaded is the answer to an upload.
type Uploaded struct {
	// URL is the file's path, "/user_uploads/{path_id}" (Zulip's uri and url).
	URL string
	// FileName is the sanitised name.
	FileName   string
	Attachment chatcore.Attachment
}

// Upload stores the file body yields, named name and declared of type
// declaredType ("" or application/octet-stream: guessed from the name), as
// an upload of user, and returns its URL. size is the length the request
// declared, -1 when unknown; a body longer than the limit is refused
// whatever it declared. The body is streamed to the storage; nothing is
// stored when the upload is refused: too large, over the realm's quota,
// empty, an image whose content is not of its declared type or whose
// header is unreadable or over MaxImagePixels, an SVG with script.
func Upload(ctx context.Context, svc *chatcore.Service, user *chatcore.User, name, declaredType string, size int64, body io.Reader) (*Uploaded, error) {
	fs := svc.FileStorage()
	if fs == nil {
		return nil, chatcore.BadRequest("File uploads are not enabled on this server")
	}
	limit := int64(svc.MaxFileUploadSizeMiB()) << 20
	if size > limit {
		return nil, tooLarge(svc)
	}
	if quota := svc.RealmUploadQuota(); quota > 0 {
		var used int64
		if err := svc.View(ctx, func(tx chatcore.Tx) (err error) {
			used, err = tx.AttachmentSpaceUsed(ctx, user.RealmID)
			return err
		}); err != nil {
			return nil, err
		}
		if used+max(size, 0) > quota {
			return nil, overQuota()
		}
	}
	fileName := SanitizeName(name)
	br := bufio.NewReaderSize(body, sniffBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("uploads: read upload: %w", err)
	}
	if len(head) == 0 {
		return nil, chatcore.BadRequest("The uploaded file is empty")
	}
	contentType, dims, err := checkContent(fileName, declaredType, head)
	if err != nil {
		return nil, err
	}
	pathID := newPathID(int64(user.RealmID), fileName)
	src := &limitReader{r: br, left: limit}
	var r io.Reader = src
	var svg *scriptScanner
	if contentType == "image/svg+xml" {
		svg = &scriptScanner{r: src}
		r = svg
	}
	n, err := fs.Put(ctx, pathID, r)
	if err != nil {
		switch {
		case src.over:
			return nil, tooLarge(svc)
		case svg != nil && svg.found:
			return nil, chatcore.BadRequest("SVG files with scripts are not allowed")
		}
		return nil, fmt.Errorf("uploads: store upload: %w", err)
	}
	a := chatcore.Attachment{RealmID: user.RealmID, OwnerID: user.ID, PathID: pathID, FileName: fileName,
		ContentType: contentType, Size: n, Created: svc.Now()}
	a.ImageWidth, a.ImageHeight = previewSize(contentType, dims.X, dims.Y)
	err = svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		if quota := svc.RealmUploadQuota(); quota > 0 {
			used, err := tx.AttachmentSpaceUsed(ctx, user.RealmID)
			if err != nil {
				return err
			}
			if used+n > quota {
				return overQuota()
			}
		}
		a.ID = 0
		if err := tx.CreateAttachment(ctx, &a); err != nil {
			return err
		}
		used, err := tx.AttachmentSpaceUsed(ctx, user.RealmID)
		if err != nil {
			return err
		}
		fx.Event(user.RealmID, []chatcore.UserID{user.ID}, map[string]any{
			"type": "attachment", "op": "add", "attachment": attachmentView(a, nil), "upload_space_used": used,
		})
		return nil
	})
	if err != nil {
		_ = fs.Delete(context.WithoutCancel(ctx), pathID)
		return nil, err
	}
	if _, ok := thumbnailFormatFor(a.ContentType); ok && !thumbnailLater(context.WithoutCancel(ctx), svc, a) && a.ImageWidth > 0 {
		// No thumbnail will be made: no preview either, rather than a
		// placeholder that never loads.
		if err := thumbnailDone(context.WithoutCancel(ctx), svc, a.ID, ""); err != nil {
			return nil, err
		}
		a.ImageWidth, a.ImageHeight = 0, 0
	}
	return &Uploaded{URL: "/user_uploads/" + pathID, FileName: fileName, Attachment: a}, nil
}

func tooLarge(svc *chatcore.Service) *chatcore.Error {
	return chatcore.BadRequestf("Uploaded file is larger than the allowed limit of %d MiB", svc.MaxFileUploadSizeMiB())
}

func overQuota() *chatcore.Error {
	return chatcore.BadRequest("Upload would exceed your organization's upload quota.")
}

// imageTypes maps the image types whose headers are checked to the format
// names image.DecodeConfig reports.
var imageTypes = map[string]string{"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp"}

// checkContent returns the media type the file is stored with: the
// declared one (without parameters), else one guessed from the name, else
// what the content looks like; and for a PNG, JPEG, GIF or WebP image its
// size as its header gives it, upright (a JPEG's EXIF orientation
// applied; zero otherwise). An image type the content
// does not bear out, an unreadable image header and an image over
// MaxImagePixels are refused; so is content that looks like an image of
// another type.
func checkContent(name, declared string, head []byte) (string, image.Point, error) {
	ct := ""
	if declared != "" {
		if base, _, err := mime.ParseMediaType(declared); err == nil {
			ct = strings.ToLower(base)
		}
	}
	if ct == "" || ct == "application/octet-stream" {
		ct = typeByName(name)
	}
	sniffed := http.DetectContentType(head)
	if ct == "" {
		ct, _, _ = mime.ParseMediaType(sniffed)
		if ct == "" {
			ct = "application/octet-stream"
		}
	}
	if ct == "image/svg+xml" || strings.HasSuffix(strings.ToLower(name), ".svg") {
		return "image/svg+xml", image.Point{}, nil
	}
	format, isImage := imageTypes[ct]
	sniffedBase, _, _ := mime.ParseMediaType(sniffed)
	if !isImage {
		if f, ok := imageTypes[sniffedBase]; ok && InlineTypes[ct] {
			// Image bytes under another inline type: serve them as what they are.
			return "", image.Point{}, chatcore.BadRequestf("The file's content (%s) does not match its declared type (%s)", f, ct)
		}
		return ct, image.Point{}, nil
	}
	cfg, got, err := image.DecodeConfig(bytes.NewReader(head))
	if err != nil {
		if _, ok := imageTypes[sniffedBase]; !ok {
			return "", image.Point{}, chatcore.BadRequestf("The file's content does not match its declared type (%s)", ct)
		}
		return "", image.Point{}, chatcore.BadRequest("Invalid image format")
	}
	if got != format {
		return "", image.Point{}, chatcore.BadRequestf("The file's content (%s) does not match its declared type (%s)", got, ct)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels || cfg.Width <= 0 || cfg.Height <= 0 {
		return "", image.Point{}, chatcore.BadRequest("Image size exceeds limit.")
	}
	if got == "jpeg" && swapsSides(jpegOrientation(head)) {
		// The size shown is the upright one, as Zulip records it.
		cfg.Width, cfg.Height = cfg.Height, cfg.Width
	}
	return ct, image.Point{X: cfg.Width, Y: cfg.Height}, nil
}

// limitReader reads at most left bytes and fails once the source has more.
type limitReader struct {
	r    io.Reader
	left int64
	over bool
}

var errTooLarge = errors.New("uploads: file too large")

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		l.over = true
		return 0, errTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		l.over = true
		return 0, errTooLarge
	}
	return n, err
}

// scriptScanner passes an SVG through and fails when it holds script: a
// script element, a javascript: URL or an event-handler attribute.
type scriptScanner struct {
	r     io.Reader
	tail  []byte // the last bytes of the previous read, for matches across reads
	found bool
}

var errScript = errors.New("uploads: SVG with script")

var scriptMarkers = regexp.MustCompile(`<script|javascript:|<foreignobject|[\s/"']on[a-z]+\s*=`)

func (s *scriptScanner) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		window := bytes.ToLower(append(s.tail, p[:n]...))
		if scriptMarkers.Match(window) {
			s.found = true
			return 0, errScript
		}
		keep := min(len(window), 32)
		s.tail = append(s.tail[:0], window[len(window)-keep:]...)
	}
	return n, err
}
