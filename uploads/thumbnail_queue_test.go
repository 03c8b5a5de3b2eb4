package uploads_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store/filestore"
	"github.com/chatcore/chatcore/uploads"
	"github.com/matryer/is"
)

// gatedFiles is a FileStorage whose Open waits for the gate to open, so
// the thumbnail workers stall on their first job.
type gatedFiles struct {
	chatcore.FileStorage
	gate chan struct{}
}

func (g *gatedFiles) Open(ctx context.Context, key string) (chatcore.StoredFile, error) {
	<-g.gate
	return g.FileStorage.Open(ctx, key)
}

// countingHandler counts the log records whose message contains want.
type countingHandler struct {
	want string
	n    atomic.Int64
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.want) {
		h.n.Add(1)
	}
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

// TestThumbnailBacklogBounded floods uploads while the thumbnail workers
// are stuck: every upload succeeds, the backlog never holds more than
// ThumbnailBacklog jobs, and each upload beyond it is skipped with a log
// line. Once the workers are free the queued thumbnails are made. (One
// store only: the queue is the package's, shared by every Service.)
func TestThumbnailBacklogBounded(t *testing.T) {
	is := is.New(t)
	d, err := filestore.OpenDir(filepath.Join(t.TempDir(), "up"))
	is.NoErr(err)
	t.Cleanup(func() { _ = d.Close() })
	t.Cleanup(func() { uploads.WaitThumbnailsIdle(t) }) // before the directory closes
	fs := &gatedFiles{FileStorage: d, gate: make(chan struct{})}
	var once sync.Once
	release := func() { once.Do(func() { close(fs.gate) }) }
	t.Cleanup(release)
	logs := &countingHandler{want: "backlog full"}
	w := chattest.New(t, chattest.OnStore(chattest.Memory(t)),
		chattest.With(chatcore.WithFileStorage(fs), chatcore.WithLogger(slog.New(logs))))
	c := w.SeedCast(t)

	var img bytes.Buffer
	is.NoErr(png.Encode(&img, testImage(8, 8)))
	const extra = 20
	flood := uploads.ThumbnailWorkers + uploads.ThumbnailBacklog + extra
	var first *uploads.Uploaded
	for i := range flood {
		up, err := uploads.Upload(t.Context(), w.Svc, c.Member, "dot.png", "image/png", int64(img.Len()), bytes.NewReader(img.Bytes()))
		is.NoErr(err) // the upload succeeds whatever the backlog
		if i == 0 {
			first = up
		}
		if n := uploads.ThumbnailBacklogLen(); n > uploads.ThumbnailBacklog {
			t.Fatalf("backlog %d after %d uploads, bound %d", n, i+1, uploads.ThumbnailBacklog)
		}
	}
	skipped := logs.n.Load()
	t.Logf("%d uploads, %d thumbnails skipped, backlog %d", flood, skipped, uploads.ThumbnailBacklogLen())
	is.True(skipped >= extra)                          // the uploads beyond the bound were logged and skipped
	is.True(skipped <= extra+uploads.ThumbnailWorkers) // at most the workers' jobs had not been taken yet
	is.Equal(uploads.ThumbnailBacklogLen(), uploads.ThumbnailBacklog)

	release()
	deadline := time.Now().Add(10 * time.Second)
	for uploads.ThumbnailBacklogLen() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	is.Equal(uploads.ThumbnailBacklogLen(), 0) // the workers drain the backlog
	for {
		f, err := uploads.OpenThumbnail(t.Context(), w.Svc, c.Member, first.Attachment.PathID, uploads.ThumbnailFormats[1].Name)
		if err == nil {
			_ = f.Content.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("first upload's thumbnail never made: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestResumeThumbnails: an image upload whose thumbnail job was lost (the
// state a stopped process leaves: uploaded, shown as a placeholder, no
// thumbnail and no failure recorded) is thumbnailed once a thumbnailer
// resumes, and its message rewritten; uploads whose thumbnail was made or
// failed, or that are no image, are not queued again. Batches follow one
// another until every lost job is queued.
func TestResumeThumbnails(t *testing.T) {
	is := is.New(t)
	d, err := filestore.OpenDir(filepath.Join(t.TempDir(), "up"))
	is.NoErr(err)
	t.Cleanup(func() { _ = d.Close() })
	t.Cleanup(func() { uploads.WaitThumbnailsIdle(t) }) // before the directory closes
	w := chattest.New(t, chattest.OnStore(chattest.Memory(t)), chattest.With(chatcore.WithFileStorage(d)))
	c := w.SeedCast(t)
	img := pngOf(t, 30, 20)
	lost := func(name string, width int, thumbnail string) chatcore.Attachment {
		path := "1/lost/" + name
		_, err := d.Put(t.Context(), path, bytes.NewReader(img))
		is.NoErr(err)
		a := chatcore.Attachment{RealmID: c.Member.RealmID, OwnerID: c.Member.ID, PathID: path, FileName: name,
			ContentType: "image/png", Size: int64(len(img)), Created: w.Svc.Now().Add(-time.Hour),
			ImageWidth: width, ImageHeight: width * 2 / 3, Thumbnail: thumbnail}
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error { return tx.CreateAttachment(ctx, &a) })
		return a
	}
	a := lost("a.png", 30, "")
	lost("done.png", 30, uploads.ThumbnailFormats[1].Name) // made
	lost("failed.png", 0, "")                              // failed: no preview
	const more = 70                                        // over one batch
	for i := range more {
		lost(fmt.Sprintf("more%d.png", i), 30, "")
	}
	st := w.AddChannel(t, chattest.Channel{Name: "lost", Subscribers: []*chatcore.User{c.Member}})
	id := w.Send(t, c.Member, st, "t", "[a](/user_uploads/"+a.PathID+")")
	is.True(strings.Contains(w.Message(t, id).RenderedContent, "image-loading-placeholder")) // the job never ran

	n, err := uploads.ResumeThumbnails(t.Context(), w.Svc)
	is.NoErr(err)
	is.Equal(n, 1+more) // the lost ones only, over several batches
	html := waitRendered(t, w, id)
	is.True(strings.Contains(html, `src="/user_uploads/`+uploads.ThumbnailKey(a.PathID, uploads.ThumbnailFormats[1].Name)+`"`))
}
