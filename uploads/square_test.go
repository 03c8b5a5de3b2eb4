package uploads_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"testing"

	"github.com/chatcore/chatcore/uploads"
	"github.com/matryer/is"
)

// halves returns a w×h image whose left half is red and right half blue.
func halves(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 0, 0, 255}
			if x >= w/2 {
				c = color.RGBA{0, 0, 255, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// TestSquareImages checks the avatar squares: the centred square of the
// image, at each size, from PNG and (box-shrunk) JPEG sources; a bomb's
// header and a truncated image are refused.
func TestSquareImages(t *testing.T) {
	is := is.New(t)
	var pngSrc, jpegSrc bytes.Buffer
	is.NoErr(png.Encode(&pngSrc, halves(400, 200)))
	is.NoErr(jpeg.Encode(&jpegSrc, halves(2400, 1200), &jpeg.Options{Quality: 95}))
	for name, src := range map[string][]byte{"png": pngSrc.Bytes(), "jpeg": jpegSrc.Bytes()} {
		var small, medium bytes.Buffer
		is.NoErr(uploads.SquareImages(bytes.NewReader(src), []int{100, 500}, []io.Writer{&small, &medium}))
		for _, c := range []struct {
			b    *bytes.Buffer
			size int
		}{{&small, 100}, {&medium, 500}} {
			img, err := png.Decode(c.b)
			is.NoErr(err)
			is.Equal(img.Bounds().Size(), image.Pt(c.size, c.size)) // square, enlarged or shrunk
			// The centred square keeps the halves' boundary in its middle.
			r, _, b, _ := img.At(c.size/10, c.size/2).RGBA()
			is.True(r > 0xe000 && b < 0x2000) // red at the left
			r, _, b, _ = img.At(c.size-c.size/10, c.size/2).RGBA()
			is.True(b > 0xe000 && r < 0x2000) // blue at the right
			if t.Failed() {
				t.Fatalf("%s at %d", name, c.size)
			}
		}
	}
	err := uploads.SquareImages(bytes.NewReader(pngHeader(50000, 50000)), []int{100}, []io.Writer{io.Discard})
	is.True(errors.Is(err, uploads.ErrNotThumbnailed)) // refused before decoding
	err = uploads.SquareImages(bytes.NewReader(jpegSrc.Bytes()[:jpegSrc.Len()/2]), []int{100}, []io.Writer{io.Discard})
	is.True(err != nil && !errors.Is(err, uploads.ErrNotThumbnailed)) // fails in decoding
}

// photo encodes the 4000×3000 test JPEG the thumbnail benchmark uses.
func photo(b *testing.B) []byte {
	var src bytes.Buffer
	if err := jpeg.Encode(&src, testImage(4000, 3000), &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	return src.Bytes()
}

// BenchmarkDecodeJPEG4000x3000 is the baseline of the image benchmarks:
// the standard library's decoding alone of the 12-megapixel photograph,
// which every thumbnail and avatar of it includes.
func BenchmarkDecodeJPEG4000x3000(b *testing.B) {
	src := photo(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jpeg.Decode(bytes.NewReader(src)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkThumbnail4000x3000JPEGUnsampled is BenchmarkThumbnail4000x3000JPEG
// without the heap sampler (which stops the world every 2 ms), to compare
// with the decoding baseline.
func BenchmarkThumbnail4000x3000JPEGUnsampled(b *testing.B) {
	src := photo(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := uploads.MakeThumbnail(io.Discard, bytes.NewReader(src), uploads.ThumbnailFormats[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAvatar4000x3000JPEG makes the two avatar squares of the
// photograph, reporting the peak heap growth.
func BenchmarkAvatar4000x3000JPEG(b *testing.B) {
	src := photo(b)
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		peak = max(peak, peakHeap(func() {
			if err := uploads.SquareImages(bytes.NewReader(src), []int{100, 500}, []io.Writer{io.Discard, io.Discard}); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
