package uploads

// Animated GIF thumbnails. An animated image gets two thumbnails, as
// Zulip makes them: a still one of its first frame and an animated one of
// its first frames (THUMBNAIL_OUTPUT_FORMATS has both; the rendered
// preview shows the animated one and says so with data-animated). The
// animated thumbnail is a GIF: no pure Go library encodes animated WebP,
// and the standard library encodes GIF. Only GIF animations are
// animated: the standard library's PNG decoder reads an APNG's default
// image only, and golang.org/x/image/webp decodes no animated WebP.
//
// A GIF is read frame by frame (its blocks parsed here, each frame's
// pixels decoded by image/gif on a one-frame stream made of the GIF's
// header and that frame), so that only the frame being composed is held
// decoded, and the number of frames read is bounded before any is.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"io"

	"golang.org/x/image/draw"
)

// MaxAnimatedPixels bounds the source pixels (frames × the GIF's logical
// screen) an animated thumbnail is made of: Zulip's
// IMAGE_MAX_ANIMATED_PIXELS. A longer animation's thumbnail shows its
// first MaxAnimatedPixels / (width × height) frames, as Zulip's; one
// whose first three frames are over it gets only a still thumbnail.
const MaxAnimatedPixels = 30_000_000

// MaxAnimatedFrames bounds the frames of an animated thumbnail whatever
// their size, so that a small image of many frames costs no more than a
// few megabytes of frame records.
const MaxAnimatedFrames = 1000

// minAnimatedFrames is how many frames of the source the pixel budget
// must allow for an animated thumbnail to be made (Zulip's check of
// libvips_check_image with truncated animations).
const minAnimatedFrames = 3

// animatedFormat is the animated thumbnail format (the one ThumbnailFormats
// entry with Animated set).
func animatedFormat() ThumbnailFormat {
	for _, f := range ThumbnailFormats {
		if f.Animated {
			return f
		}
	}
	panic("uploads: no animated thumbnail format")
}

// gifReader reads a GIF's frames one at a time.
type gifReader struct {
	br            *bufio.Reader
	prefix        []byte // header, logical screen descriptor, global colour table
	width, height int    // the logical screen
	loopCount     int    // as gif.GIF.LoopCount
	gce           []byte // the graphic control extension for the next frame
}

// gifFrame is one decoded frame with its graphic control.
type gifFrame struct {
	img      *image.Paletted
	delay    int // hundredths of a second
	disposal byte
}

var errGIFFormat = errors.New("uploads: malformed GIF")

// newGIFReader reads a GIF's header and logical screen descriptor.
func newGIFReader(br *bufio.Reader) (*gifReader, error) {
	head := make([]byte, 13)
	if _, err := io.ReadFull(br, head); err != nil {
		return nil, fmt.Errorf("%w: %v", errGIFFormat, err)
	}
	if string(head[:6]) != "GIF87a" && string(head[:6]) != "GIF89a" {
		return nil, errGIFFormat
	}
	g := &gifReader{br: br, loopCount: -1,
		width: int(head[6]) | int(head[7])<<8, height: int(head[8]) | int(head[9])<<8}
	if head[10]&0x80 != 0 {
		table := make([]byte, 3<<(head[10]&7+1))
		if _, err := io.ReadFull(br, table); err != nil {
			return nil, fmt.Errorf("%w: %v", errGIFFormat, err)
		}
		head = append(head, table...)
	}
	g.prefix = head
	return g, nil
}

// readSubBlocks reads data sub-blocks up to their terminator, appending
// them (with their lengths) to dst when keep.
func (g *gifReader) readSubBlocks(dst []byte, keep bool) ([]byte, error) {
	var block [255]byte
	for {
		n, err := g.br.ReadByte()
		if err != nil {
			return dst, err
		}
		if keep {
			dst = append(dst, n)
		}
		if n == 0 {
			return dst, nil
		}
		if _, err := io.ReadFull(g.br, block[:n]); err != nil {
			return dst, err
		}
		if keep {
			dst = append(dst, block[:n]...)
		}
	}
}

// next decodes the next frame; io.EOF after the last.
func (g *gifReader) next() (gifFrame, error) {
	for {
		c, err := g.br.ReadByte()
		if err != nil {
			return gifFrame{}, fmt.Errorf("%w: %v", errGIFFormat, err)
		}
		switch c {
		case 0x3b: // trailer
			return gifFrame{}, io.EOF
		case 0x21: // extension
			label, err := g.br.ReadByte()
			if err != nil {
				return gifFrame{}, fmt.Errorf("%w: %v", errGIFFormat, err)
			}
			ext, err := g.readSubBlocks([]byte{0x21, label}, label == 0xf9 || label == 0xff)
			if err != nil {
				return gifFrame{}, fmt.Errorf("%w: %v", errGIFFormat, err)
			}
			switch label {
			case 0xf9:
				g.gce = ext
			case 0xff: // NETSCAPE2.0 (or ANIMEXTS1.0) carries the loop count
				if len(ext) >= 19 && ext[2] == 11 && (string(ext[3:14]) == "NETSCAPE2.0" || string(ext[3:14]) == "ANIMEXTS1.0") && ext[14] == 3 && ext[15] == 1 {
					g.loopCount = int(ext[16]) | int(ext[17])<<8
				}
			}
		case 0x2c: // image descriptor
			return g.frame()
		default:
			return gifFrame{}, fmt.Errorf("%w: block type 0x%02x", errGIFFormat, c)
		}
	}
}

// frame decodes the frame whose image descriptor starts (after its 0x2c)
// at the reader, with image/gif on a stream of the GIF's prefix, the
// frame's graphic control and the frame itself.
func (g *gifReader) frame() (gifFrame, error) {
	desc := make([]byte, 10, 10+768)
	desc[0] = 0x2c
	if _, err := io.ReadFull(g.br, desc[1:]); err != nil {
		return gifFrame{}, fmt.Errorf("%w: %v", errGIFFormat, err)
	}
	if desc[9]&0x80 != 0 {
		table := make([]byte, 3<<(desc[9]&7+1))
		if _, err := io.ReadFull(g.br, table); err != nil {
			return gifFrame{}, fmt.Errorf("%w: %v", errGIFFormat, err)
		}
		desc = append(desc, table...)
	}
	fr := gifFrame{}
	if len(g.gce) >= 8 && g.gce[2] == 4 {
		fr.disposal = g.gce[3] >> 2 & 7
		fr.delay = int(g.gce[4]) | int(g.gce[5])<<8
	}
	data := &gifData{g: g}
	stream := io.MultiReader(bytes.NewReader(g.prefix), bytes.NewReader(g.gce), bytes.NewReader(desc), data, bytes.NewReader([]byte{0x3b}))
	g.gce = nil
	img, err := gif.Decode(stream)
	if err != nil {
		return gifFrame{}, err
	}
	if _, err := io.Copy(io.Discard, data); err != nil { // what image/gif left of the frame
		return gifFrame{}, err
	}
	p, ok := img.(*image.Paletted)
	if !ok {
		return gifFrame{}, errGIFFormat
	}
	fr.img = p
	return fr, nil
}

// gifData passes one frame's image data on from the GIF: its LZW code
// size and its sub-blocks up to their terminator, then io.EOF.
type gifData struct {
	g       *gifReader
	started bool
	left    int // bytes of the current sub-block not yet passed
	done    bool
}

func (d *gifData) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && !d.done {
		if d.left > 0 {
			m, err := d.g.br.Read(p[n:min(len(p), n+d.left)])
			n += m
			d.left -= m
			if err != nil {
				return n, fmt.Errorf("%w: %v", errGIFFormat, err)
			}
			continue
		}
		b, err := d.g.br.ReadByte()
		if err != nil {
			return n, fmt.Errorf("%w: %v", errGIFFormat, err)
		}
		p[n] = b
		n++
		switch {
		case !d.started:
			d.started = true // the LZW minimum code size
		case b == 0:
			d.done = true
		default:
			d.left = int(b)
		}
	}
	if n == 0 && d.done {
		return 0, io.EOF
	}
	return n, nil
}

// gifThumbnails writes the still thumbnail (format still) of the GIF br
// holds to stillDst, and, when animDst is not nil and the GIF has more
// than one frame, its animated thumbnail (format anim) to animDst,
// reporting whether it did. width×height is the logical screen, already
// checked against the still limits. The frames read are bounded before
// any is decoded: an animated thumbnail needs its canvas (4 bytes a
// pixel of the screen), the disposed-to-previous copy (4 more), the
// frame (1) and its frames kept for encoding (1 byte an output pixel
// each) within MaxThumbnailDecodedBytes, and its source frames within
// MaxAnimatedPixels and MaxAnimatedFrames; it is not made when that
// leaves fewer than three frames.
func gifThumbnails(br *bufio.Reader, still, anim ThumbnailFormat, stillDst, animDst io.Writer) (bool, error) {
	g, err := newGIFReader(br)
	if err != nil {
		return false, err
	}
	first, err := g.next()
	if err != nil {
		return false, fmt.Errorf("uploads: decode image: %w", err)
	}
	sw, sh := fit(g.width, g.height, still.MaxWidth, still.MaxHeight)
	if err := encodeStill(stillDst, frameStill(first.img, g.width, g.height, sw, sh), still); err != nil {
		return false, err
	}
	if animDst == nil {
		return false, nil
	}
	aw, ah := fit(g.width, g.height, anim.MaxWidth, anim.MaxHeight)
	limit := animatedFrameLimit(g.width, g.height, aw, ah)
	if limit < minAnimatedFrames {
		return false, nil
	}
	second, err := g.next()
	if err != nil { // a single frame (or a broken second one): still only
		return false, nil
	}
	a := newAnimator(g.width, g.height, aw, ah)
	out := &gif.GIF{LoopCount: g.loopCount, Config: image.Config{Width: aw, Height: ah}}
	for fr := range limitedFrames(g, []gifFrame{first, second}, limit) {
		out.Image = append(out.Image, a.add(fr))
		out.Delay = append(out.Delay, fr.delay)
		out.Disposal = append(out.Disposal, gif.DisposalBackground) // each frame is whole
	}
	return true, gif.EncodeAll(animDst, out)
}

// limitedFrames yields the frames read, then the GIF's next ones, up to
// limit in all; a frame that does not decode ends the animation there, as
// browsers show a truncated GIF.
func limitedFrames(g *gifReader, read []gifFrame, limit int) func(func(gifFrame) bool) {
	return func(yield func(gifFrame) bool) {
		for i := 0; i < limit; i++ {
			var fr gifFrame
			if i < len(read) {
				fr = read[i]
			} else {
				var err error
				if fr, err = g.next(); err != nil {
					return
				}
			}
			if !yield(fr) {
				return
			}
		}
	}
}

// animatedFrameLimit returns how many frames of a w×h GIF an animated
// thumbnail of ow×oh may hold (see gifThumbnails).
func animatedFrameLimit(w, h, ow, oh int) int {
	src, out := int64(w)*int64(h), int64(ow)*int64(oh)
	fixed := 9*src + 4*out // canvas, previous copy, frame, scaled canvas
	if fixed >= MaxThumbnailDecodedBytes {
		return 0
	}
	return int(min(MaxAnimatedFrames, MaxAnimatedPixels/src, (MaxThumbnailDecodedBytes-fixed)/out))
}

// frameStill returns the first frame of a w×h GIF, placed on its
// transparent logical screen, scaled to ow×oh.
func frameStill(fr *image.Paletted, w, h, ow, oh int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, ow, oh))
	b := fr.Bounds()
	dst := image.Rect(b.Min.X*ow/w, b.Min.Y*oh/h, (b.Max.X*ow+w-1)/w, (b.Max.Y*oh+h-1)/h)
	draw.ApproxBiLinear.Scale(out, dst, fr, b, draw.Src, nil)
	return out
}

// animator composes a GIF's frames on its logical screen as browsers do
// (each frame drawn over the canvas, then disposed of as it says) and
// turns each composed canvas into a whole output frame.
type animator struct {
	canvas *image.RGBA
	prev   *image.RGBA // the canvas before a frame disposed to previous
	scaled *image.RGBA // the canvas at the output size (canvas itself when equal)
	tables map[[256]uint32]*paletteTable
	last   gifFrame // the frame to dispose of before the next
	any    bool
}

func newAnimator(w, h, ow, oh int) *animator {
	a := &animator{canvas: image.NewRGBA(image.Rect(0, 0, w, h)), tables: map[[256]uint32]*paletteTable{}}
	a.scaled = a.canvas
	if ow != w || oh != h {
		a.scaled = image.NewRGBA(image.Rect(0, 0, ow, oh))
	}
	return a
}

// add composes frame fr and returns the output frame showing the canvas.
func (a *animator) add(fr gifFrame) *image.Paletted {
	if a.any {
		b := a.last.img.Bounds()
		switch a.last.disposal {
		case gif.DisposalBackground: // browsers clear to transparent
			draw.Draw(a.canvas, b, image.Transparent, image.Point{}, draw.Src)
		case gif.DisposalPrevious:
			draw.Draw(a.canvas, b, a.prev, b.Min, draw.Src)
		}
	}
	if fr.disposal == gif.DisposalPrevious {
		if a.prev == nil {
			a.prev = image.NewRGBA(a.canvas.Bounds())
		}
		draw.Draw(a.prev, fr.img.Bounds(), a.canvas, fr.img.Bounds().Min, draw.Src)
	}
	drawPaletted(a.canvas, fr.img)
	a.last, a.any = fr, true
	if a.scaled != a.canvas {
		draw.ApproxBiLinear.Scale(a.scaled, a.scaled.Bounds(), a.canvas, a.canvas.Bounds(), draw.Src, nil)
	}
	t := a.table(fr.img.Palette)
	return t.quantize(a.scaled)
}

// drawPaletted draws the opaque pixels of fr over canvas (a GIF's palette
// entries are opaque or, the transparent index, fully transparent).
func drawPaletted(canvas *image.RGBA, fr *image.Paletted) {
	var rgba [256][4]uint8
	var opaque [256]bool
	for i, c := range fr.Palette {
		r, g, b, al := c.RGBA()
		rgba[i] = [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
		opaque[i] = al >= 0x8000
	}
	b := fr.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		src := fr.Pix[fr.PixOffset(b.Min.X, y):][:b.Dx()]
		dst := canvas.Pix[canvas.PixOffset(b.Min.X, y):][:4*b.Dx()]
		for x, i := range src {
			if opaque[i] {
				copy(dst[4*x:4*x+4], rgba[i][:])
			}
		}
	}
}

// table returns the colour lookup of palette p, made on first use.
func (a *animator) table(p color.Palette) *paletteTable {
	var key [256]uint32
	for i, c := range p {
		r, g, b, al := c.RGBA()
		key[i] = r>>8<<24 | g>>8<<16 | b>>8<<8 | al>>8
	}
	t, ok := a.tables[key]
	if !ok {
		t = newPaletteTable(p)
		a.tables[key] = t
	}
	return t
}

// paletteTable maps colours to the nearest opaque entry of a palette (the
// source frame's: the output frame keeps the source's colours), through a
// table of 15-bit colours filled on first use; a pixel under half opaque
// maps to the palette's transparent entry (one is added when the palette
// has none and room for it).
type paletteTable struct {
	pal         color.Palette
	opaque      [][3]int32
	index       []int16 // by 15-bit colour, -1 until looked up
	transparent int     // -1 when there is none
}

func newPaletteTable(p color.Palette) *paletteTable {
	t := &paletteTable{pal: append(color.Palette(nil), p...), index: make([]int16, 1<<15), transparent: -1}
	for i := range t.index {
		t.index[i] = -1
	}
	t.opaque = make([][3]int32, len(t.pal))
	for i, c := range t.pal {
		r, g, b, al := c.RGBA()
		if al < 0x8000 {
			if t.transparent < 0 {
				t.transparent = i
			}
			t.opaque[i] = [3]int32{-1 << 20, -1 << 20, -1 << 20} // never nearest
			continue
		}
		t.opaque[i] = [3]int32{int32(r >> 8), int32(g >> 8), int32(b >> 8)}
	}
	if t.transparent < 0 && len(t.pal) < 256 {
		t.transparent = len(t.pal)
		t.pal = append(t.pal, color.RGBA{})
		t.opaque = append(t.opaque, [3]int32{-1 << 20, -1 << 20, -1 << 20})
	}
	return t
}

// nearest returns the index of the opaque entry nearest r, g, b.
func (t *paletteTable) nearest(r, g, b int32) int16 {
	best, bestD := 0, int32(1<<30)
	for i, c := range t.opaque {
		dr, dg, db := c[0]-r, c[1]-g, c[2]-b
		if d := dr*dr + dg*dg + db*db; d < bestD {
			best, bestD = i, d
		}
	}
	return int16(best)
}

// quantize returns img in the table's palette.
func (t *paletteTable) quantize(img *image.RGBA) *image.Paletted {
	b := img.Bounds()
	out := image.NewPaletted(b, t.pal)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		src := img.Pix[img.PixOffset(b.Min.X, y):][:4*b.Dx()]
		dst := out.Pix[out.PixOffset(b.Min.X, y):][:b.Dx()]
		for x := range dst {
			r, g, bl, al := int32(src[4*x]), int32(src[4*x+1]), int32(src[4*x+2]), int32(src[4*x+3])
			if al < 0x80 && t.transparent >= 0 {
				dst[x] = uint8(t.transparent)
				continue
			}
			if al > 0 && al < 0xff { // premultiplied at blended edges
				r, g, bl = min(r*0xff/al, 0xff), min(g*0xff/al, 0xff), min(bl*0xff/al, 0xff)
			}
			k := r>>3<<10 | g>>3<<5 | bl>>3
			i := t.index[k]
			if i < 0 {
				i = t.nearest(r&^7|4, g&^7|4, bl&^7|4)
				t.index[k] = i
			}
			dst[x] = uint8(i)
		}
	}
	return out
}
