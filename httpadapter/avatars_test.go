package httpadapter_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// avatarFiles counts the files stored under the uploads directory's
// user_avatars/ tree.
func avatarFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(filepath.Join(dir, "user_avatars"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// jpegBytes encodes a w×h JPEG: a left half red, a right half blue.
func jpegBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 0, 0, 255}
			if x >= w/2 {
				c = color.RGBA{0, 0, 255, 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// truncated returns the first half of b.
func truncated(b []byte) []byte { return b[:len(b)/2] }

// servedPNG fetches an avatar URL and returns the decoded image's size,
// checking the served headers.
func servedPNG(t *testing.T, e *env, avatarURL string) image.Point {
	t.Helper()
	is := is.New(t)
	u, err := url.Parse(avatarURL)
	is.NoErr(err)
	r, body := e.get(t, u.RequestURI(), nil)
	is.Equal(r.StatusCode, http.StatusOK) // public, as Zulip's avatars
	is.Equal(r.Header.Get("Content-Type"), "image/png")
	is.Equal(r.Header.Get("X-Content-Type-Options"), "nosniff")
	is.True(r.Header.Get("Content-Security-Policy") != "")
	img, err := png.Decode(bytes.NewReader(body))
	is.NoErr(err) // a PNG
	return img.Bounds().Size()
}

// avatarRedirect answers GET path (/avatar/...) as member and returns the
// redirect's target.
func avatarRedirect(t *testing.T, e *env, path string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", member.basic())
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("GET %s: %d, want a redirect", path, res.StatusCode)
	}
	return res.Header.Get("Location")
}

// TestHTTPAvatars uploads, serves, refuses and deletes avatars on each
// store: avatar_url in the answers, /register, messages and the realm_user
// events follow avatar_source and avatar_version as Zulip's.
func TestHTTPAvatars(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) { testAvatars(t, k.Open(t)) })
	}
}

func testAvatars(t *testing.T, st chatcore.Store) {
	{
		is := is.New(t)
		e, dir := uploadEnvOn(t, st)

		reg := e.do(t, request{method: "POST", path: "/register", auth: &admin, enc: urlEncoded, params: params("event_types", `["realm_user"]`)})
		wantSuccess(t, reg)
		queue := reg.body["queue_id"].(string)

		res := e.postFiles(t, member, "/api/v1/users/me/avatar", filePart{field: "file", name: "me.jpg", data: jpegBytes(t, 300, 200)})
		wantSuccess(t, res)
		small := res.body["avatar_url"].(string)
		is.True(strings.Contains(small, "/user_avatars/"))
		is.True(strings.HasSuffix(small, ".png?version=2")) // the first change
		is.Equal(servedPNG(t, e, small), image.Pt(100, 100))
		is.Equal(avatarFiles(t, dir), 3) // original, 100×100, 500×500
		first, _ := url.Parse(small)
		wantError(t, e.do(t, request{method: "GET", path: strings.Replace(first.Path, ".png", ".original", 1), raw: true}),
			404, "BAD_REQUEST", "File not found.") // stored, never served

		medium := avatarRedirect(t, e, "/avatar/14/medium")
		is.True(strings.HasSuffix(medium, "-medium.png?version=2"))
		is.Equal(servedPNG(t, e, medium), image.Pt(500, 500))
		is.Equal(avatarRedirect(t, e, "/avatar/14"), small)

		u := e.do(t, request{method: "GET", path: "/users/14", auth: &admin})
		wantSuccess(t, u)
		is.Equal(u.body["user"].(map[string]any)["avatar_url"], small)
		is.Equal(num(t, u.body["user"].(map[string]any)["avatar_version"]), int64(2))
		me := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("fetch_event_types", `["realm_user","realm"]`)})
		wantSuccess(t, me)
		is.Equal(me.body["avatar_source"], "U")
		is.Equal(me.body["avatar_url"], small)
		is.Equal(me.body["avatar_url_medium"], medium)
		is.Equal(num(t, me.body["max_avatar_file_size_mib"]), int64(5))
		sent := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
			params: params("type", "stream", "to", "general", "topic", "avatars", "content", "new face")})
		wantSuccess(t, sent)
		msg := e.do(t, request{method: "GET", path: "/messages/" + strconv64(num(t, sent.body["id"])), auth: &admin})
		wantSuccess(t, msg)
		is.Equal(msg.body["message"].(map[string]any)["avatar_url"], small)

		// Refusals: Zulip's errors, nothing stored, the avatar unchanged.
		for _, c := range []struct {
			name string
			data []byte
			msg  string
		}{
			{"note.png", []byte("not an image at all"), "Invalid image format"},
			{"x.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), "Invalid image format"},
			{"bomb.png", pngHeader(50000, 50000), "Image size exceeds limit."},
			{"cut.jpg", truncated(jpegBytes(t, 300, 200)), "Could not decode image; did you upload an image file?"},
			{"big.png", bytes.Repeat([]byte{0}, 5<<20+1), "Uploaded file is larger than the allowed limit of 5 MiB"},
		} {
			wantError(t, e.postFiles(t, member, "/api/v1/users/me/avatar", filePart{field: "f", name: c.name, data: c.data}), 400, "BAD_REQUEST", c.msg)
		}
		wantError(t, e.postFiles(t, member, "/api/v1/users/me/avatar", filePart{field: "f", data: []byte("x")}), 400, "BAD_REQUEST", "You must upload exactly one avatar.")
		is.Equal(avatarFiles(t, dir), 3)
		u = e.do(t, request{method: "GET", path: "/users/14", auth: &admin})
		is.Equal(num(t, u.body["user"].(map[string]any)["avatar_version"]), int64(2))

		// A second upload replaces the files; the old URLs are gone.
		res = e.postFiles(t, member, "/api/v1/users/me/avatar", filePart{field: "file", name: "me.png", data: pngBytes(t, 40, 60)})
		wantSuccess(t, res)
		second := res.body["avatar_url"].(string)
		is.True(strings.HasSuffix(second, ".png?version=3"))
		is.Equal(servedPNG(t, e, second), image.Pt(100, 100)) // enlarged, as Zulip's
		is.Equal(avatarFiles(t, dir), 3)
		old := first
		r, _ := e.get(t, old.Path, nil)
		is.Equal(r.StatusCode, http.StatusNotFound)

		del := e.do(t, request{method: "DELETE", path: "/users/me/avatar", auth: &member})
		wantSuccess(t, del)
		gravatar := del.body["avatar_url"].(string)
		is.True(strings.HasPrefix(gravatar, "https://secure.gravatar.com/avatar/"))
		is.True(strings.HasSuffix(gravatar, "&version=4"))
		is.Equal(avatarFiles(t, dir), 0) // the uploaded files are removed
		u = e.do(t, request{method: "GET", path: "/users/14", auth: &admin})
		is.Equal(u.body["user"].(map[string]any)["avatar_url"], gravatar)

		evs := e.do(t, request{method: "GET", path: "/events", auth: &admin, enc: urlEncoded,
			params: params("queue_id", queue, "last_event_id", "-1", "dont_block", "true")})
		wantSuccess(t, evs)
		var versions []int64
		var sources []string
		for _, ev := range evs.body["events"].([]any) {
			m := ev.(map[string]any)
			if m["type"] != "realm_user" || m["op"] != "update" {
				continue
			}
			p := m["person"].(map[string]any)
			if v, ok := p["avatar_version"]; ok {
				is.Equal(num(t, p["user_id"]), int64(14))
				versions = append(versions, num(t, v))
				sources = append(sources, p["avatar_source"].(string))
			}
		}
		is.Equal(versions, []int64{2, 3, 4})
		is.Equal(sources, []string{"U", "U", "G"})

		// An escaping name and a removed square are not found.
		for _, path := range []string{"/user_avatars/1/..%2F..%2Fx.png", old.Path} {
			wantError(t, e.do(t, request{method: "GET", path: path, raw: true}), 404, "BAD_REQUEST", "File not found.")
		}
	}
}
