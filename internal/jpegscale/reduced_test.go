package jpegscale

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// testFiles are the standard library's JPEG test images (its testdata):
// baseline and progressive, 4:4:4 to 4:1:0 chroma, grey, RGB, CMYK,
// restart intervals, separate DC scans.
var testFiles = []string{
	"video-001.jpeg", "video-001.progressive.jpeg", "video-001.cmyk.jpeg", "video-001.rgb.jpeg",
	"video-001.q50.444.jpeg", "video-001.q50.422.progressive.jpeg", "video-001.q50.410.jpeg",
	"video-001.221212.jpeg", "video-001.restart2.jpeg", "video-001.separate.dc.progression.progressive.jpeg",
	"video-005.gray.jpeg", "video-005.gray.q50.2x2.progressive.jpeg",
}

func readTestFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFullSizeMatchesStdlib checks that shift 0 decodes every test image
// exactly as image/jpeg does.
func TestFullSizeMatchesStdlib(t *testing.T) {
	for _, name := range testFiles {
		src := readTestFile(t, name)
		want, err := jpeg.Decode(bytes.NewReader(src))
		if err != nil {
			t.Fatal(name, err)
		}
		got, err := Decode(bytes.NewReader(src), 0)
		if err != nil {
			t.Fatal(name, err)
		}
		if got.Bounds() != want.Bounds() {
			t.Fatalf("%s: bounds %v, want %v", name, got.Bounds(), want.Bounds())
		}
		b := want.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if got.At(x, y) != want.At(x, y) {
					t.Fatalf("%s: pixel (%d,%d) %v, want %v", name, x, y, got.At(x, y), want.At(x, y))
				}
			}
		}
	}
}

// plane is one component's samples as the decoder stores them.
type plane struct {
	pix    []byte
	stride int
}

// planes returns the sample planes d decoded into (before any conversion
// to RGB or CMYK).
func planes(d *decoder) []plane {
	if d.nComp == 1 {
		return []plane{{d.img1.Pix, d.img1.Stride}}
	}
	ps := []plane{{d.img3.Y, d.img3.YStride}, {d.img3.Cb, d.img3.CStride}, {d.img3.Cr, d.img3.CStride}}
	if d.nComp == 4 {
		ps = append(ps, plane{d.blackPix, d.blackStride})
	}
	return ps
}

// TestReducedMatchesShrunkFull checks that a reduced decode is the full
// decode shrunk by a box filter: every sample of every component's plane
// the mean of the 2^shift × 2^shift full-size samples it stands for (up to
// rounding, and clipping of the full-size samples), and the image's size
// rounded up.
func TestReducedMatchesShrunkFull(t *testing.T) {
	for _, name := range testFiles {
		src := readTestFile(t, name)
		full := decoder{}
		fullImg, err := full.decode(bytes.NewReader(src), false)
		if err != nil {
			t.Fatal(name, err)
		}
		fb := fullImg.Bounds()
		for shift := uint(1); shift <= 3; shift++ {
			d := decoder{shift: shift}
			img, err := d.decode(bytes.NewReader(src), false)
			if err != nil {
				t.Fatal(name, shift, err)
			}
			k := 1 << shift
			wantRect := image.Rect(0, 0, (fb.Dx()+k-1)/k, (fb.Dy()+k-1)/k)
			if img.Bounds() != wantRect {
				t.Fatalf("%s at 1/%d: bounds %v, want %v", name, k, img.Bounds(), wantRect)
			}
			fps, rps := planes(&full), planes(&d)
			for c := range rps {
				f, r := fps[c], rps[c]
				if r.stride*k != f.stride || len(r.pix)*k*k != len(f.pix) {
					t.Fatalf("%s at 1/%d: plane %d is %d×%d, full %d×%d", name, k, c, r.stride, len(r.pix)/r.stride, f.stride, len(f.pix)/f.stride)
				}
				var sum, worst float64
				for y := range len(r.pix) / r.stride {
					for x := range r.stride {
						var mean float64
						for fy := y * k; fy < (y+1)*k; fy++ {
							for fx := x * k; fx < (x+1)*k; fx++ {
								mean += float64(f.pix[fy*f.stride+fx])
							}
						}
						diff := math.Abs(mean/float64(k*k) - float64(r.pix[y*r.stride+x]))
						sum, worst = sum+diff, max(worst, diff)
					}
				}
				avg := sum / float64(len(r.pix))
				if avg > 0.75 || worst > 40 {
					t.Fatalf("%s at 1/%d, plane %d: samples differ from the shrunk full decode by %.2f on average, %.0f at worst", name, k, c, avg, worst)
				}
			}
		}
	}
}

// TestTruncatedRefused checks that a truncated image fails at every
// scale, as image/jpeg fails it.
func TestTruncatedRefused(t *testing.T) {
	src := readTestFile(t, "video-001.jpeg")
	for _, cut := range []int{2, 100, len(src) / 2, len(src) - 2} {
		for shift := uint(0); shift <= 3; shift++ {
			if _, err := Decode(bytes.NewReader(src[:cut]), shift); err == nil {
				t.Fatalf("%d of %d bytes at shift %d: decoded", cut, len(src), shift)
			}
		}
	}
	if _, err := Decode(bytes.NewReader(src), 4); err == nil {
		t.Fatal("shift 4 accepted")
	}
}

// TestDecodedBytes checks DecodedBytes against what decoding allocates:
// at least the bytes it counts, and not much more.
func TestDecodedBytes(t *testing.T) {
	for _, name := range testFiles {
		src := readTestFile(t, name)
		for shift := uint(0); shift <= 3; shift++ {
			want, err := DecodedBytes(bytes.NewReader(src), shift)
			if err != nil {
				t.Fatal(name, err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := Decode(bytes.NewReader(src), shift); err != nil {
				t.Fatal(name, err)
			}
			runtime.ReadMemStats(&after)
			got := int64(after.TotalAlloc - before.TotalAlloc)
			if got < want || got > want+want/4+64<<10 {
				t.Fatalf("%s at shift %d: decoding allocated %d bytes, DecodedBytes says %d", name, shift, got, want)
			}
		}
	}
}
