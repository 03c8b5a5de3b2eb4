package httpadapter_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store/filestore"
	"github.com/chatcore/chatcore/uploads"
	"github.com/matryer/is"
	"golang.org/x/net/html"
)

// gatedOriginals is a FileStorage whose Open of an upload's original waits
// for the gate to open: the thumbnailer, which reads the original, waits
// until the test lets it.
type gatedOriginals struct {
	chatcore.FileStorage
	gate chan struct{}
}

func (g *gatedOriginals) Open(ctx context.Context, key string) (chatcore.StoredFile, error) {
	if !strings.HasPrefix(key, "thumbnail/") {
		<-g.gate
	}
	return g.FileStorage.Open(ctx, key)
}

// TestHTTPInlineImagePreview checks, on every store, an image upload's
// preview in a message: Zulip's loading placeholder while the thumbnail is
// being made, then an update_message event with rendering_only true
// carrying the thumbnail's markup, which GET /messages/{id} then shows.
func TestHTTPInlineImagePreview(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			is := is.New(t)
			dir, err := filestore.OpenDir(t.TempDir())
			is.NoErr(err)
			t.Cleanup(func() { _ = dir.Close() })
			fs := &gatedOriginals{FileStorage: dir, gate: make(chan struct{})}
			var once sync.Once
			release := func() { once.Do(func() { close(fs.gate) }) }
			t.Cleanup(release)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json", chatcore.WithFileStorage(fs))
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})

			reg := e.do(t, request{method: "POST", path: "/register", auth: &admin, enc: urlEncoded,
				params: params("event_types", `["update_message"]`)})
			wantSuccess(t, reg)
			queue := reg.body["queue_id"].(string)

			up := e.upload(t, member, filePart{field: "file", name: "wide.png", data: pngBytes(t, 1000, 500)})
			wantSuccess(t, up)
			url := up.body["url"].(string)
			path := strings.TrimPrefix(url, "/user_uploads/")
			sent := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
				params: params("type", "stream", "to", "general", "topic", "pics", "content", "[wide.png]("+url+")")})
			wantSuccess(t, sent)
			id := strconv.FormatInt(num(t, sent.body["id"]), 10)

			link := `<p><a href="` + url + `">wide.png</a></p>` + "\n" +
				`<div class="message_inline_image"><a href="` + url + `" title="wide.png">`
			got := e.do(t, request{method: "GET", path: "/messages/" + id, auth: &member})
			wantSuccess(t, got)
			placeholder := got.body["message"].(map[string]any)["content"].(string)
			is.Equal(placeholder, link+
				`<img class="image-loading-placeholder" data-original-content-type="image/png" data-original-dimensions="1000x500" src="/static/images/loading/loader-black.svg"></a></div>`) // the placeholder
			is.Equal(mobileImageNode(t, placeholder), mobileImage{src: url, loading: true}) // the mobile app shows it loading

			release() // the thumbnail is made now
			var event map[string]any
			last := "-1"
			for deadline := time.Now().Add(20 * time.Second); event == nil && time.Now().Before(deadline); {
				evs := e.do(t, request{method: "GET", path: "/events", auth: &admin, enc: inQuery,
					params: params("queue_id", queue, "last_event_id", last, "dont_block", "true")})
				wantSuccess(t, evs)
				for _, ev := range evs.body["events"].([]any) {
					m := ev.(map[string]any)
					last = strconv.FormatInt(num(t, m["id"]), 10)
					if m["type"] == "update_message" && m["rendering_only"] == true {
						event = m
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
			if event == nil {
				t.Fatal("no rendering_only update_message event")
			}
			wantShape(t, "UpdateMessageEvent", event) // the mobile app's model of it
			is.Equal(num(t, event["message_id"]), num(t, sent.body["id"]))
			is.Equal(event["message_ids"], []any{sent.body["id"]})
			is.Equal(event["user_id"], nil)                   // nobody edited it
			is.Equal(event["content"], "[wide.png]("+url+")") // the content is unchanged
			is.Equal(event["flags"], []any{})                 // the receiver's flags
			rendered := event["rendered_content"].(string)
			is.True(strings.HasPrefix(rendered, link+`<img data-original-content-type="image/png" data-original-dimensions="1000x500" src="/user_uploads/thumbnail/`+path+"/"))
			format := strings.TrimSuffix(strings.TrimPrefix(rendered, link+`<img data-original-content-type="image/png" data-original-dimensions="1000x500" src="/user_uploads/thumbnail/`+path+"/"), `"></a></div>`)
			is.True(slices.ContainsFunc(uploads.ThumbnailFormats, func(f uploads.ThumbnailFormat) bool { return f.Name == format })) // a format of the list
			got = e.do(t, request{method: "GET", path: "/messages/" + id, auth: &member})
			is.Equal(got.body["message"].(map[string]any)["content"], rendered) // stored as sent
			is.Equal(mobileImageNode(t, rendered), mobileImage{src: url, thumbnail: "/user_uploads/thumbnail/" + path + "/" + format,
				width: 1000, height: 500}) // the mobile app shows the thumbnail
			r, _ := e.get(t, "/user_uploads/thumbnail/"+path+"/"+format, &member)
			is.Equal(r.StatusCode, http.StatusOK) // the thumbnail it shows is served
		})
	}
}

// mobileImage is what the mobile app's (zulip-flutter's) content parser
// makes of a message_inline_image div: an ImageNode's srcUrl,
// thumbnailUrl, loading and original size.
type mobileImage struct {
	src, thumbnail string
	loading        bool
	width, height  int
}

// mobileImageNode parses the one message_inline_image div of content by
// the mobile app's rules, failing t where the app would show the div as
// unimplemented: the div holds exactly one a element without a class,
// which holds exactly one img; a placeholder is an img of class
// image-loading-placeholder; otherwise the img's src is a thumbnail
// (/user_uploads/thumbnail/...) and data-original-dimensions, when
// present, is {width}x{height}.
func mobileImageNode(t *testing.T, content string) mobileImage {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	var divs []*html.Node
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.Data == "div" && attr(n, "class") == "message_inline_image" {
			divs = append(divs, n)
		}
	}
	if len(divs) != 1 {
		t.Fatalf("%d message_inline_image divs in %q", len(divs), content)
	}
	a := divs[0].FirstChild
	if a == nil || a.NextSibling != nil || a.Type != html.ElementNode || a.Data != "a" || attr(a, "class") != "" {
		t.Fatalf("the div does not hold one plain a element: %q", content)
	}
	img := a.FirstChild
	if img == nil || img.NextSibling != nil || img.Type != html.ElementNode || img.Data != "img" {
		t.Fatalf("the link does not hold one img: %q", content)
	}
	out := mobileImage{src: attr(a, "href")}
	if attr(img, "class") == "image-loading-placeholder" {
		out.loading = true
		return out
	}
	src := attr(img, "src")
	if !strings.HasPrefix(src, "/user_uploads/thumbnail/") {
		t.Fatalf("img src %q is no thumbnail", src)
	}
	out.thumbnail = src
	if dims := attr(img, "data-original-dimensions"); dims != "" {
		w, h, ok := strings.Cut(dims, "x")
		var errW, errH error
		out.width, errW = strconv.Atoi(w)
		out.height, errH = strconv.Atoi(h)
		if !ok || errW != nil || errH != nil {
			t.Fatalf("data-original-dimensions %q is not {width}x{height}", dims)
		}
	}
	return out
}

// attr returns n's attribute key, "" when it has none.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
