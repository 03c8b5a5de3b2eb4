package uploads

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/jpegscale"
	"golang.org/x/image/draw"
)

// ThumbnailFormat is a size and type of thumbnail chatcore makes of image
// uploads (Zulip's THUMBNAIL_OUTPUT_FORMATS, in the encodings pure Go
// writes: JPEG for photographs, PNG for the rest).
type ThumbnailFormat struct {
	Name      string `json:"name"`
	MaxWidth  int    `json:"max_width"`
	MaxHeight int    `json:"max_height"`
	Format    string `json:"format"`
	Animated  bool   `json:"animated"`
}

// ThumbnailFormats are the formats chatcore makes: server_thumbnail_formats
// in /register. An animated GIF gets two thumbnails, as Zulip makes them:
// a still one of its first frame and an animated one (the one with
// Animated set) of its first frames, which its previews show (see
// [MaxAnimatedPixels]). The animated one is a GIF: no pure Go library
// encodes animated WebP. Zulip's formats are WebP, which no pure Go
// library encodes: libwebp compiled to WebAssembly
// (github.com/gen2brain/webp) took 120 ms to encode one 840×560
// thumbnail at its fastest setting (JPEG: 14 ms), after 0.4 s compiling
// the module, which would put a photograph's thumbnail back near 300 ms.
var ThumbnailFormats = []ThumbnailFormat{
	{Name: "840x560.jpg", MaxWidth: 840, MaxHeight: 560, Format: "jpg", Animated: false},
	{Name: "840x560.png", MaxWidth: 840, MaxHeight: 560, Format: "png", Animated: false},
	{Name: "840x560-anim.gif", MaxWidth: 840, MaxHeight: 560, Format: "gif", Animated: true},
}

// ThumbnailKey is the storage key of an upload's thumbnail.
func ThumbnailKey(pathID, format string) string { return chatcore.ThumbnailKey(pathID, format) }

// ErrNotThumbnailed is returned for an upload chatcore makes no thumbnail
// of (not an image it decodes).
var ErrNotThumbnailed = errors.New("uploads: no thumbnail for this file")

// thumbnailFormatFor returns the format used for an image of type ct.
func thumbnailFormatFor(ct string) (ThumbnailFormat, bool) {
	switch ct {
	case "image/jpeg":
		return ThumbnailFormats[0], true
	case "image/png", "image/gif", "image/webp":
		return ThumbnailFormats[1], true
	}
	return ThumbnailFormat{}, false
}

// MaxThumbnailPixels is the largest image (width × height, as its header
// says) chatcore thumbnails. Zulip's libvips pipeline streams the image and
// accepts up to IMAGE_BOMB_TOTAL_PIXELS (90 M); chatcore decodes the whole
// image into memory, so it stops at 25 M pixels: every 24-megapixel camera
// photograph is thumbnailed, and a larger image is served as the original
// only (it is still accepted as an upload, up to MaxImagePixels).
const MaxThumbnailPixels = 25_000_000

// MaxThumbnailDecodedBytes bounds the memory the decoded image of one
// thumbnail may take, computed before decoding from the header (an 8-bit
// RGBA image takes 4 bytes a pixel, a 16-bit one 8; a JPEG its planes at
// the reduced size it is decoded at and, when progressive, 4 bytes a
// coefficient besides: 6 bytes a pixel with 4:2:0 chroma). With
// ThumbnailWorkers thumbnails at once, the thumbnailer holds at most
// ThumbnailWorkers times this.
const MaxThumbnailDecodedBytes = 100 << 20

// decodedBytesPerPixel returns the bytes a pixel of an image with colour
// model m takes once decoded by the standard library's decoders; an
// unknown model counts as the widest (16-bit RGBA).
func decodedBytesPerPixel(m color.Model) int64 {
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.YCbCrModel:
		return 3 // 4:4:4 chroma; subsampled JPEGs take less
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel, color.NYCbCrAModel:
		return 4
	}
	return 8
}

// MakeThumbnail writes a thumbnail of the image src holds to dst, fitting
// f's box (never enlarged). The header is decoded first: an image over
// MaxThumbnailPixels, one whose decoded pixels would take more than
// MaxThumbnailDecodedBytes, or one that is not PNG, JPEG, GIF or WebP, is
// refused with ErrNotThumbnailed before any pixel is decoded; a truncated
// image fails in decoding. A still format shows an animated image's first
// frame; an animated format (f.Animated) is made only of an animated GIF,
// within the limits [MaxAnimatedPixels] says, and refused with
// ErrNotThumbnailed otherwise.
func MakeThumbnail(dst io.Writer, src io.Reader, f ThumbnailFormat) error {
	if !f.Animated {
		_, err := makeThumbnails(src, f, dst, nil)
		return err
	}
	still, _ := thumbnailFormatFor("image/gif")
	animated, err := makeThumbnails(src, still, io.Discard, dst)
	if err == nil && !animated {
		err = fmt.Errorf("%w: not an animated GIF within the limits", ErrNotThumbnailed)
	}
	return err
}

// makeThumbnails writes the still thumbnail of the image src holds, in
// format still, to stillDst (see MakeThumbnail) and, when animDst is not
// nil and the image is an animated GIF, its animated thumbnail to animDst,
// reporting whether it did.
func makeThumbnails(src io.Reader, still ThumbnailFormat, stillDst, animDst io.Writer) (bool, error) {
	need := func(w, h int) (int, int) { return fit(w, h, still.MaxWidth, still.MaxHeight) }
	br, h, err := readHeader(src, need)
	if err != nil {
		return false, err
	}
	if h.format == "gif" {
		return gifThumbnails(br, still, animatedFormat(), stillDst, animDst)
	}
	img, err := h.decode(br)
	if err != nil {
		return false, err
	}
	// Scaled as stored, then turned upright (fewer pixels to turn).
	b := img.Bounds()
	w, hh := b.Dx(), b.Dy()
	if swapsSides(h.orientation) {
		w, hh = hh, w
	}
	w, hh = fit(w, hh, still.MaxWidth, still.MaxHeight)
	if swapsSides(h.orientation) {
		w, hh = hh, w
	}
	out := image.NewRGBA(image.Rect(0, 0, w, hh))
	draw.ApproxBiLinear.Scale(out, out.Bounds(), img, b, draw.Src, nil)
	return false, encodeStill(stillDst, orient(out, h.orientation), still)
}

// encodeStill writes img in format f: JPEG or PNG.
func encodeStill(dst io.Writer, img image.Image, f ThumbnailFormat) error {
	if f.Format == "jpg" {
		return jpeg.Encode(dst, img, &jpeg.Options{Quality: 85})
	}
	return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(dst, img)
}

// imageHeader is what readHeader found of an image.
type imageHeader struct {
	cfg         image.Config // as stored (before orientation)
	format      string       // as image.DecodeConfig names it
	shift       uint         // the JPEG reduction to decode at
	orientation int          // a JPEG's EXIF orientation (1: upright)
}

// readHeader reads the header of the image src holds and checks it (see
// decodeLimited), returning a reader of the whole image. need is given
// the upright size of the image and returns the upright size it will be
// scaled to.
func readHeader(src io.Reader, need func(w, h int) (int, int)) (*bufio.Reader, imageHeader, error) {
	br := bufio.NewReaderSize(src, sniffBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, imageHeader{}, err
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(head))
	if err != nil {
		return nil, imageHeader{}, fmt.Errorf("%w: %v", ErrNotThumbnailed, err)
	}
	if err := checkThumbnailSize(cfg.Width, cfg.Height); err != nil {
		return nil, imageHeader{}, err
	}
	decoded := int64(cfg.Width) * int64(cfg.Height) * decodedBytesPerPixel(cfg.ColorModel)
	h := imageHeader{cfg: cfg, format: format, orientation: 1}
	if format == "jpeg" {
		h.orientation = jpegOrientation(head)
		stored := need
		if swapsSides(h.orientation) {
			stored = func(w, h int) (int, int) {
				nw, nh := need(h, w)
				return nh, nw
			}
		}
		// A JPEG's planes are decoded reduced, but a progressive one
		// keeps every coefficient at full size: the header tells both.
		h.shift = jpegShift(cfg.Width, cfg.Height, stored)
		if decoded, err = jpegscale.DecodedBytes(bytes.NewReader(head), h.shift); err != nil {
			return nil, imageHeader{}, fmt.Errorf("%w: %v", ErrNotThumbnailed, err)
		}
	}
	if decoded > MaxThumbnailDecodedBytes {
		return nil, imageHeader{}, fmt.Errorf("%w: %d×%d pixels would take %d MiB decoded", ErrNotThumbnailed, cfg.Width, cfg.Height, decoded>>20)
	}
	return br, h, nil
}

// decode decodes the image br holds, whose header is h.
func (h imageHeader) decode(br *bufio.Reader) (image.Image, error) {
	var img image.Image
	var err error
	if h.format == "jpeg" {
		img, err = jpegscale.Decode(br, h.shift)
	} else {
		img, _, err = image.Decode(br)
	}
	if err != nil {
		return nil, fmt.Errorf("uploads: decode image: %w", err)
	}
	return img, nil
}

// decodeLimited decodes the image src holds (the first frame of an
// animated one), as stored, and returns it with its EXIF orientation (1
// when upright; see [orient]), after checking its header: one over MaxThumbnailPixels,
// one whose decoded pixels would take more than MaxThumbnailDecodedBytes,
// or one that is not PNG, JPEG, GIF or WebP, is refused with
// ErrNotThumbnailed before any pixel is decoded. need gives, for the
// image's size, the size it will be scaled to: a JPEG is decoded at the
// smallest of 1/1, 1/2, 1/4 and 1/8 of its size still at least that large
// (see [jpegscale.Decode]).
func decodeLimited(src io.Reader, need func(w, h int) (int, int)) (image.Image, int, error) {
	br, h, err := readHeader(src, need)
	if err != nil {
		return nil, 0, err
	}
	img, err := h.decode(br)
	return img, h.orientation, err
}

// checkThumbnailSize refuses, with ErrNotThumbnailed, an image of
// width×height pixels over MaxThumbnailPixels (what its decoded pixels
// would take is decodeLimited's check, which knows how it decodes).
func checkThumbnailSize(width, height int) error {
	if pixels := int64(width) * int64(height); pixels > MaxThumbnailPixels || width <= 0 || height <= 0 {
		return fmt.Errorf("%w: %d×%d pixels is over the limit", ErrNotThumbnailed, width, height)
	}
	return nil
}

// jpegShift returns the largest reduction (as a power of two, at most 3)
// of a w×h JPEG that is still at least as large as need(w, h) in both
// directions.
func jpegShift(w, h int, need func(w, h int) (int, int)) uint {
	nw, nh := need(w, h)
	shift := uint(0)
	for shift < 3 && (w+1<<(shift+1)-1)>>(shift+1) >= nw && (h+1<<(shift+1)-1)>>(shift+1) >= nh {
		shift++
	}
	return shift
}

// fit returns the size of a w×h image scaled to fit mw×mh, never enlarged.
func fit(w, h, mw, mh int) (int, int) {
	if w <= mw && h <= mh {
		return w, h
	}
	if w*mh > h*mw {
		return mw, max(1, h*mw/w)
	}
	return max(1, w*mh/h), mh
}

// Thumbnail makes and stores the thumbnails of upload a when it is an
// image chatcore thumbnails (a still one, and an animated one of an
// animated GIF); Upload runs it after the upload has committed, in the
// background. Then, in one transaction, the upload records the format
// its previews show (the animated one when made), and the messages
// referencing it that show its loading placeholder show the thumbnail
// instead, their receivers told by an update_message event with
// rendering_only true (Zulip's thumbnail worker). When the image cannot
// be thumbnailed (its pixels are refused or do not decode), its previews
// are removed from those messages alike, and the upload shows none from
// then on. The encoded thumbnails are held in memory until stored (an
// animated one at most about MaxThumbnailDecodedBytes).
func Thumbnail(ctx context.Context, svc *chatcore.Service, a chatcore.Attachment) error {
	f, ok := thumbnailFormatFor(a.ContentType)
	fs := svc.FileStorage()
	if !ok || fs == nil {
		return ErrNotThumbnailed
	}
	src, err := fs.Open(ctx, a.PathID)
	if err != nil {
		return err
	}
	defer src.Close()
	var still, anim bytes.Buffer
	var animDst io.Writer
	if a.ContentType == "image/gif" {
		animDst = &anim
	}
	animated, err := makeThumbnails(src, f, &still, animDst)
	if err != nil { // the image, not the storage, failed
		if derr := thumbnailDone(ctx, svc, a.ID, ""); derr != nil {
			return errors.Join(err, derr)
		}
		return err
	}
	if _, err := fs.Put(ctx, ThumbnailKey(a.PathID, f.Name), &still); err != nil {
		return err
	}
	if animated {
		f = animatedFormat()
		if _, err := fs.Put(ctx, ThumbnailKey(a.PathID, f.Name), &anim); err != nil {
			return err
		}
	}
	return thumbnailDone(ctx, svc, a.ID, f.Name)
}

// OpenThumbnail opens the thumbnail format of upload pathID for viewer, who
// must be able to read the upload (see [Open]). A thumbnail not made (yet)
// is not found, and so is the animated format of a GIF that is not
// animated.
func OpenThumbnail(ctx context.Context, svc *chatcore.Service, viewer *chatcore.User, pathID, format string) (*File, error) {
	orig, err := Open(ctx, svc, viewer, pathID)
	if err != nil {
		return nil, err
	}
	_ = orig.Content.Close()
	tf, ok := thumbnailFormatFor(orig.Attachment.ContentType)
	if ok && orig.Attachment.ContentType == "image/gif" && format == animatedFormat().Name {
		tf = animatedFormat() // made when the GIF is animated
	}
	if !ok || tf.Name != format {
		return nil, fileNotFound()
	}
	c, err := svc.FileStorage().Open(ctx, ThumbnailKey(pathID, format))
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, fileNotFound()
	}
	if err != nil {
		return nil, err
	}
	a := orig.Attachment
	a.ContentType = "image/" + strings.Replace(tf.Format, "jpg", "jpeg", 1)
	a.FileName = strings.TrimSuffix(a.FileName, "."+tf.Format) + "." + tf.Format
	return &File{Attachment: a, Content: c, Inline: true}, nil
}
