package uploads_test

import (
	"bytes"
	"context"
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
