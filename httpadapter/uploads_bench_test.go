package httpadapter_test

import (
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// bigSize is the size of the streaming benchmarks' file.
const bigSize = 25 << 20

var pattern = []byte("abcdefghijklmnopqrstuvwxyz0123456789")

// patternReader yields n bytes of a repeating pattern without holding them.
type patternReader struct{ left int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(b)), p.left)
	for i := int64(0); i < n; i += int64(len(pattern)) {
		copy(b[i:n], pattern)
	}
	p.left -= n
	return int(n), nil
}

// streamUpload uploads size bytes as a streamed multipart body and
// returns the file's URL.
func streamUpload(tb testing.TB, e *env, size int64) string {
	tb.Helper()
	body, ct := multipartStream(size)
	req, err := http.NewRequestWithContext(tb.Context(), http.MethodPost, e.srv.URL+"/api/v1/user_uploads", body)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", member.basic())
	res := e.send(tb, req)
	if res.status != 200 {
		tb.Fatalf("upload: %s", res.raw)
	}
	return res.body["url"].(string)
}

// multipartStream returns a multipart/form-data body of one file of size
// bytes, written as it is read (through a pipe), and its content type.
func multipartStream(size int64) (io.Reader, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		w, err := mw.CreateFormFile("file", "big.bin")
		if err == nil {
			_, err = io.Copy(w, &patternReader{left: size})
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr, mw.FormDataContentType()
}

// streamDownload downloads path to io.Discard and returns the byte count.
func streamDownload(tb testing.TB, e *env, path string) int64 {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", member.basic())
	res, err := e.srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	if err != nil || res.StatusCode != 200 {
		tb.Fatalf("download: %d, %v", res.StatusCode, err)
	}
	return n
}

// allocated returns the bytes fn allocates (client and server: one process).
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHTTPUploadStreams checks that a 25 MiB upload and download allocate
// less than 4 MiB in all (so the heap cannot grow more): both stream.
func TestHTTPUploadStreams(t *testing.T) {
	e, _ := uploadEnv(t)
	var url string
	up := allocated(func() { url = streamUpload(t, e, bigSize) })
	var n int64
	down := allocated(func() { n = streamDownload(t, e, url) })
	t.Logf("25 MiB upload allocated %d KiB, download %d KiB", up>>10, down>>10)
	if n != bigSize {
		t.Fatalf("downloaded %d bytes", n)
	}
	if up > 4<<20 || down > 4<<20 {
		t.Fatalf("allocated %d and %d bytes for 25 MiB: not streamed", up, down)
	}
}

func BenchmarkHTTPUpload25MiB(b *testing.B) {
	e, _ := uploadEnv(b)
	b.SetBytes(bigSize)
	b.ReportAllocs()
	for b.Loop() {
		streamUpload(b, e, bigSize)
	}
}

func BenchmarkHTTPDownload25MiB(b *testing.B) {
	e, _ := uploadEnv(b)
	url := streamUpload(b, e, bigSize)
	b.SetBytes(bigSize)
	b.ReportAllocs()
	for b.Loop() {
		streamDownload(b, e, url)
	}
}

// rawServer is the baseline of the streaming benchmarks: the same client,
// loopback HTTP and file system, with handlers that only io.Copy the raw
// body into a synced file (POST) and the file into the response (GET).
func rawServer(b *testing.B) *httptest.Server {
	path := filepath.Join(b.TempDir(), "big.bin")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			f, err := os.Create(path)
			if err == nil {
				_, err = io.Copy(f, r.Body)
				_ = f.Sync()
				_ = f.Close()
			}
			if err != nil {
				http.Error(w, err.Error(), 500)
			}
			return
		}
		f, err := os.Open(path)
		if err != nil {
			http.Error(w, err.Error(), 404)
			return
		}
		defer f.Close()
		_, _ = io.Copy(w, f)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func rawUpload(b *testing.B, srv *httptest.Server) {
	res, err := srv.Client().Post(srv.URL, "application/octet-stream", &patternReader{left: bigSize})
	if err != nil || res.StatusCode != 200 {
		b.Fatalf("raw upload: %v", err)
	}
	_ = res.Body.Close()
}

func BenchmarkIOCopyUpload25MiB(b *testing.B) {
	srv := rawServer(b)
	b.SetBytes(bigSize)
	b.ReportAllocs()
	for b.Loop() {
		rawUpload(b, srv)
	}
}

// BenchmarkIOCopyMultipartUpload25MiB is BenchmarkIOCopyUpload25MiB with
// BenchmarkHTTPUpload25MiB's client: the same multipart body, made as it
// is sent, copied raw (boundaries and all) into the synced file. What
// BenchmarkHTTPUpload25MiB takes beyond it is the server's alone.
func BenchmarkIOCopyMultipartUpload25MiB(b *testing.B) {
	srv := rawServer(b)
	b.SetBytes(bigSize)
	b.ReportAllocs()
	for b.Loop() {
		body, ct := multipartStream(bigSize)
		res, err := srv.Client().Post(srv.URL, ct, body)
		if err != nil || res.StatusCode != 200 {
			b.Fatalf("raw upload: %v", err)
		}
		_ = res.Body.Close()
	}
}

func BenchmarkIOCopyDownload25MiB(b *testing.B) {
	srv := rawServer(b)
	rawUpload(b, srv)
	b.SetBytes(bigSize)
	b.ReportAllocs()
	for b.Loop() {
		res, err := srv.Client().Get(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
	}
}
