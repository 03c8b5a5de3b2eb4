package httpadapter

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/http"
	"net/textproto"
	"path/filepath"
	"strings"

	"github.com/chatcore/chatcore"
)

// multipartBuffer is the read-ahead of a streamed multipart body: a file
// part is read from the connection into it and scanned for the boundary
// there, so a file arrives in reads as large as the connection gives (the
// standard library's multipart reader reads and scans 4 KiB at a time,
// whatever buffer it is given). A 25 MiB upload measured as fast with
// 64 KiB as with 256 KiB.
const multipartBuffer = 64 << 10

// Bounds of one part's header block: its lines, and their bytes in all.
const (
	maxPartHeaderLines = 100
	maxPartHeaderBytes = 64 << 10
)

// errNotMultipart is returned for a request that is not multipart/form-data.
var errNotMultipart = errors.New("httpadapter: not a multipart/form-data body")

// errMalformedMultipart is returned for a multipart body that breaks
// RFC 2046's syntax (a part's data cut short included).
var errMalformedMultipart = errors.New("httpadapter: malformed multipart body")

// formReader reads a multipart/form-data body part by part, streaming
// each part's data (RFC 7578 over RFC 2046's syntax, as mime/multipart
// reads it: a preamble is skipped, lines may end in LF alone when the
// first boundary line does, quoted-printable parts are decoded).
type formReader struct {
	br *bufio.Reader
	// nlDashBoundary is the delimiter that ends a part's data: CRLF (or
	// LF) and "--" and the boundary; dashBoundary is the delimiter line
	// without the line break.
	nlDashBoundary, dashBoundary []byte
	cur                          *formPart
	started, finished            bool
}

// multipartReader returns a reader of r's multipart/form-data body, read
// ahead by multipartBuffer bytes at a time.
func multipartReader(r *http.Request) (*formReader, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, errNotMultipart
	}
	return newFormReader(r.Body, params["boundary"]), nil
}

// newFormReader returns a reader of the multipart body r with boundary.
func newFormReader(r io.Reader, boundary string) *formReader {
	nl := []byte("\r\n--" + boundary)
	return &formReader{br: bufio.NewReaderSize(r, multipartBuffer), nlDashBoundary: nl, dashBoundary: nl[2:]}
}

// NextPart returns the next part, having read past what is left of the
// current one; io.EOF after the final boundary.
func (fr *formReader) NextPart() (*formPart, error) {
	if fr.finished {
		return nil, io.EOF
	}
	if fr.cur != nil {
		// Read past the raw data: a transfer decoding could fail on it.
		if _, err := io.Copy(io.Discard, partData{fr.cur}); err != nil {
			return nil, err
		}
		skip := fr.cur.skip
		fr.cur = nil
		// The part's data ended where the delimiter starts.
		if _, err := fr.br.Discard(skip); err != nil {
			return nil, unexpectedEOF(err)
		}
		line, err := fr.readLine()
		if err != nil {
			return nil, err
		}
		if !fr.delimiterRest(line) {
			return nil, errMalformedMultipart
		}
	} else if !fr.started {
		if err := fr.skipPreamble(); err != nil {
			return nil, err
		}
	}
	if fr.finished {
		return nil, io.EOF
	}
	fr.started = true
	hdr, err := fr.readHeader()
	if err != nil {
		return nil, err
	}
	p := &formPart{Header: hdr, fr: fr, skip: len(fr.nlDashBoundary)}
	p.r = partData{p}
	// Data that starts with the delimiter line itself, without the line
	// break before it, is empty.
	if head, err := fr.br.Peek(len(fr.dashBoundary) + 2); bytes.HasPrefix(head, fr.dashBoundary) &&
		delimiterEnds(head[len(fr.dashBoundary):], err != nil) > 0 {
		p.end, p.skip = true, len(fr.dashBoundary)
	}
	if strings.EqualFold(hdr.Get("Content-Transfer-Encoding"), "quoted-printable") {
		hdr.Del("Content-Transfer-Encoding")
		p.r = quotedprintable.NewReader(p.r)
	}
	fr.cur = p
	return p, nil
}

// readLine returns the next line, its line break included; a line longer
// than the buffer is malformed.
func (fr *formReader) readLine() ([]byte, error) {
	line, err := fr.br.ReadSlice('\n')
	switch {
	case err == nil:
		return line, nil
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, errMalformedMultipart
	case errors.Is(err, io.EOF):
		if fr.finalLine(line) {
			// The final delimiter without its line break ends the body too.
			return line, nil
		}
		// A body cut between parts ends the form, as mime/multipart has it.
		return nil, io.EOF
	}
	return nil, err
}

// skipPreamble reads up to and past the first delimiter line, switching to
// LF line breaks when that line ends in LF alone.
func (fr *formReader) skipPreamble() error {
	for {
		line, err := fr.readLine()
		if err != nil {
			return err
		}
		if !bytes.HasPrefix(line, fr.dashBoundary) {
			continue
		}
		if fr.finalLine(line) {
			fr.finished = true
			return nil
		}
		rest := bytes.TrimLeft(line[len(fr.dashBoundary):], " \t")
		switch string(rest) {
		case "\r\n":
			return nil
		case "\n":
			fr.nlDashBoundary = fr.nlDashBoundary[1:]
			return nil
		}
	}
}

// delimiterRest reports whether line, what follows a delimiter, is a
// valid rest of its line: a line break (another part follows) or "--"
// (the final delimiter: fr is finished).
func (fr *formReader) delimiterRest(line []byte) bool {
	if rest, ok := bytes.CutPrefix(line, []byte("--")); ok {
		fr.finished = fr.lineEnd(rest, true)
		return fr.finished
	}
	return fr.lineEnd(line, false)
}

// finalLine reports whether line is the final delimiter line.
func (fr *formReader) finalLine(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, fr.dashBoundary)
	if !ok {
		return false
	}
	rest, ok = bytes.CutPrefix(rest, []byte("--"))
	return ok && fr.lineEnd(rest, true)
}

// lineEnd reports whether rest, the end of a delimiter line, is white
// space and a line break (or, when orEnd, nothing: the body's end).
func (fr *formReader) lineEnd(rest []byte, orEnd bool) bool {
	rest = bytes.TrimLeft(rest, " \t")
	nl := fr.nlDashBoundary[:len(fr.nlDashBoundary)-len(fr.dashBoundary)]
	return bytes.Equal(rest, nl) || orEnd && len(rest) == 0
}

// readHeader reads a part's header block up to its empty line, bounded by
// maxPartHeaderLines and maxPartHeaderBytes.
func (fr *formReader) readHeader() (textproto.MIMEHeader, error) {
	hdr := textproto.MIMEHeader{}
	var key string
	total := 0
	for n := 0; ; n++ {
		line, err := fr.br.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return nil, errMalformedMultipart
			}
			// A body cut in the header block ends the form, as
			// mime/multipart has it, unless the cut line is malformed.
			if len(line) > 0 && !validPartialLine(line) {
				return nil, errMalformedMultipart
			}
			return nil, err
		}
		total += len(line)
		if n > maxPartHeaderLines || total > maxPartHeaderBytes {
			return nil, errMalformedMultipart
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) == 0 {
			return hdr, nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			// A folded line continues the previous field's value.
			vs := hdr[key]
			if key == "" || len(vs) == 0 || !validHeaderValue(line) {
				return nil, errMalformedMultipart
			}
			vs[len(vs)-1] += " " + string(bytes.TrimSpace(line))
			continue
		}
		if !validHeaderLine(line) {
			return nil, errMalformedMultipart
		}
		k, v, _ := bytes.Cut(line, []byte(":"))
		key = textproto.CanonicalMIMEHeaderKey(string(k))
		hdr[key] = append(hdr[key], string(bytes.TrimSpace(v)))
	}
}

// validHeaderLine reports whether line is "key: value" with a key of
// token characters and a value without control characters.
func validHeaderLine(line []byte) bool {
	k, v, ok := bytes.Cut(line, []byte(":"))
	if !ok || len(k) == 0 {
		return false
	}
	for _, c := range k {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return validHeaderValue(v)
}

// validPartialLine reports whether line, the start of a header line cut
// by the body's end, is valid as far as it goes.
func validPartialLine(line []byte) bool {
	if line[0] == ' ' || line[0] == '\t' {
		return validHeaderValue(line)
	}
	return validHeaderLine(line)
}

// validHeaderValue reports whether v holds no control characters but tabs.
func validHeaderValue(v []byte) bool {
	for _, c := range v {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// unexpectedEOF turns io.EOF into io.ErrUnexpectedEOF: a multipart body
// ends only with its final delimiter.
func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// formPart is one part of a multipart body: its header and, as a reader,
// its data.
type formPart struct {
	Header textproto.MIMEHeader
	fr     *formReader
	r      io.Reader
	// n is how many of the buffered bytes are known to be data; end is
	// set once the delimiter is buffered right after them; err is the
	// read error that ends the data early.
	n       int
	end     bool
	err     error
	readErr error
	// skip is the length of the delimiter that ends the data; started is
	// set once some data is read.
	skip    int
	started bool

	disposition string
	params      map[string]string
}

// Read reads the part's data.
func (p *formPart) Read(b []byte) (int, error) { return p.r.Read(b) }

// FileName returns the file name the part's Content-Disposition gives,
// without any directory (RFC 7578, section 4.2), or "".
func (p *formPart) FileName() string {
	p.parseDisposition()
	if name := p.params["filename"]; name != "" {
		return filepath.Base(name)
	}
	return ""
}

// FormName returns the field name of a form-data part, or "".
func (p *formPart) FormName() string {
	p.parseDisposition()
	if p.disposition != "form-data" {
		return ""
	}
	return p.params["name"]
}

func (p *formPart) parseDisposition() {
	if p.params != nil {
		return
	}
	d, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil || params == nil {
		params = map[string]string{}
	}
	p.disposition, p.params = d, params
}

// partData reads a part's raw data (before any transfer decoding).
type partData struct{ p *formPart }

func (d partData) Read(b []byte) (int, error) {
	p := d.p
	if p.fr.cur != p {
		return 0, io.EOF
	}
	if p.n == 0 && !p.end && p.err == nil {
		p.scan()
	}
	if p.n == 0 {
		if p.end {
			return 0, io.EOF
		}
		return 0, p.err
	}
	buf, _ := p.fr.br.Peek(min(len(b), p.n))
	n := copy(b, buf)
	_, _ = p.fr.br.Discard(n)
	p.n -= n
	p.started = true
	return n, nil
}

// scan finds how many buffered bytes are the part's data, reading more
// when too few are buffered to tell: everything before the delimiter, or
// before the last bytes that could be the delimiter's start. The buffer
// is searched for the whole delimiter at once (bytes.Index); a delimiter
// followed by anything but white space, a line break or "--" is data.
func (p *formPart) scan() {
	br, delim := p.fr.br, p.fr.nlDashBoundary
	for {
		buf, _ := br.Peek(br.Buffered())
		atEOF := p.readErr != nil
		from, safe := 0, -1
		for safe < 0 {
			i := bytes.Index(buf[from:], delim)
			if i < 0 {
				break
			}
			i += from
			switch delimiterEnds(buf[i+len(delim):], atEOF) {
			case +1:
				p.n, p.end = i, true
				return
			case 0:
				safe = i
			default:
				from = i + 1
			}
		}
		if safe < 0 {
			// The delimiter may start in the last len(delim)-1 bytes, at a
			// byte equal to its first.
			safe = max(from, len(buf)-len(delim)+1)
			if i := bytes.IndexByte(buf[safe:], delim[0]); i >= 0 {
				safe += i
			} else {
				safe = len(buf)
			}
		}
		if atEOF && safe < len(buf) {
			// Nothing more comes: only a delimiter's start at the very end
			// is withheld.
			safe = len(buf)
			if i := bytes.LastIndexByte(buf, delim[0]); i >= 0 && bytes.HasPrefix(delim, buf[i:]) {
				safe = i
			}
		}
		if !p.started && bytes.HasPrefix(p.fr.dashBoundary, buf) {
			safe = 0 // may be the delimiter line right after the header
		}
		if safe > 0 {
			p.n = safe
			return
		}
		if atEOF {
			p.err = unexpectedEOF(p.readErr)
			return
		}
		_, p.readErr = br.Peek(len(buf) + 1)
	}
}

// delimiterEnds tells what follows a delimiter's bytes: +1 when they end a
// part (white space, a line break, "--", or the end of the body), -1 when
// they are data, 0 when more must be read to tell.
func delimiterEnds(after []byte, atEOF bool) int {
	if len(after) == 0 {
		if atEOF {
			return +1
		}
		return 0
	}
	switch after[0] {
	case ' ', '\t', '\r', '\n':
		return +1
	case '-':
		if len(after) == 1 {
			if atEOF {
				return -1
			}
			return 0
		}
		if after[1] == '-' {
			return +1
		}
	}
	return -1
}

// oneFile is a multipart request that carries exactly one file (under any
// field name; other fields are skipped), as Zulip's avatar and custom-emoji
// uploads do.
type oneFile struct {
	// maxMiB bounds the file; the body may be uploadFormSlack larger.
	maxMiB int64
	// wrongCount is the refusal of a body with no file or several.
	wrongCount string
	// readError answers a body that could not be read (over the bound or
	// malformed).
	readError func(error) error
	// store keeps the file; undo takes it back when a second file follows
	// (Zulip refuses several files before storing any, here the first is
	// stored already).
	store func(ctx context.Context, file io.Reader) error
	undo  func(ctx context.Context)
}

// read reads r's body as f describes, storing its one file.
func (f oneFile) read(w http.ResponseWriter, r *http.Request) error {
	limit := f.maxMiB<<20 + uploadFormSlack
	if r.ContentLength > limit {
		return chatcore.BadRequestf("Uploaded file is larger than the allowed limit of %d MiB", f.maxMiB)
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mr, err := multipartReader(r)
	if err != nil {
		return chatcore.BadRequest(f.wrongCount)
	}
	done := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return f.readError(err)
		}
		if part.FileName() == "" {
			_, _ = io.Copy(io.Discard, part)
			continue
		}
		if done {
			f.undo(context.WithoutCancel(r.Context()))
			return chatcore.BadRequest(f.wrongCount)
		}
		if err := f.store(r.Context(), part); err != nil {
			if errors.As(err, new(*http.MaxBytesError)) {
				return f.readError(err)
			}
			return err
		}
		done = true
	}
	if !done {
		return chatcore.BadRequest(f.wrongCount)
	}
	return nil
}
