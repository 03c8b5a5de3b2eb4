package uploads

import (
	"image"
	"image/color"
	"image/png"
	"io"

	"golang.org/x/image/draw"
)

// SquareImages decodes the image src holds (under the limits MakeThumbnail
// applies, before any pixel is decoded) and writes one PNG to each of dst:
// the largest centred square of the image scaled to sizes[i]×sizes[i], as
// Zulip's resize_avatar (enlarged when the image is smaller). A large
// image is first shrunk by a whole factor with a box filter (each output
// pixel the mean of a k×k block, which keeps detail that point sampling
// would alias away), then scaled to the exact size with Catmull-Rom. A
// JPEG is turned upright as its EXIF orientation says.
func SquareImages(src io.Reader, sizes []int, dst []io.Writer) error {
	largest := 0
	for _, size := range sizes {
		largest = max(largest, size)
	}
	// The centred square must keep at least the largest size's pixels.
	img, orientation, err := decodeLimited(src, func(w, h int) (int, int) {
		side := min(w, h, largest)
		return side * w / min(w, h), side * h / min(w, h)
	})
	if err != nil {
		return err
	}
	b := img.Bounds()
	side := min(b.Dx(), b.Dy())
	x0, y0 := b.Min.X+(b.Dx()-side)/2, b.Min.Y+(b.Dy()-side)/2
	crop := image.Rect(x0, y0, x0+side, y0+side)
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	for i, size := range sizes {
		var from image.Image = img
		r := crop
		if k := side / (2 * size); k >= 2 {
			from = boxShrink(img, crop, k)
			r = from.Bounds()
		}
		out := image.NewRGBA(image.Rect(0, 0, size, size))
		draw.CatmullRom.Scale(out, out.Bounds(), from, r, draw.Src, nil)
		if err := enc.Encode(dst[i], orient(out, orientation)); err != nil {
			return err
		}
	}
	return nil
}

// boxShrink returns the r part of img shrunk k times in each direction,
// each pixel the mean of a k×k block (the last partial row and column of
// blocks dropped). YCbCr images (JPEG) are averaged in their own samples
// and converted once per output pixel.
func boxShrink(img image.Image, r image.Rectangle, k int) *image.RGBA {
	w, h := r.Dx()/k, r.Dy()/k
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	n := uint32(k * k)
	if yc, ok := img.(*image.YCbCr); ok {
		for oy := range h {
			for ox := range w {
				var sy, scb, scr uint32
				for y := r.Min.Y + oy*k; y < r.Min.Y+(oy+1)*k; y++ {
					x := r.Min.X + ox*k
					yi := yc.YOffset(x, y)
					for _, v := range yc.Y[yi : yi+k] {
						sy += uint32(v)
					}
					for dx := range k {
						ci := yc.COffset(x+dx, y)
						scb += uint32(yc.Cb[ci])
						scr += uint32(yc.Cr[ci])
					}
				}
				cr, cg, cb := color.YCbCrToRGB(uint8(sy/n), uint8(scb/n), uint8(scr/n))
				o := out.PixOffset(ox, oy)
				out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = cr, cg, cb, 0xff
			}
		}
		return out
	}
	for oy := range h {
		for ox := range w {
			var sr, sg, sb, sa uint32
			for y := r.Min.Y + oy*k; y < r.Min.Y+(oy+1)*k; y++ {
				for x := r.Min.X + ox*k; x < r.Min.X+(ox+1)*k; x++ {
					cr, cg, cb, ca := img.At(x, y).RGBA()
					sr, sg, sb, sa = sr+cr>>8, sg+cg>>8, sb+cb>>8, sa+ca>>8
				}
			}
			o := out.PixOffset(ox, oy)
			out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = uint8(sr/n), uint8(sg/n), uint8(sb/n), uint8(sa/n)
		}
	}
	return out
}
