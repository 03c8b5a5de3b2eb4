package uploads

// EXIF orientation. A camera stores a photograph as its sensor read it
// and says in the EXIF Orientation tag how to turn it upright; Zulip's
// libvips thumbnailer applies it (its thumbnails, avatars and emoji are
// upright), and the original size Zulip records is the upright one
// (width and height swapped for orientations 5 to 8). Only the
// orientation tag is read, from the JPEG's APP1 segment: the EXIF
// libraries on offer (github.com/dsoprea/go-exif) parse every tag and
// bring several dependencies for this one value.

import (
	"encoding/binary"
	"image"
)

// jpegOrientation returns the EXIF orientation (1 to 8) of the JPEG whose
// start head holds, 1 when it has none or it is not in head.
func jpegOrientation(head []byte) int {
	if len(head) < 4 || head[0] != 0xff || head[1] != 0xd8 {
		return 1
	}
	for i := 2; i+4 <= len(head); {
		if head[i] != 0xff {
			return 1
		}
		marker := head[i+1]
		if marker == 0xff { // fill byte
			i++
			continue
		}
		if marker == 0xd8 || marker == 0x01 || marker >= 0xd0 && marker <= 0xd7 { // no length
			i += 2
			continue
		}
		if marker == 0xda || marker == 0xd9 { // scan data: no more metadata
			return 1
		}
		n := int(binary.BigEndian.Uint16(head[i+2:]))
		if n < 2 || i+2+n > len(head) {
			return 1
		}
		seg := head[i+4 : i+2+n]
		if marker == 0xe1 && len(seg) > 6 && string(seg[:6]) == "Exif\x00\x00" {
			return tiffOrientation(seg[6:])
		}
		i += 2 + n
	}
	return 1
}

// tiffOrientation returns the Orientation tag (0x0112) of the first IFD of
// the TIFF structure t (EXIF's), 1 when it has none or it is malformed.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(t[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 1
	}
	ifd := int64(bo.Uint32(t[4:]))
	if ifd+2 > int64(len(t)) {
		return 1
	}
	count := int64(bo.Uint16(t[ifd:]))
	for e := ifd + 2; e+12 <= int64(len(t)) && e < ifd+2+12*count; e += 12 {
		if bo.Uint16(t[e:]) == 0x0112 && bo.Uint16(t[e+2:]) == 3 { // SHORT
			if o := int(bo.Uint16(t[e+8:])); o >= 1 && o <= 8 {
				return o
			}
			return 1
		}
	}
	return 1
}

// swapsSides reports whether orientation o turns the image a quarter:
// its upright width is its stored height.
func swapsSides(o int) bool { return o >= 5 && o <= 8 }

// orient returns img turned upright from EXIF orientation o (img itself
// for 1).
func orient(img *image.RGBA, o int) *image.RGBA {
	if o <= 1 || o > 8 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	ow, oh := w, h
	if swapsSides(o) {
		ow, oh = h, w
	}
	out := image.NewRGBA(image.Rect(0, 0, ow, oh))
	for y := range h {
		row := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):][:4*w]
		for x := range w {
			var dx, dy int
			switch o {
			case 2: // mirrored
				dx, dy = w-1-x, y
			case 3: // upside down
				dx, dy = w-1-x, h-1-y
			case 4: // mirrored upside down
				dx, dy = x, h-1-y
			case 5: // mirrored, turned a quarter anticlockwise
				dx, dy = y, x
			case 6: // to be turned a quarter clockwise
				dx, dy = h-1-y, x
			case 7: // mirrored, turned a quarter clockwise
				dx, dy = h-1-y, w-1-x
			case 8: // to be turned a quarter anticlockwise
				dx, dy = y, w-1-x
			}
			copy(out.Pix[out.PixOffset(dx, dy):][:4], row[4*x:4*x+4])
		}
	}
	return out
}
