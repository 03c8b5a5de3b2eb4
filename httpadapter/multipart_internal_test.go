package httpadapter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"
	"testing/iotest"
)

// formPartView is what a multipart reader yields of one part.
type formPartView struct {
	header, form, file, data string
}

// formPartReader is a part as either reader yields it.
type formPartReader interface {
	io.Reader
	FormName() string
	FileName() string
}

// readAllForm reads every part of body with the stdlib reader (std) or
// formReader, through a source that yields at most chunk bytes a read;
// it returns the parts and whether reading failed.
func readAllForm(body []byte, boundary string, std bool, chunk int) ([]formPartView, bool) {
	var src io.Reader = bytes.NewReader(body)
	if chunk > 0 {
		src = &chunkReader{r: src, n: chunk}
	}
	var next func() (formPartReader, textproto.MIMEHeader, error)
	if std {
		mr := multipart.NewReader(src, boundary)
		next = func() (formPartReader, textproto.MIMEHeader, error) {
			p, err := mr.NextPart()
			if err != nil {
				return nil, nil, err
			}
			return p, p.Header, nil
		}
	} else {
		fr := newFormReader(src, boundary)
		next = func() (formPartReader, textproto.MIMEHeader, error) {
			p, err := fr.NextPart()
			if err != nil {
				return nil, nil, err
			}
			return p, p.Header, nil
		}
	}
	var parts []formPartView
	for {
		p, hdr, err := next()
		if errors.Is(err, io.EOF) {
			return parts, false
		}
		if err != nil {
			return parts, true
		}
		data, err := io.ReadAll(p)
		parts = append(parts, formPartView{fmt.Sprint(hdr), p.FormName(), p.FileName(), string(data)})
		if err != nil {
			return parts, true
		}
	}
}

// chunkReader yields at most n bytes a read.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// checkSameAsStd checks that formReader reads body as mime/multipart does.
func checkSameAsStd(t *testing.T, body []byte, boundary string) {
	t.Helper()
	want, wantErr := readAllForm(body, boundary, true, 0)
	for _, chunk := range []int{0, 1, 3, 7, 4096} {
		got, gotErr := readAllForm(body, boundary, false, chunk)
		if gotErr != wantErr || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("body %q (reads of %d):\n got %q (failed %v)\nwant %q (failed %v)", body, chunk, got, gotErr, want, wantErr)
		}
	}
}

// TestFormReaderMatchesStdlib checks formReader against mime/multipart on
// well-formed and broken bodies, read whole and in small pieces: data
// holding near-delimiters, empty parts, LF line breaks, a preamble and
// an epilogue, quoted-printable, truncations at every length.
func TestFormReaderMatchesStdlib(t *testing.T) {
	const b = "XyZ"
	cases := []string{
		"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n--XyZ--\r\n",
		"preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"../x/y.txt\"\r\nContent-Type: text/plain\r\n\r\nline\r\n--XyZa\r\n--Xy\r\n\r\n--XyZ \t\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\n\r\n--XyZ--\r\nepilogue",
		"--XyZ\nContent-Disposition: form-data; name=\"a\"\n\nlf only\n--XyZ\nContent-Disposition: form-data; name=\"b\"\n\n\r\n--XyZ--\n",
		"--XyZ\r\nContent-Disposition: form-data; name=\"q\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\na=3Db=\r\nc\r\n--XyZ--",
		"--XyZ\r\nContent-Disposition: form-data; name=\"e\"\r\n\r\n--XyZ\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nx\r\n--XyZ--\r\n",
		"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--XyZ--garbage\r\n",
		"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\nFolded: one\r\n two\r\n\r\nx\r\n--XyZ-\r\n--XyZ--\r\n",
		"--XyZ--\r\n",
		"no delimiter at all\r\n",
		"--XyZ\r\nBad header line\r\n\r\nx\r\n--XyZ--\r\n",
	}
	for _, c := range cases {
		for n := 0; n <= len(c); n++ {
			checkSameAsStd(t, []byte(c[:n]), b)
		}
	}
	// Random bodies of parts whose data is made of delimiter pieces.
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"\r\n", "\n", "--", "-", "XyZ", "Xy", "\r\n--XyZ", "\r\n--XyZ-", "\r\n--Xy", "a", " ", "\r"}
	for range 3000 {
		var body strings.Builder
		body.WriteString("--" + b + "\r\n")
		for np := rng.IntN(3) + 1; np > 0; np-- {
			fmt.Fprintf(&body, "Content-Disposition: form-data; name=\"p%d\"\r\n\r\n", np)
			for k := rng.IntN(8); k > 0; k-- {
				body.WriteString(pieces[rng.IntN(len(pieces))])
			}
			if np > 1 {
				body.WriteString("\r\n--" + b + "\r\n")
			}
		}
		body.WriteString("\r\n--" + b + "--\r\n")
		checkSameAsStd(t, []byte(body.String()), b)
	}
}

// FuzzFormReader checks formReader against mime/multipart on any body:
// the parts both read whole are the same. (Where a malformed or cut body
// fails differs: mime/multipart stops at some malformed header blocks
// cut by the body's end as at the body's end.)
func FuzzFormReader(f *testing.F) {
	f.Add([]byte("--XyZ\r\nContent-Disposition: form-data; name=\"a\"; filename=\"f\"\r\n\r\nvalue\r\n--XyZ--\r\n"))
	f.Add([]byte("--XyZ\nContent-Disposition: form-data; name=\"a\"\n\nv\n--XyZ\n\n\n--XyZ--"))
	f.Fuzz(func(t *testing.T, body []byte) {
		want, wantErr := readAllForm(body, "XyZ", true, 0)
		if wantErr && len(want) > 0 {
			want = want[:len(want)-1] // the part being read when it failed
		}
		for _, chunk := range []int{0, 3} {
			got, gotErr := readAllForm(body, "XyZ", false, chunk)
			if gotErr && len(got) > 0 {
				got = got[:len(got)-1]
			}
			n := min(len(got), len(want))
			if fmt.Sprint(got[:n]) != fmt.Sprint(want[:n]) || !wantErr && !gotErr && len(got) != len(want) {
				t.Fatalf("body %q (reads of %d):\n got %q (failed %v)\nwant %q (failed %v)", body, chunk, got, gotErr, want, wantErr)
			}
		}
	})
}

// TestFormReaderLargeReads checks that a file part's data is read in
// large pieces, not the standard library's 4 KiB ones: a source giving
// 64 KiB a read yields reads of about that size.
func TestFormReaderLargeReads(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	body := "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\n\r\n" + string(data) + "\r\n--XyZ--\r\n"
	fr := newFormReader(&chunkReader{r: strings.NewReader(body), n: 64 << 10}, "XyZ")
	p, err := fr.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256<<10)
	var got []byte
	reads := 0
	for {
		n, err := p.Read(buf)
		got = append(got, buf[:n]...)
		if n > 0 {
			reads++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes, want %d", len(got), len(data))
	}
	if reads > 2*len(data)/(64<<10) {
		t.Fatalf("%d reads for %d bytes arriving 64 KiB at a time", reads, len(data))
	}
	if _, err := fr.NextPart(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last part: %v", err)
	}
	if err := iotest.TestReader(p, nil); err != nil {
		t.Fatal(err)
	}
}
