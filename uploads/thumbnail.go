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
// in /register. An animated image gets a still thumbnail of its first
// frame (Zulip also makes animated ones; chatcore does not). Zulip's
// formats are WebP, which no pure Go library encodes: libwebp compiled to
// WebAssembly (github.com/gen2brain/webp) took 120 ms to encode one
// 840×560 thumbnail at its fastest setting (JPEG: 14 ms), after 0.4 s
// compiling the module, which would put a photograph's thumbnail back
// near 300 ms.
var ThumbnailFormats = []ThumbnailFormat{
	{Name: "840x560.jpg", MaxWidth: 840, MaxHeight: 560, Format: "jpg", Animated: false},
	{Name: "840x560.png", MaxWidth: 840, MaxHeight: 560, Format: "png", Animated: false},
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
// image fails in decoding.
func MakeThumbnail(dst io.Writer, src io.Reader, f ThumbnailFormat) error {
	img, err := decodeLimited(src, func(w, h int) (int, int) { return fit(w, h, f.MaxWidth, f.MaxHeight) })
	if err != nil {
		return err
	}
	b := img.Bounds()
	w, h := fit(b.Dx(), b.Dy(), f.MaxWidth, f.MaxHeight)
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(out, out.Bounds(), img, b, draw.Src, nil)
	if f.Format == "jpg" {
		return jpeg.Encode(dst, out, &jpeg.Options{Quality: 85})
	}
	return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(dst, out)
}

// decodeLimited decodes the image src holds (the first frame of an
// animated one) after checking its header: one over MaxThumbnailPixels,
// one whose decoded pixels would take more than MaxThumbnailDecodedBytes,
// or one that is not PNG, JPEG, GIF or WebP, is refused with
// ErrNotThumbnailed before any pixel is decoded. need gives, for the
// image's size, the size it will be scaled to: a JPEG is decoded at the
// smallest of 1/1, 1/2, 1/4 and 1/8 of its size still at least that large
// (see [jpegscale.Decode]).
func decodeLimited(src io.Reader, need func(w, h int) (int, int)) (image.Image, error) {
	br := bufio.NewReaderSize(src, sniffBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(head))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotThumbnailed, err)
	}
	if err := checkThumbnailSize(cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	decoded := int64(cfg.Width) * int64(cfg.Height) * decodedBytesPerPixel(cfg.ColorModel)
	var shift uint
	if format == "jpeg" {
		// A JPEG's planes are decoded reduced, but a progressive one
		// keeps every coefficient at full size: the header tells both.
		shift = jpegShift(cfg.Width, cfg.Height, need)
		if decoded, err = jpegscale.DecodedBytes(bytes.NewReader(head), shift); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotThumbnailed, err)
		}
	}
	if decoded > MaxThumbnailDecodedBytes {
		return nil, fmt.Errorf("%w: %d×%d pixels would take %d MiB decoded", ErrNotThumbnailed, cfg.Width, cfg.Height, decoded>>20)
	}
	var img image.Image
	if format == "jpeg" {
		img, err = jpegscale.Decode(br, shift)
	} else {
		img, _, err = image.Decode(br)
	}
	if err != nil {
		return nil, fmt.Errorf("uploads: decode image: %w", err)
	}
	return img, nil
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

// Thumbnail makes and stores the thumbnail of upload a when it is an image
// chatcore thumbnails; Upload runs it after the upload has committed, in
// the background. Then, in one transaction, the upload records the
// thumbnail's format, and the messages referencing it that show its
// loading placeholder show the thumbnail instead, their receivers told by
// an update_message event with rendering_only true (Zulip's thumbnail
// worker). When the image cannot be thumbnailed (its pixels are refused
// or do not decode), its previews are removed from those messages alike,
// and the upload shows none from then on.
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
	pr, pw := io.Pipe()
	badImage := make(chan bool, 1)
	go func() {
		w := &writeWatch{w: pw}
		err := MakeThumbnail(w, src, f)
		pw.CloseWithError(err)
		badImage <- err != nil && !w.failed
	}()
	_, err = fs.Put(ctx, ThumbnailKey(a.PathID, f.Name), pr)
	_ = pr.CloseWithError(err) // ends MakeThumbnail should Put have stopped early
	if bad := <-badImage; err != nil {
		if bad { // the image, not the storage, failed
			if derr := thumbnailDone(ctx, svc, a.ID, ""); derr != nil {
				return errors.Join(err, derr)
			}
		}
		return err
	}
	return thumbnailDone(ctx, svc, a.ID, f.Name)
}

// writeWatch passes writes on and remembers whether one failed.
type writeWatch struct {
	w      io.Writer
	failed bool
}

func (w *writeWatch) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.failed = true
	}
	return n, err
}

// OpenThumbnail opens the thumbnail format of upload pathID for viewer, who
// must be able to read the upload (see [Open]). A thumbnail not made (yet)
// is not found.
func OpenThumbnail(ctx context.Context, svc *chatcore.Service, viewer *chatcore.User, pathID, format string) (*File, error) {
	orig, err := Open(ctx, svc, viewer, pathID)
	if err != nil {
		return nil, err
	}
	_ = orig.Content.Close()
	tf, ok := thumbnailFormatFor(orig.Attachment.ContentType)
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
