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

// jpegHeader is the start of a baseline 4:2:0 JPEG whose frame header
// claims w × h pixels.
func jpegHeader(w, h uint16) []byte { return jpegHeaderSOF(0xc0, w, h) }

// jpegHeaderSOF is the start of a 4:2:0 JPEG of frame type sof (0xc0
// baseline, 0xc2 progressive) whose frame header claims w × h pixels,
// JFIF-marked (so that its header ends at the frame).
func jpegHeaderSOF(sof byte, w, h uint16) []byte {
	app0 := []byte{0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}
	frame := []byte{0xff, sof, 0, 17, 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3,
		1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1}
	return append(append([]byte{0xff, 0xd8}, app0...), frame...)
}

// TestThumbnailProgressiveJPEGBounded checks that a progressive JPEG's
// coefficients count against MaxThumbnailDecodedBytes before decoding: a
// 5000×5000 4:2:0 one (~150 MB of coefficients) is refused with almost
// nothing allocated, while a baseline one of the same size (decoded at an
// eighth) passes the header checks and fails decoding only.
func TestThumbnailProgressiveJPEGBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(jpegHeaderSOF(0xc2, 5000, 5000)), uploads.ThumbnailFormats[0])
	runtime.ReadMemStats(&after)
	if !errors.Is(err, uploads.ErrNotThumbnailed) {
		t.Fatalf("progressive 5000×5000: %v, want ErrNotThumbnailed", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Fatalf("%d bytes allocated refusing a header", alloc)
	}
	err = uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(jpegHeaderSOF(0xc0, 5000, 5000)), uploads.ThumbnailFormats[0])
	if err == nil || errors.Is(err, uploads.ErrNotThumbnailed) {
		t.Fatalf("baseline 5000×5000: %v, want a decoding error", err)
	}
}

// TestThumbnailJPEGBombRefused checks that a JPEG whose header claims
// 60,000 × 60,000 pixels is refused before any pixel is decoded, with
// almost nothing allocated, and that a truncated JPEG fails.
func TestThumbnailJPEGBombRefused(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(jpegHeader(60000, 60000)), uploads.ThumbnailFormats[0])
	runtime.ReadMemStats(&after)
	if !errors.Is(err, uploads.ErrNotThumbnailed) {
		t.Fatalf("bomb: %v, want ErrNotThumbnailed", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Fatalf("%d bytes allocated refusing a header", alloc)
	}
	var src bytes.Buffer
	if err := jpeg.Encode(&src, testImage(2000, 1500), nil); err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{1000, src.Len() / 2, src.Len() - 10} {
		err := uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(src.Bytes()[:cut]), uploads.ThumbnailFormats[0])
		if err == nil || errors.Is(err, uploads.ErrNotThumbnailed) {
			t.Fatalf("%d of %d bytes: %v, want a decoding error", cut, src.Len(), err)
		}
	}
}

// TestThumbnailLargeJPEG checks the thumbnail of a large JPEG (decoded at
// a quarter of its size): it fits the box, and its pixels are those of the
// image scaled down from the full-size decode.
func TestThumbnailLargeJPEG(t *testing.T) {
	// Smooth colour areas, so that scaling either way gives the same pixels.
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for y := range 3000 {
		for x := range 4000 {
			img.SetRGBA(x, y, color.RGBA{uint8(x / 16), uint8(y / 12), uint8((x + y) / 28), 255})
		}
	}
	var src bytes.Buffer
	if err := jpeg.Encode(&src, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := uploads.MakeThumbnail(&out, bytes.NewReader(src.Bytes()), uploads.ThumbnailFormats[0]); err != nil {
		t.Fatal(err)
	}
	thumb, err := jpeg.Decode(&out)
	if err != nil {
		t.Fatal(err)
	}
	if b := thumb.Bounds(); b.Dx() != 746 || b.Dy() != 560 {
		t.Fatalf("thumbnail %v, want 746×560", b)
	}
	var sum float64
	for y := 10; y < 550; y += 20 {
		for x := 10; x < 736; x += 20 {
			r, g, b, _ := thumb.At(x, y).RGBA()
			want := img.RGBAAt(x*4000/746, y*3000/560)
			for i, v := range []uint32{r >> 8, g >> 8, b >> 8} {
				w := []uint8{want.R, want.G, want.B}[i]
				sum += float64(max(v, uint32(w)) - min(v, uint32(w)))
			}
		}
	}
	if avg := sum / (28 * 37 * 3); avg > 3 {
		t.Fatalf("thumbnail pixels differ from the image's by %.1f on average", avg)
	}
}
