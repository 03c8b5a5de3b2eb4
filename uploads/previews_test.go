package uploads_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store/filestore"
	"github.com/chatcore/chatcore/uploads"
	"github.com/matryer/is"
)

// originalsGate is a FileStorage whose Open of an upload's original waits
// for the gate: the thumbnailer waits until the test releases it.
type originalsGate struct {
	chatcore.FileStorage
	gate chan struct{}
	once sync.Once
}

func (g *originalsGate) Open(ctx context.Context, key string) (chatcore.StoredFile, error) {
	if !strings.HasPrefix(key, "thumbnail/") {
		<-g.gate
	}
	return g.FileStorage.Open(ctx, key)
}

func (g *originalsGate) release() { g.once.Do(func() { close(g.gate) }) }

// previewWorld is a memory World with the Cast, storing uploads behind an
// originalsGate.
func previewWorld(t *testing.T) (*chattest.World, *chattest.Cast, *originalsGate) {
	t.Helper()
	d, err := filestore.OpenDir(filepath.Join(t.TempDir(), "up"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	t.Cleanup(func() { uploads.WaitThumbnailsIdle(t) }) // before the directory closes
	g := &originalsGate{FileStorage: d, gate: make(chan struct{})}
	t.Cleanup(g.release)
	w := chattest.New(t, chattest.OnStore(chattest.Memory(t)), chattest.With(chatcore.WithFileStorage(g)))
	return w, w.SeedCast(t), g
}

// waitRendered waits until message id's rendering no longer shows a
// loading placeholder, and returns it.
func waitRendered(t *testing.T, w *chattest.World, id chatcore.MessageID) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if html := w.Message(t, id).RenderedContent; !strings.Contains(html, "image-loading-placeholder") {
			return html
		}
	}
	t.Fatalf("message %d still shows a placeholder: %s", id, w.Message(t, id).RenderedContent)
	return ""
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, testImage(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestThumbnailFailureRemovesPreview: an image whose header is fine but
// whose pixels are cut off is accepted and previewed with a placeholder;
// when its thumbnail fails, the preview is removed from the message (and
// the upload shows none from then on), as Zulip's worker does, and the
// receivers are told.
func TestThumbnailFailureRemovesPreview(t *testing.T) {
	is := is.New(t)
	w, c, g := previewWorld(t)
	full := pngOf(t, 300, 200)
	cut := full[:len(full)/2]
	up, err := uploads.Upload(t.Context(), w.Svc, c.Member, "cut.png", "image/png", int64(len(cut)), bytes.NewReader(cut))
	is.NoErr(err)
	is.Equal(up.Attachment.ImageWidth, 300) // the header's size, for the preview
	st := w.AddChannel(t, chattest.Channel{Name: "pics", Subscribers: []*chatcore.User{c.Member, c.Admin}})
	id := w.Send(t, c.Member, st, "t", "[cut]("+up.URL+")")
	is.True(strings.Contains(w.Message(t, id).RenderedContent, `class="image-loading-placeholder"`)) // loading
	w.Events.Reset()
	g.release()
	is.Equal(waitRendered(t, w, id), `<p><a href="`+up.URL+`">cut</a></p>`) // the preview is gone
	evs := w.Events.OfType("update_message")
	is.True(len(evs) > 0)
	var told []chatcore.UserID
	for _, e := range evs {
		is.Equal(e.Data["rendering_only"], true)
		is.Equal(e.Data["rendered_content"], `<p><a href="`+up.URL+`">cut</a></p>`)
		told = append(told, e.UserIDs...)
	}
	is.True(len(told) == 2) // both subscribers
	later := w.Send(t, c.Member, st, "t", "again [cut]("+up.URL+")")
	is.Equal(w.Message(t, later).RenderedContent, `<p>again <a href="`+up.URL+`">cut</a></p>`) // no preview from then on
}

// TestThumbnailRewritesEachImage: a direct message showing two images is
// rewritten image by image as their thumbnails are made, and its members
// are told with their own flags.
func TestThumbnailRewritesEachImage(t *testing.T) {
	is := is.New(t)
	w, c, g := previewWorld(t)
	var urls []string
	for _, name := range []string{"a.png", "b.png"} {
		img := pngOf(t, 20, 10)
		up, err := uploads.Upload(t.Context(), w.Svc, c.Member, name, "image/png", int64(len(img)), bytes.NewReader(img))
		is.NoErr(err)
		urls = append(urls, up.URL)
	}
	to := fmt.Sprintf("[%d]", c.Admin.ID)
	id, err := w.Svc.SendMessage(t.Context(), c.Member.ID, chatcore.SendMessageRequest{Type: "private", To: &to,
		Content: "[a](" + urls[0] + ") [b](" + urls[1] + ")"})
	is.NoErr(err)
	is.Equal(strings.Count(w.Message(t, id).RenderedContent, "image-loading-placeholder"), 2) // both loading
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		_, err := tx.UpdateUserMessageFlags(ctx, c.Admin.ID, []chatcore.MessageID{id}, chatcore.FlagStarred, true)
		return err
	})
	w.Events.Reset()
	g.release()
	html := waitRendered(t, w, id)
	for _, u := range urls {
		is.True(strings.Contains(html, `<div class="message_inline_image"><a href="`+u+`" title="`)) // each preview kept
		is.True(strings.Contains(html, `src="/user_uploads/thumbnail/`+strings.TrimPrefix(u, "/user_uploads/")+"/"))
	}
	flags := map[chatcore.UserID][]string{}
	for _, e := range w.Events.OfType("update_message") {
		for _, u := range e.UserIDs {
			flags[u] = e.Data["flags"].([]string)
		}
	}
	is.Equal(flags[c.Admin.ID], []string{"starred"}) // each member's own flags
	is.Equal(flags[c.Member.ID], []string{})
	is.Equal(len(flags), 2)
}

// TestPreviewOnlyOfTheRealmsImages: through the Service, a link to an image
// upload of another realm, and one to an upload that is no image, render as
// plain links; the realm's own image gets its placeholder.
func TestPreviewOnlyOfTheRealmsImages(t *testing.T) {
	is := is.New(t)
	w, c, _ := previewWorld(t)
	img := pngOf(t, 20, 10)
	pic, err := uploads.Upload(t.Context(), w.Svc, c.Member, "a.png", "image/png", int64(len(img)), bytes.NewReader(img))
	is.NoErr(err)
	txt, err := uploads.Upload(t.Context(), w.Svc, c.Member, "notes.txt", "text/plain", 5, strings.NewReader("hello"))
	is.NoErr(err)
	is.Equal(txt.Attachment.ImageWidth, 0) // no preview size for text
	lear := w.AddChannel(t, chattest.Channel{Name: "court", Subscribers: []*chatcore.User{c.Stranger}})
	id := w.Send(t, c.Stranger, lear, "t", "[a]("+pic.URL+")")
	is.Equal(w.Message(t, id).RenderedContent, `<p><a href="`+pic.URL+`">a</a></p>`) // another realm's image: no preview
	st := w.AddChannel(t, chattest.Channel{Name: "pics", Subscribers: []*chatcore.User{c.Member}})
	id = w.Send(t, c.Member, st, "t", "[notes]("+txt.URL+") [a]("+pic.URL+")")
	is.Equal(w.Message(t, id).RenderedContent, `<p><a href="`+txt.URL+`">notes</a> <a href="`+pic.URL+`">a</a></p>`+"\n"+
		`<div class="message_inline_image"><a href="`+pic.URL+`" title="a"><img class="image-loading-placeholder" data-original-content-type="image/png" data-original-dimensions="20x10" src="/static/images/loading/loader-black.svg"></a></div>`) // only the image
}
