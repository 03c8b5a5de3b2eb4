package uploads_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/png"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/uploads"
	"github.com/matryer/is"
)

// animatedFormat is the animated entry of ThumbnailFormats.
func animatedFormat(t testing.TB) uploads.ThumbnailFormat {
	for _, f := range uploads.ThumbnailFormats {
		if f.Animated {
			return f
		}
	}
	t.Fatal("no animated thumbnail format")
	return uploads.ThumbnailFormat{}
}

// stillFormat is the still format of a GIF's thumbnail.
func stillFormat(t testing.TB) uploads.ThumbnailFormat {
	for _, f := range uploads.ThumbnailFormats {
		if !f.Animated && f.Format == "png" {
			return f
		}
	}
	t.Fatal("no PNG thumbnail format")
	return uploads.ThumbnailFormat{}
}

// frameColor is the colour of frame i of animatedGIF (a palette index).
func frameColor(i int) uint8 { return uint8(16 + 37*i%200) }

// animatedGIF is a w×h GIF of n frames, looping twice: frame 0 fills the
// screen with frameColor(0); each later frame paints only a square of
// frameColor(i) at its top left (disposal none, so the rest shows the
// earlier frames), frame i a little smaller than frame i-1.
func animatedGIF(t testing.TB, w, h, n int) []byte {
	t.Helper()
	g := &gif.GIF{LoopCount: 2}
	for i := range n {
		r := image.Rect(0, 0, w, h)
		if i > 0 {
			side := min(w, h) * (n - i) / n
			r = image.Rect(0, 0, max(side, 1), max(side, 1))
		}
		fr := image.NewPaletted(r, palette.Plan9)
		for j := range fr.Pix {
			fr.Pix[j] = frameColor(i)
		}
		g.Image = append(g.Image, fr)
		g.Delay = append(g.Delay, 10+i)
		g.Disposal = append(g.Disposal, gif.DisposalNone)
	}
	g.Config = image.Config{Width: w, Height: h, ColorModel: color.Palette(palette.Plan9)}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// repeatedFrameGIF is a w×h GIF whose one full-screen frame is repeated n
// times (built from the encoded bytes, so that no test holds n frames).
func repeatedFrameGIF(t testing.TB, w, h, n int) []byte {
	t.Helper()
	one := animatedGIF(t, w, h, 1)
	// gif.EncodeAll writes the header, the screen descriptor and the
	// global table (13 + 768 bytes) (and no loop extension for one
	// frame), then the frame's graphic control and image, then the
	// trailer.
	head := 13 + 768
	frame := one[head : len(one)-1]
	out := append([]byte(nil), one[:head]...)
	for range n {
		out = append(out, frame...)
	}
	return append(out, 0x3b)
}

// TestAnimatedThumbnail checks the animated thumbnail of an animated GIF:
// a GIF of every frame at the thumbnail's size, with the source's delays
// and loop count, each frame the composed screen (the parts a frame does
// not paint show the earlier frames); and its still thumbnail: the first
// frame, as PNG.
func TestAnimatedThumbnail(t *testing.T) {
	is := is.New(t)
	src := animatedGIF(t, 1000, 500, 5)
	var out bytes.Buffer
	is.NoErr(uploads.MakeThumbnail(&out, bytes.NewReader(src), animatedFormat(t)))
	g, err := gif.DecodeAll(&out)
	is.NoErr(err)
	is.Equal(len(g.Image), 5)
	is.Equal(g.Config.Width, 840) // fits the box
	is.Equal(g.Config.Height, 420)
	is.Equal(g.Delay, []int{10, 11, 12, 13, 14})
	is.Equal(g.LoopCount, 2)
	want := func(i int) color.Color { return palette.Plan9[frameColor(i)] }
	for i, fr := range g.Image {
		is.Equal(fr.Bounds(), image.Rect(0, 0, 840, 420)) // whole frames
		is.Equal(fr.At(2, 2), want(i))                    // this frame's square
		is.Equal(fr.At(830, 410), want(0))                // the first frame, where nothing painted over it
	}
	is.Equal(g.Image[4].At(100, 100), want(3)) // frame 3's square beside frame 4's smaller one

	out.Reset()
	is.NoErr(uploads.MakeThumbnail(&out, bytes.NewReader(src), stillFormat(t)))
	still, err := png.Decode(&out)
	is.NoErr(err)
	is.Equal(still.Bounds(), image.Rect(0, 0, 840, 420))
	r, gr, b, _ := still.At(400, 200).RGBA()
	wr, wg, wb, _ := want(0).RGBA()
	is.Equal([3]uint32{r, gr, b}, [3]uint32{wr, wg, wb}) // the first frame
}

// TestAnimatedThumbnailDisposal: a frame disposed to the background is
// cleared to transparent before the next, and one disposed to previous
// restores what was under it.
func TestAnimatedThumbnailDisposal(t *testing.T) {
	is := is.New(t)
	full := func(c uint8, r image.Rectangle) *image.Paletted {
		p := image.NewPaletted(r, color.Palette{color.RGBA{}, color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}, color.RGBA{0, 255, 0, 255}})
		for i := range p.Pix {
			p.Pix[i] = c
		}
		return p
	}
	g := &gif.GIF{
		Image: []*image.Paletted{
			full(1, image.Rect(0, 0, 40, 40)),   // red screen
			full(2, image.Rect(0, 0, 20, 20)),   // blue square, disposed to previous
			full(3, image.Rect(20, 20, 40, 40)), // green square, disposed to background
			full(1, image.Rect(0, 0, 4, 4)),     // red dot
		},
		Delay:    []int{1, 1, 1, 1},
		Disposal: []byte{gif.DisposalNone, gif.DisposalPrevious, gif.DisposalBackground, gif.DisposalNone},
	}
	var src, out bytes.Buffer
	is.NoErr(gif.EncodeAll(&src, g))
	is.NoErr(uploads.MakeThumbnail(&out, &src, animatedFormat(t)))
	res, err := gif.DecodeAll(&out)
	is.NoErr(err)
	is.Equal(len(res.Image), 4)
	red, blue, green := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}, color.RGBA{0, 255, 0, 255}
	is.Equal(res.Image[1].At(5, 5), blue)
	is.Equal(res.Image[2].At(5, 5), red) // blue was disposed to previous: red again
	is.Equal(res.Image[2].At(30, 30), green)
	_, _, _, a := res.Image[3].At(30, 30).RGBA()
	is.Equal(a, uint32(0)) // green was disposed to the background: transparent
	is.Equal(res.Image[3].At(10, 10), red)
}

// TestAnimatedThumbnailOnlyOfAnimations: a one-frame GIF, a PNG and a
// JPEG get no animated thumbnail.
func TestAnimatedThumbnailOnlyOfAnimations(t *testing.T) {
	is := is.New(t)
	for name, src := range map[string][]byte{"gif": animatedGIF(t, 30, 20, 1), "png": pngOf(t, 30, 20)} {
		err := uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(src), animatedFormat(t))
		if !errors.Is(err, uploads.ErrNotThumbnailed) {
			t.Fatalf("%s: %v, want ErrNotThumbnailed", name, err)
		}
	}
	var out bytes.Buffer
	is.NoErr(uploads.MakeThumbnail(&out, bytes.NewReader(animatedGIF(t, 30, 20, 1)), stillFormat(t)))
	_, format, err := image.DecodeConfig(&out)
	is.NoErr(err)
	is.Equal(format, "png") // the still one is made
}

// TestAnimatedThumbnailBounded checks the bounds of an animated
// thumbnail: a long animation's shows its first MaxAnimatedPixels of
// source frames (and at most MaxAnimatedFrames), reading no further; a
// screen too large to animate three frames of gets no animated thumbnail
// (its still one decodes the first frame only); a screen over
// MaxThumbnailPixels is refused before any pixel is decoded.
func TestAnimatedThumbnailBounded(t *testing.T) {
	is := is.New(t)
	frames := func(src []byte) int {
		var out bytes.Buffer
		is.NoErr(uploads.MakeThumbnail(&out, bytes.NewReader(src), animatedFormat(t)))
		g, err := gif.DecodeAll(&out)
		is.NoErr(err)
		return len(g.Image)
	}
	const w, h = 2000, 1500
	long := repeatedFrameGIF(t, w, h, 400) // 1.2 G pixels of frames
	var got int
	peak := peakHeap(func() { got = frames(long) })
	t.Logf("%d×%d, 400 frames: %d frames made, peak heap %d MiB", w, h, got, peak>>20)
	is.Equal(got, uploads.MaxAnimatedPixels/(w*h)) // the first part only
	is.True(peak < uploads.MaxThumbnailDecodedBytes+8<<20)

	is.Equal(frames(repeatedFrameGIF(t, 2, 2, uploads.MaxAnimatedFrames+500)), uploads.MaxAnimatedFrames)

	wide := repeatedFrameGIF(t, 5000, 4000, 50) // 20 M pixels a frame: three are over the budget
	err := uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(wide), animatedFormat(t))
	is.True(errors.Is(err, uploads.ErrNotThumbnailed))
	is.NoErr(uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(wide), stillFormat(t)))

	huge := gifHeader(6000, 6000) // 36 M pixels: over MaxThumbnailPixels
	peak = peakHeap(func() {
		err = uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(huge), animatedFormat(t))
	})
	is.True(errors.Is(err, uploads.ErrNotThumbnailed))
	is.True(peak < 1<<20) // refused from the header
}

// gifHeader is the start of a GIF whose logical screen is w × h, with a
// two-colour global table and a frame descriptor of the whole screen.
func gifHeader(w, h uint16) []byte {
	b := []byte("GIF89a")
	b = append(b, byte(w), byte(w>>8), byte(h), byte(h>>8), 0x80, 0, 0, 0, 0, 0, 255, 255, 255)
	return append(b, 0x2c, 0, 0, 0, 0, byte(w), byte(w>>8), byte(h), byte(h>>8), 0, 2)
}

// TestAnimatedUploadPreview: an animated GIF upload gets both thumbnails;
// its preview shows the animated one, marked data-animated, as Zulip's
// (get_default_thumbnail_url picks the first format of the source's
// kind); the still one is served too. A one-frame GIF's preview shows the
// still thumbnail, and it has no animated one.
func TestAnimatedUploadPreview(t *testing.T) {
	is := is.New(t)
	w, c, g := previewWorld(t)
	st := w.AddChannel(t, chattest.Channel{Name: "gifs", Subscribers: []*chatcore.User{c.Member}})
	send := func(name string, src []byte) (*uploads.Uploaded, string) {
		up, err := uploads.Upload(t.Context(), w.Svc, c.Member, name, "image/gif", int64(len(src)), bytes.NewReader(src))
		is.NoErr(err)
		id := w.Send(t, c.Member, st, "t", "["+name+"]("+up.URL+")")
		g.release()
		return up, waitRendered(t, w, id)
	}
	anim, still := animatedFormat(t), stillFormat(t)

	up, html := send("moving.gif", animatedGIF(t, 480, 270, 6))
	thumb := "/user_uploads/" + uploads.ThumbnailKey(up.Attachment.PathID, anim.Name)
	is.True(strings.Contains(html, `<img data-animated="true" data-original-content-type="image/gif" data-original-dimensions="480x270" src="`+thumb+`">`))
	f, err := uploads.OpenThumbnail(t.Context(), w.Svc, c.Member, up.Attachment.PathID, anim.Name)
	is.NoErr(err)
	is.Equal(f.Attachment.ContentType, "image/gif")
	res, err := gif.DecodeAll(f.Content)
	_ = f.Content.Close()
	is.NoErr(err)
	is.Equal(len(res.Image), 6)
	is.Equal([2]int{res.Config.Width, res.Config.Height}, [2]int{480, 270}) // not enlarged
	f, err = uploads.OpenThumbnail(t.Context(), w.Svc, c.Member, up.Attachment.PathID, still.Name)
	is.NoErr(err)
	_, format, err := image.DecodeConfig(f.Content)
	_ = f.Content.Close()
	is.NoErr(err)
	is.Equal(format, "png")

	up, html = send("still.gif", animatedGIF(t, 48, 27, 1))
	is.True(!strings.Contains(html, "data-animated"))
	is.True(strings.Contains(html, `src="/user_uploads/`+uploads.ThumbnailKey(up.Attachment.PathID, still.Name)+`"`))
	_, err = uploads.OpenThumbnail(t.Context(), w.Svc, c.Member, up.Attachment.PathID, anim.Name)
	is.True(err != nil) // no animated thumbnail of a still image
}

// movingGIF is a w×h GIF of n whole frames, each a diagonal pattern of
// the Plan 9 palette shifted from the last.
func movingGIF(t testing.TB, w, h, n int) []byte {
	t.Helper()
	g := &gif.GIF{}
	for i := range n {
		fr := image.NewPaletted(image.Rect(0, 0, w, h), palette.Plan9)
		for y := range h {
			for x := range w {
				fr.Pix[y*w+x] = uint8((x/3 + y/2 + 5*i) % 256)
			}
		}
		g.Image = append(g.Image, fr)
		g.Delay = append(g.Delay, 4)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// BenchmarkAnimatedThumbnail makes the animated thumbnail of a 480×270
// GIF of 50 frames, reporting the peak heap growth.
func BenchmarkAnimatedThumbnail(b *testing.B) {
	src := movingGIF(b, 480, 270, 50)
	f := animatedFormat(b)
	var peak uint64
	for b.Loop() {
		peak = max(peak, peakHeap(func() {
			if err := uploads.MakeThumbnail(&bytes.Buffer{}, bytes.NewReader(src), f); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}
