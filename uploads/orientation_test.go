package uploads_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"testing"

	"github.com/chatcore/chatcore/uploads"
	"github.com/matryer/is"
)

// orientedJPEG is a 40×20 JPEG, as stored: its top-left quadrant red, its
// top-right one green, the rest grey; with an EXIF APP1 segment whose
// Orientation tag is o (big-endian TIFF when bigEndian), none when o is 0.
func orientedJPEG(t testing.TB, o int, bigEndian bool) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for y := range 20 {
		for x := range 40 {
			c := color.RGBA{128, 128, 128, 255}
			switch {
			case y < 10 && x < 20:
				c = color.RGBA{255, 0, 0, 255}
			case y < 10:
				c = color.RGBA{0, 255, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	if o == 0 {
		return b.Bytes()
	}
	var bo binary.AppendByteOrder = binary.LittleEndian
	tiff := []byte("II*\x00")
	if bigEndian {
		bo, tiff = binary.BigEndian, []byte("MM\x00*")
	}
	tiff = bo.AppendUint32(tiff, 8)
	tiff = bo.AppendUint16(tiff, 2) // two entries: ImageDescription, then Orientation
	tiff = bo.AppendUint16(tiff, 0x010e)
	tiff = bo.AppendUint16(tiff, 2)
	tiff = bo.AppendUint32(tiff, 4)
	tiff = append(tiff, 'a', 'b', 'c', 0)
	tiff = bo.AppendUint16(tiff, 0x0112)
	tiff = bo.AppendUint16(tiff, 3)
	tiff = bo.AppendUint32(tiff, 1)
	tiff = bo.AppendUint16(tiff, uint16(o))
	tiff = bo.AppendUint16(tiff, 0)
	tiff = bo.AppendUint32(tiff, 0)
	seg := append([]byte("Exif\x00\x00"), tiff...)
	app1 := append([]byte{0xff, 0xe1}, byte((len(seg)+2)>>8), byte(len(seg)+2))
	app1 = append(app1, seg...)
	src := b.Bytes()
	return append(append(append([]byte(nil), src[:2]...), app1...), src[2:]...)
}

// corner names a corner of an upright image.
type corner int

const (
	topLeft corner = iota
	topRight
	bottomRight
	bottomLeft
)

// at returns a point 3 pixels inside corner c of a w×h image.
func (c corner) at(w, h int) (int, int) {
	return [4][2]int{{3, 3}, {w - 4, 3}, {w - 4, h - 4}, {3, h - 4}}[c][0], [4][2]int{{3, 3}, {w - 4, 3}, {w - 4, h - 4}, {3, h - 4}}[c][1]
}

// uprightCorners are, for each EXIF orientation, where the stored image's
// first pixel of its first row and last pixel of its first row show once
// upright (the EXIF specification's "0th row" and "0th column" sides).
var uprightCorners = map[int][2]corner{
	1: {topLeft, topRight}, 2: {topRight, topLeft}, 3: {bottomRight, bottomLeft}, 4: {bottomLeft, bottomRight},
	5: {topLeft, bottomLeft}, 6: {topRight, bottomRight}, 7: {bottomRight, topRight}, 8: {bottomLeft, topLeft},
}

func isRed(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r > 0xb000 && g < 0x5000 && b < 0x5000
}

func isGreen(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return g > 0xb000 && r < 0x5000 && b < 0x5000
}

// TestThumbnailOrientation checks that a JPEG of each EXIF orientation is
// thumbnailed upright, and that its upload records its upright size
// (Zulip's original_width_px, from libvips' autorotation).
func TestThumbnailOrientation(t *testing.T) {
	w, c, _ := previewWorld(t)
	for o := 1; o <= 8; o++ {
		for _, bigEndian := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d-%v", o, bigEndian), func(t *testing.T) {
				is := is.New(t)
				src := orientedJPEG(t, o, bigEndian)
				var out bytes.Buffer
				is.NoErr(uploads.MakeThumbnail(&out, bytes.NewReader(src), uploads.ThumbnailFormats[0]))
				img, err := jpeg.Decode(&out)
				is.NoErr(err)
				width, height := 40, 20
				if o >= 5 {
					width, height = 20, 40
				}
				is.Equal(img.Bounds().Size(), image.Pt(width, height)) // upright, never enlarged
				want := uprightCorners[o]
				is.True(isRed(img.At(want[0].at(width, height))))   // the stored first pixel
				is.True(isGreen(img.At(want[1].at(width, height)))) // the end of the stored first row

				up, err := uploads.Upload(t.Context(), w.Svc, c.Member, "photo.jpg", "image/jpeg", int64(len(src)), bytes.NewReader(src))
				is.NoErr(err)
				is.Equal(image.Pt(up.Attachment.ImageWidth, up.Attachment.ImageHeight), image.Pt(width, height)) // the upright size is recorded
			})
		}
	}
}

// TestSquareImagesOrientation: an avatar of a JPEG to be turned a quarter
// clockwise is made of it upright.
func TestSquareImagesOrientation(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	is.NoErr(uploads.SquareImages(bytes.NewReader(orientedJPEG(t, 6, false)), []int{100}, []io.Writer{&out}))
	img, _, err := image.Decode(&out)
	is.NoErr(err)
	// The stored top half (red then green) is the upright right half.
	is.True(isRed(img.At(80, 20)))
	is.True(isGreen(img.At(80, 80)))
	is.True(!isRed(img.At(20, 50)) && !isGreen(img.At(20, 50)))
}

// TestOrientationMalformed: EXIF that is absent, cut short, out of range
// or pointing outside its segment reads as upright, without reading
// past what it was given.
func TestOrientationMalformed(t *testing.T) {
	is := is.New(t)
	good := orientedJPEG(t, 6, false)
	is.Equal(uploads.JPEGOrientation(good), 6)
	is.Equal(uploads.JPEGOrientation(orientedJPEG(t, 0, false)), 1) // no EXIF
	for n := range 4 + 44 {                                         // the APP1 segment ends at 48
		if o := uploads.JPEGOrientation(good[:n]); o != 1 { // cut anywhere before the tag's end
			t.Fatalf("cut at %d: orientation %d", n, o)
		}
	}
	bad := func(change func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		change(b)
		return b
	}
	// SOI, APP1 marker and length, "Exif\0\0", then the TIFF header at 12.
	is.Equal(uploads.JPEGOrientation(bad(func(b []byte) { b[12+4] = 0xf0 })), 1)    // IFD offset past the segment
	is.Equal(uploads.JPEGOrientation(bad(func(b []byte) { b[12+8] = 1 })), 1)       // the count ends the IFD before the tag
	is.Equal(uploads.JPEGOrientation(bad(func(b []byte) { b[12+10+12+8] = 9 })), 1) // no such orientation
	is.Equal(uploads.JPEGOrientation(bad(func(b []byte) { b[12+10+12+2] = 4 })), 1) // not a SHORT
	is.Equal(uploads.JPEGOrientation(bad(func(b []byte) { b[12] = 'X' })), 1)       // no TIFF header
}
