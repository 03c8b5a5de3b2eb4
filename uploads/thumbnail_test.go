package uploads_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore/uploads"
	"github.com/matryer/is"
)

func testImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y += 7 {
		for x := 0; x < w; x += 5 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	return img
}

// pngHeader is the start of an 8-bit RGBA PNG whose header claims w × h
// pixels.
func pngHeader(w, h uint32) []byte { return pngHeaderDepth(w, h, 8) }

// pngHeaderDepth is the start of an RGBA PNG of depth bits a sample whose
// header claims w × h pixels.
func pngHeaderDepth(w, h uint32, depth byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'})
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, 6
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestMakeThumbnail(t *testing.T) {
	is := is.New(t)
	var src bytes.Buffer
	is.NoErr(png.Encode(&src, testImage(1000, 500)))
	var out bytes.Buffer
	is.NoErr(uploads.MakeThumbnail(&out, bytes.NewReader(src.Bytes()), uploads.ThumbnailFormats[1]))
	cfg, format, err := image.DecodeConfig(&out)
	is.NoErr(err)
	is.Equal(format, "png")
	is.Equal(cfg.Width, 840) // fits the box, keeping the aspect ratio
	is.Equal(cfg.Height, 420)

	small := new(bytes.Buffer)
	is.NoErr(jpeg.Encode(small, testImage(40, 30), nil))
	out.Reset()
	is.NoErr(uploads.MakeThumbnail(&out, small, uploads.ThumbnailFormats[0]))
	cfg, format, err = image.DecodeConfig(&out)
	is.NoErr(err)
	is.Equal(format, "jpeg")
	is.Equal(cfg.Width, 40) // never enlarged

	truncated := src.Bytes()[:src.Len()/2]
	is.True(uploads.MakeThumbnail(&out, bytes.NewReader(truncated), uploads.ThumbnailFormats[1]) != nil) // a truncated image fails
}

// TestThumbnailBombRefused checks that a 50,000 × 50,000 PNG header is
// refused before any pixel is decoded: almost nothing is allocated.
func TestThumbnailBombRefused(t *testing.T) {
	bomb := pngHeader(50000, 50000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(bomb), uploads.ThumbnailFormats[1])
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, uploads.ErrNotThumbnailed) {
		t.Fatalf("bomb: %v, want ErrNotThumbnailed", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("50000×50000 PNG header refused in %v, %d KiB allocated", took, alloc>>10)
	if alloc > 1<<20 {
		t.Fatalf("%d bytes allocated refusing a header", alloc)
	}
}

// TestThumbnailDecodedSizeRefused checks that the decoded size, not just
// the pixel count, is bounded before decoding: a 16-bit RGBA PNG (8 bytes a
// pixel) within MaxThumbnailPixels but over MaxThumbnailDecodedBytes is
// refused with almost nothing allocated, as is a 16-bit PNG of 90 M
// pixels (a few KiB compressed when of one colour, ~720 MB decoded), while
// the 8-bit PNG of the same size passes the header checks.
func TestThumbnailDecodedSizeRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		head []byte
	}{
		{"5000x5000 16-bit", pngHeaderDepth(5000, 5000, 16)},
		{"9487x9487 16-bit", pngHeaderDepth(9487, 9487, 16)},
		{"5001x5000 8-bit", pngHeaderDepth(5001, 5000, 8)},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(c.head), uploads.ThumbnailFormats[1])
		runtime.ReadMemStats(&after)
		if !errors.Is(err, uploads.ErrNotThumbnailed) {
			t.Fatalf("%s: %v, want ErrNotThumbnailed", c.name, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Fatalf("%s: %d bytes allocated refusing a header", c.name, alloc)
		}
	}
	// 25 M 8-bit RGBA pixels (95 MiB decoded) pass the header checks: the
	// header-only PNG then fails in decoding, not as ErrNotThumbnailed.
	err := uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(pngHeaderDepth(5000, 5000, 8)), uploads.ThumbnailFormats[1])
	if err == nil || errors.Is(err, uploads.ErrNotThumbnailed) {
		t.Fatalf("5000x5000 8-bit: %v, want a decoding error", err)
	}
}

// peakHeap runs fn and returns the highest HeapInuse growth sampled
// while it ran.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base.HeapInuse && m.HeapInuse-base.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse - base.HeapInuse)
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	return peak.Load()
}

// BenchmarkThumbnail4000x3000JPEG thumbnails a 12-megapixel photograph
// (the bound: under 300 ms), reporting the peak heap growth.
func BenchmarkThumbnail4000x3000JPEG(b *testing.B) {
	var src bytes.Buffer
	if err := jpeg.Encode(&src, testImage(4000, 3000), &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		peak = max(peak, peakHeap(func() {
			if err := uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(src.Bytes()), uploads.ThumbnailFormats[0]); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
