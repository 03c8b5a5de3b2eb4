package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/store/filestore"
	"github.com/chatcore/chatcore/uploads"
	"github.com/matryer/is"
)

// uploadEnv is an adapter over the fixture whose Service stores uploads
// in a directory of the test's own (returned, to look into).
func uploadEnv(t testing.TB, svcOpts ...chatcore.Option) (*env, string) {
	t.Helper()
	return uploadEnvOn(t, nil, svcOpts...)
}

// uploadEnvOn is uploadEnv over store st (nil: a new memory store).
func uploadEnvOn(t testing.TB, st chatcore.Store, svcOpts ...chatcore.Option) (*env, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "uploads")
	fs, err := filestore.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Before the directory goes: no thumbnail worker writes to it.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := uploads.WaitThumbnails(ctx); err != nil {
			t.Error(err)
		}
		_ = fs.Close()
	})
	w, logs, logger := newWorld(t, st, "testdata/fixture.json", append([]chatcore.Option{chatcore.WithFileStorage(fs)}, svcOpts...)...)
	return startAdapter(t, w, logs, logger, httpadapter.Options{}), dir
}

// filePart is one part of a multipart upload.
type filePart struct {
	field, name, contentType string
	data                     []byte
}

// upload posts the parts as multipart/form-data to /api/v1/user_uploads.
func (e *env) upload(t *testing.T, who cred, parts ...filePart) *response {
	t.Helper()
	return e.postFiles(t, who, "/api/v1/user_uploads", parts...)
}

// postFiles posts the parts as multipart/form-data to path.
func (e *env) postFiles(t *testing.T, who cred, path string, parts ...filePart) *response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.name == "" {
			h.Set("Content-Disposition", `form-data; name="`+p.field+`"`)
		} else {
			h.Set("Content-Disposition", `form-data; name="`+p.field+`"; filename="`+p.name+`"`)
		}
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(p.data)
	}
	_ = mw.Close()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.srv.URL+path, &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", who.basic())
	return e.send(t, req)
}

// get fetches a path of the server (not below /api/v1) as who (nil: no
// authentication) with extra headers.
func (e *env) get(t *testing.T, path string, who *cred, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if who != nil {
		req.Header.Set("Authorization", who.basic())
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

// storedFiles counts the files under dir.
func storedFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// pngBytes encodes a small PNG.
func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngHeader is the start of a PNG whose header claims w × h pixels: a
// decompression bomb's announcement, with no pixels after it.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestHTTPUploads(t *testing.T) {
	is := is.New(t)
	e, dir := uploadEnv(t)

	res := e.upload(t, member, filePart{field: "file", name: "my notes (final).txt", data: []byte("hello, world")})
	wantSuccess(t, res)
	uri, _ := res.body["uri"].(string)
	is.Equal(res.body["url"], uri)                                                  // url and uri both
	is.Equal(res.body["filename"], "my-notes-final.txt")                            // Zulip's sanitised name
	is.True(strings.HasPrefix(uri, "/user_uploads/1/"))                             // the realm's path
	is.True(strings.HasSuffix(uri, "/my-notes-final.txt"))                          // ending in the name
	is.Equal(len(strings.Split(strings.TrimPrefix(uri, "/user_uploads/"), "/")), 3) // realm/random/name
	is.Equal(storedFiles(t, dir), 1)                                                // one file stored

	// The uploader reads it, with the serving headers.
	r, body := e.get(t, uri, &member)
	is.Equal(r.StatusCode, http.StatusOK)
	is.Equal(string(body), "hello, world")
	is.Equal(r.Header.Get("Content-Type"), "text/plain; charset=utf-8")
	is.Equal(r.Header.Get("X-Content-Type-Options"), "nosniff")
	is.True(strings.Contains(r.Header.Get("Content-Security-Policy"), "default-src 'none'"))
	is.True(strings.Contains(r.Header.Get("Content-Security-Policy"), "sandbox"))
	is.Equal(r.Header.Get("Content-Disposition"), `inline; filename=my-notes-final.txt`)
	etag := r.Header.Get("ETag")
	is.True(etag != "")
	r, body = e.get(t, uri, &member, "Range", "bytes=7-11")
	is.Equal(r.StatusCode, http.StatusPartialContent) // ranges
	is.Equal(string(body), "world")
	r, _ = e.get(t, uri, &member, "If-None-Match", etag)
	is.Equal(r.StatusCode, http.StatusNotModified) // the ETag

	// Nobody else yet: another member is forbidden, another realm and no
	// authentication are refused too.
	r, _ = e.get(t, uri, &admin)
	is.Equal(r.StatusCode, http.StatusForbidden)
	r, _ = e.get(t, uri, &otherBoss)
	is.Equal(r.StatusCode, http.StatusNotFound)
	r, _ = e.get(t, uri, nil)
	is.Equal(r.StatusCode, http.StatusUnauthorized)
	r, _ = e.get(t, "/user_uploads/1/no/such.txt", &member)
	is.Equal(r.StatusCode, http.StatusNotFound)
	r, _ = e.get(t, "/user_uploads/1/../../etc/passwd", &member)
	is.Equal(r.StatusCode, http.StatusNotFound) // no path escapes
	r, _ = e.get(t, "/user_uploads/1/%2e%2e/%2e%2e/etc/passwd", &member)
	is.Equal(r.StatusCode, http.StatusNotFound)

	// A message in a public channel shares it with the realm's members;
	// guests need to be subscribed (the fixture's guest is).
	sent := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
		params: params("type", "stream", "to", "general", "topic", "files", "content", "[notes]("+uri+")")})
	wantSuccess(t, sent)
	msgID := num(t, sent.body["id"])
	r, _ = e.get(t, uri, &admin)
	is.Equal(r.StatusCode, http.StatusOK) // a reader of the message
	r, _ = e.get(t, uri, &otherBoss)
	is.Equal(r.StatusCode, http.StatusNotFound) // never another realm

	list := e.do(t, request{method: "GET", path: "/attachments", auth: &member})
	wantSuccess(t, list)
	atts := list.body["attachments"].([]any)
	is.Equal(len(atts), 1)
	att := atts[0].(map[string]any)
	is.Equal(att["name"], "my-notes-final.txt")
	is.Equal(att["path_id"], strings.TrimPrefix(uri, "/user_uploads/"))
	is.Equal(num(t, att["size"]), int64(12))
	msgs := att["messages"].([]any)
	is.Equal(len(msgs), 1)
	is.Equal(num(t, msgs[0].(map[string]any)["id"]), msgID) // the referencing message
	is.Equal(num(t, list.body["upload_space_used"]), int64(12))

	// An edit that drops the link ends the sharing; one that brings it
	// back restores it.
	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/messages/" + strconv.FormatInt(msgID, 10), auth: &member, enc: urlEncoded,
		params: params("content", "no file here")}))
	r, _ = e.get(t, uri, &admin)
	is.Equal(r.StatusCode, http.StatusForbidden)
	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/messages/" + strconv.FormatInt(msgID, 10), auth: &member, enc: urlEncoded,
		params: params("content", "again: "+uri)}))
	r, _ = e.get(t, uri, &admin)
	is.Equal(r.StatusCode, http.StatusOK)

	// Deleting the message ends it too.
	wantSuccess(t, e.do(t, request{method: "DELETE", path: "/messages/" + strconv.FormatInt(msgID, 10), auth: &admin}))
	r, _ = e.get(t, uri, &admin)
	is.Equal(r.StatusCode, http.StatusForbidden)
	r, _ = e.get(t, uri, &member)
	is.Equal(r.StatusCode, http.StatusOK) // the uploader keeps it

	// Temporary URLs.
	tmp := e.do(t, request{method: "GET", path: strings.TrimPrefix(uri, ""), auth: &member})
	wantSuccess(t, tmp)
	tmpURL := tmp.body["url"].(string)
	is.True(strings.HasPrefix(tmpURL, "/user_uploads/temporary/"))
	r, body = e.get(t, tmpURL, nil)
	is.Equal(r.StatusCode, http.StatusOK) // no authentication needed
	is.Equal(string(body), "hello, world")
	r, body = e.get(t, tmpURL[:len("/user_uploads/temporary/")+5]+"x"+tmpURL[len("/user_uploads/temporary/")+6:], nil)
	is.Equal(r.StatusCode, http.StatusBadRequest) // an altered token
	is.True(strings.Contains(string(body), "Invalid token"))
	r, body = e.get(t, tmpURL[:strings.LastIndex(tmpURL, "/")]+"/other.txt", nil)
	is.Equal(r.StatusCode, http.StatusBadRequest)
	is.True(strings.Contains(string(body), "Invalid filename"))
	wantError(t, e.do(t, request{method: "GET", path: uri, auth: &admin}), 403, "BAD_REQUEST", "You are not authorized to view this file.")

	// Deleting the attachment: only its owner.
	id := strconv.FormatInt(num(t, att["id"]), 10)
	wantError(t, e.do(t, request{method: "DELETE", path: "/attachments/" + id, auth: &admin}), 400, "BAD_REQUEST", "Invalid attachment")
	wantSuccess(t, e.do(t, request{method: "DELETE", path: "/attachments/" + id, auth: &member}))
	r, _ = e.get(t, uri, &member)
	is.Equal(r.StatusCode, http.StatusNotFound)
	is.Equal(storedFiles(t, dir), 0) // the file went with it
	list = e.do(t, request{method: "GET", path: "/attachments", auth: &member})
	is.Equal(len(list.body["attachments"].([]any)), 0)
	is.Equal(num(t, list.body["upload_space_used"]), int64(0))
}

// TestHTTPUploadsPrivateChannel checks access through a message of an
// invite-only channel: subscribers read the file, others do not.
func TestHTTPUploadsPrivateChannel(t *testing.T) {
	is := is.New(t)
	e, _ := uploadEnv(t)
	subs, _ := json.Marshal([]map[string]string{{"name": "secret"}})
	wantSuccess(t, e.do(t, request{method: "POST", path: "/users/me/subscriptions", auth: &member, enc: urlEncoded,
		params: params("subscriptions", string(subs), "invite_only", "true", "principals", `["member@acme.test","mod@acme.test"]`)}))
	res := e.upload(t, member, filePart{field: "file", name: "cat.png", contentType: "image/png", data: pngBytes(t, 4, 3)})
	wantSuccess(t, res)
	uri := res.body["uri"].(string)
	wantSuccess(t, e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
		params: params("type", "stream", "to", "secret", "topic", "pics", "content", "![cat]("+uri+")")}))
	r, _ := e.get(t, uri, &moderator)
	is.Equal(r.StatusCode, http.StatusOK) // a subscriber
	is.Equal(r.Header.Get("Content-Type"), "image/png")
	is.Equal(r.Header.Get("Content-Disposition"), "inline; filename=cat.png")
	for _, c := range []cred{owner, admin, guest} {
		r, _ = e.get(t, uri, &c)
		is.Equal(r.StatusCode, http.StatusForbidden) // not subscribed, administrators included
	}
	// has:image from the reference.
	narrow, _ := json.Marshal([]map[string]string{{"operator": "has", "operand": "image"}})
	got := e.do(t, request{method: "GET", path: "/messages", auth: &moderator,
		params: params("anchor", "newest", "num_before", "10", "num_after", "0", "narrow", string(narrow))})
	wantSuccess(t, got)
	is.Equal(len(got.body["messages"].([]any)), 1)
}

// TestHTTPUploadRefusals checks that every malicious or broken upload is
// refused with Zulip's envelope and leaves nothing stored.
func TestHTTPUploadRefusals(t *testing.T) {
	e, dir := uploadEnv(t, chatcore.WithMaxFileUploadSizeMiB(1))
	big := bytes.Repeat([]byte("a"), 1<<20+1)
	for _, c := range []struct {
		name  string
		parts []filePart
		msg   string
	}{
		{"no file", []filePart{{field: "x", data: []byte("y")}}, "You must specify a file to upload"},
		{"two files", []filePart{{field: "a", name: "a.txt", data: []byte("a")}, {field: "b", name: "b.txt", data: []byte("b")}}, "You may only upload one file at a time"},
		{"oversize", []filePart{{field: "file", name: "big.txt", data: big}}, "Uploaded file is larger than the allowed limit of 1 MiB"},
		{"empty", []filePart{{field: "file", name: "empty.txt"}}, "The uploaded file is empty"},
		{"html declared as png", []filePart{{field: "file", name: "x.png", contentType: "image/png", data: []byte("<html><script>alert(1)</script></html>")}}, "The file's content does not match its declared type (image/png)"},
		{"png declared as jpeg", []filePart{{field: "file", name: "x.jpg", contentType: "image/jpeg", data: pngBytes(t, 2, 2)}}, "The file's content (png) does not match its declared type (image/jpeg)"},
		{"svg with script", []filePart{{field: "file", name: "x.svg", data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)}}, "SVG files with scripts are not allowed"},
		{"svg with handler", []filePart{{field: "file", name: "y.svg", contentType: "image/svg+xml", data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><rect onload="alert(1)"/></svg>`)}}, "SVG files with scripts are not allowed"},
		{"decompression bomb", []filePart{{field: "file", name: "bomb.png", data: pngHeader(50000, 50000)}}, "Image size exceeds limit."},
		{"truncated image", []filePart{{field: "file", name: "cut.png", data: pngBytes(t, 8, 8)[:20]}}, "Invalid image format"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, e.upload(t, member, c.parts...), 400, "BAD_REQUEST", c.msg)
			if n := storedFiles(t, dir); n != 0 {
				t.Fatalf("%d files stored after a refusal", n)
			}
			list := e.do(t, request{method: "GET", path: "/attachments", auth: &member})
			if n := len(list.body["attachments"].([]any)); n != 0 {
				t.Fatalf("%d attachments after a refusal", n)
			}
		})
	}
	t.Run("path traversal in the name", func(t *testing.T) {
		is := is.New(t)
		res := e.upload(t, member, filePart{field: "file", name: "../../etc/passwd", data: []byte("x")})
		wantSuccess(t, res)
		is.Equal(res.body["filename"], "passwd") // only the last segment is kept
		res = e.upload(t, member, filePart{field: "file", name: "..", data: []byte("x")})
		wantSuccess(t, res)
		is.Equal(res.body["filename"], "uploaded-file")
	})
	t.Run("not multipart", func(t *testing.T) {
		wantError(t, e.do(t, request{method: "POST", path: "/user_uploads", auth: &member, enc: urlEncoded, params: params("a", "b")}),
			400, "BAD_REQUEST", "You must specify a file to upload")
	})
}

// TestHTTPUploadClients replays the upload requests of Zulip's clients:
// the Python client's upload_file (requests' files=[(f.name, f)]: the
// field named by the file's path, the file name its base name, no part
// Content-Type; the answer's uri) and the mobile app's uploadFile
// (zulip-flutter lib/api/route/messages.dart: field "file",
// application/octet-stream when the type is unknown; the answer's url).
func TestHTTPUploadClients(t *testing.T) {
	is := is.New(t)
	e, _ := uploadEnv(t)

	py := e.upload(t, member, filePart{field: "/home/user/zulip.txt", name: "zulip.txt", data: []byte("from python")})
	wantSuccess(t, py)
	r, body := e.get(t, py.body["uri"].(string), &member)
	is.Equal(r.StatusCode, http.StatusOK)
	is.Equal(string(body), "from python")

	var jpg bytes.Buffer
	is.NoErr(jpeg.Encode(&jpg, image.NewRGBA(image.Rect(0, 0, 64, 48)), nil))
	app := e.upload(t, member, filePart{field: "file", name: "IMG_0001.JPG", contentType: "application/octet-stream", data: jpg.Bytes()})
	wantSuccess(t, app)
	is.Equal(app.body["filename"], "IMG_0001.JPG")
	r, body = e.get(t, app.body["url"].(string), &member)
	is.Equal(r.StatusCode, http.StatusOK)
	is.Equal(r.Header.Get("Content-Type"), "image/jpeg") // the type guessed from the name
	is.True(bytes.Equal(body, jpg.Bytes()))
	// The app opens files through a temporary URL.
	tmp := e.do(t, request{method: "GET", path: app.body["url"].(string), auth: &member})
	wantSuccess(t, tmp)
	r, _ = e.get(t, tmp.body["url"].(string), nil)
	is.Equal(r.StatusCode, http.StatusOK)
}

// TestHTTPThumbnails checks that an image upload gets its thumbnail after
// the upload answered, served to those who may read the upload.
func TestHTTPThumbnails(t *testing.T) {
	is := is.New(t)
	e, _ := uploadEnv(t)
	res := e.upload(t, member, filePart{field: "file", name: "wide.png", data: pngBytes(t, 1000, 500)})
	wantSuccess(t, res)
	thumb := "/user_uploads/thumbnail/" + strings.TrimPrefix(res.body["url"].(string), "/user_uploads/") + "/840x560.png"
	var r *http.Response
	var body []byte
	for range 100 {
		if r, body = e.get(t, thumb, &member); r.StatusCode == http.StatusOK {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	is.Equal(r.StatusCode, http.StatusOK) // made in the background
	is.Equal(r.Header.Get("Content-Type"), "image/png")
	cfg, _, err := image.DecodeConfig(bytes.NewReader(body))
	is.NoErr(err)
	is.Equal(cfg.Width, 840)
	is.Equal(cfg.Height, 420)
	r, _ = e.get(t, thumb, &admin)
	is.Equal(r.StatusCode, http.StatusForbidden) // the upload's access rule
	r, _ = e.get(t, strings.TrimSuffix(thumb, "840x560.png")+"840x560.jpg", &member)
	is.Equal(r.StatusCode, http.StatusNotFound) // not a format of this image
}

// TestHTTPRegisterFileState checks the upload limit and the thumbnail
// formats in /register's realm section.
func TestHTTPRegisterFileState(t *testing.T) {
	is := is.New(t)
	e, _ := uploadEnv(t, chatcore.WithMaxFileUploadSizeMiB(7))
	res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("fetch_event_types", `["realm"]`)})
	wantSuccess(t, res)
	is.Equal(num(t, res.body["max_file_upload_size_mib"]), int64(7))
	formats := res.body["server_thumbnail_formats"].([]any)
	is.Equal(len(formats), len(uploads.ThumbnailFormats))
	animated := 0
	for i, f := range formats {
		m := f.(map[string]any)
		is.Equal(m["name"], uploads.ThumbnailFormats[i].Name)
		is.Equal(m["animated"], uploads.ThumbnailFormats[i].Animated)
		if m["animated"] == true {
			animated++
			is.True(strings.Contains(m["name"].(string), "-anim.")) // Zulip's name for animated formats
		}
	}
	is.Equal(animated, 1) // a still and an animated format, as Zulip lists them
}
