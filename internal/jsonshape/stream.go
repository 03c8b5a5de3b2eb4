package jsonshape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
)

// Mode is what [Stream] does with a value: check it only, or also capture
// its JSON text or mark where it starts.
type Mode int

const (
	// Walk checks the value (and offers the values inside it).
	Walk Mode = iota
	// Capture checks the value and hands its JSON text to the callback,
	// which must not keep it; the values inside it are not offered.
	Capture
	// Mark checks the value, holding none of it, and hands the callback
	// the byte offset of the document from which the value's text starts
	// (possibly after white space, a ':' or a ','; see [ValueReader]); the
	// values inside it are not offered.
	Mark
)

// Stream checks the one JSON value read from r against t exactly as Check
// checks data, with the same errors (line and column of a syntax error
// included), holding only what it captures and a small window of r in
// memory. Every value inside the top-level one (object members and list
// elements, outermost first) is offered to choose by its path; a value it
// captures or marks is checked, then handed to got with its path, and the
// values inside it are not offered. The first error of got ends the walk
// and is returned as it is.
func Stream(r io.Reader, t reflect.Type, root string, choose func(path string) Mode,
	got func(path string, raw []byte, offset int64) error) error {
	rec := &recorder{r: r}
	w := walker{dec: json.NewDecoder(rec), root: root, s: &streaming{rec: rec, choose: choose, got: got}}
	w.dec.UseNumber()
	if err := w.value(t, ""); err != nil {
		return err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return fmt.Errorf("%s: unexpected data after the top-level %s", root, kindName(t))
	}
	return nil
}

// streaming is the state of a walk of Stream.
type streaming struct {
	rec    *recorder
	choose func(path string) Mode
	got    func(path string, raw []byte, offset int64) error
	// inside is the mode of the value being captured or marked, whose
	// members are not offered (Walk: none).
	inside Mode
}

// member walks one object member or list element at path: in a streaming
// walk, as its choice says.
func (w *walker) member(t reflect.Type, path string) error {
	s := w.s
	if s == nil || s.inside == Capture {
		return w.value(t, path)
	}
	start := w.dec.InputOffset()
	// Nothing before the value is needed any more.
	s.rec.discard(start)
	if s.inside == Mark {
		return w.value(t, path)
	}
	mode := s.choose(path)
	if mode == Walk {
		return w.value(t, path)
	}
	s.inside = mode
	err := w.value(t, path)
	s.inside = Walk
	if err != nil {
		return err
	}
	if mode == Mark {
		return s.got(path, nil, start)
	}
	return s.got(path, trimLead(s.rec.since(start, w.dec.InputOffset())), start)
}

// trimLead drops what may come between a decoder's position and the value
// that follows: white space, a ':' after a key, a ',' after a list element.
func trimLead(b []byte) []byte {
	return bytes.TrimLeft(b, " \t\r\n:,")
}

// recorder reads a document for a decoder and keeps what it read from an
// offset on (see discard), so that a value's text can be taken back (since)
// and a syntax error's offset turned into a line and column.
type recorder struct {
	r io.Reader
	// buf holds what was read from the offset base on; its first skip
	// bytes are discarded but not yet dropped (buf is compacted only once
	// they are many, so that discarding costs nothing per value).
	buf  []byte
	base int64
	skip int
	// lines counts the newlines before base+skip; lastNL is the offset of
	// the last of them (when lines > 0).
	lines  int
	lastNL int64
}

func (c *recorder) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.buf = append(c.buf, p[:n]...)
	return n, err
}

// discard forgets what was read before off.
func (c *recorder) discard(off int64) {
	n := min(int(off-c.base), len(c.buf))
	if n <= c.skip {
		return
	}
	drop := c.buf[c.skip:n]
	if k := bytes.Count(drop, []byte("\n")); k > 0 {
		c.lines += k
		c.lastNL = c.base + int64(c.skip+bytes.LastIndexByte(drop, '\n'))
	}
	c.skip = n
	if c.skip >= 1<<16 && c.skip >= len(c.buf)/2 {
		c.buf = c.buf[:copy(c.buf, c.buf[c.skip:])]
		c.base += int64(c.skip)
		c.skip = 0
	}
}

// since returns what was read from the offset from to the offset to; from
// must not be before what discard kept.
func (c *recorder) since(from, to int64) []byte {
	return c.buf[from-c.base : to-c.base]
}

// lineCol turns an offset at or after what discard kept into 1-based line
// and column numbers.
func (c *recorder) lineCol(off int64) (int, int) {
	last := c.lastNL
	if c.lines == 0 {
		last = -1
	}
	kept := c.base + int64(c.skip)
	off = min(max(off, kept), c.base+int64(len(c.buf)))
	before := c.buf[c.skip : off-c.base]
	line := c.lines + bytes.Count(before, []byte("\n")) + 1
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		last = kept + int64(i)
	}
	return line, int(off - last)
}

// ValueReader returns r, which starts at an offset [Stream] marked, with
// what comes before the value (white space, a ':' or a ',') skipped.
func ValueReader(r io.Reader) io.Reader {
	return &leadSkipper{r: r}
}

// leadSkipper drops the bytes trimLead drops from the start of r.
type leadSkipper struct {
	r    io.Reader
	done bool
}

func (l *leadSkipper) Read(p []byte) (int, error) {
	for {
		n, err := l.r.Read(p)
		if l.done || n == 0 {
			return n, err
		}
		rest := trimLead(p[:n])
		if len(rest) > 0 {
			l.done = true
			return copy(p, rest), err
		}
		if err != nil {
			return 0, err
		}
	}
}
