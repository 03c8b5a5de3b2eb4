package markdown

// Linkifier application: each linkifier runs over runs of plain text that
// goldmark may have split, skipping text that cannot match.

import (
	"unicode/utf8"

	"github.com/chatcore/chatcore/internal/linkify"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// linkifier applies linkifiers to one document in turn, reusing its buffers
// from one linkifier to the next: with thousands of linkifiers, per-call
// allocations would dominate the rendering.
type linkifier struct {
	doc    ast.Node
	source []byte
	// heads holds the first node of each run of text the current walk found.
	heads   []*ast.Text
	visit   ast.Walker
	matches []linkify.Match
	pieces  []runPiece
	scratch linkify.Scratch
}

func newLinkifier(doc ast.Node, source []byte) *linkifier {
	lk := &linkifier{doc: doc, source: source}
	lk.visit = func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link, *ast.AutoLink, *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock,
			*ast.HTMLBlock, *ast.RawHTML, *ast.Image, *mentionNode, *channelLinkNode:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			if linkifiable(n) && !continuesRun(n) {
				lk.heads = append(lk.heads, n)
			}
		}
		return ast.WalkContinue, nil
	}
	return lk
}

// apply turns the matches of l in the document's text (outside links, code
// and mentions) into links. goldmark splits text at delimiter characters
// (_ * @ [ and others) into adjacent text nodes, so matching runs over each
// run of adjacent plain text siblings as one string, as Zulip matches the
// text of a paragraph; a run ends at a line break or any other inline node.
func (lk *linkifier) apply(l *linkify.Linkifier) {
	// Every run of text is a slice of the source: when the source rules out
	// a match, so does each run.
	if !l.MayMatch(lk.source) {
		return
	}
	lk.collectRuns()
	// Linkifying a run replaces only its own nodes, so the heads found
	// before stay the heads of the runs that follow.
	for _, first := range lk.heads {
		lk.linkifyRun(first, l)
	}
}

// collectRuns sets heads to the first node of each run of plain text
// outside links, code and mentions.
func (lk *linkifier) collectRuns() {
	lk.heads = lk.heads[:0]
	_ = ast.Walk(lk.doc, lk.visit)
}

// linkifiable reports whether t is plain text a linkifier may match.
func linkifiable(t *ast.Text) bool { return !t.IsRaw() && t.Segment.Padding == 0 }

// continuesRun reports whether t belongs to the run of its previous sibling:
// both are plain text, adjacent in the source, with no line break between.
func continuesRun(t *ast.Text) bool {
	prev, ok := t.PreviousSibling().(*ast.Text)
	return ok && linkifiable(prev) && !prev.SoftLineBreak() && !prev.HardLineBreak() &&
		prev.Segment.Stop == t.Segment.Start
}

// runEnd returns the last node of the run that starts at first.
func runEnd(first *ast.Text) *ast.Text {
	last := first
	for {
		next, ok := last.NextSibling().(*ast.Text)
		if !ok || !linkifiable(next) || !continuesRun(next) {
			return last
		}
		last = next
	}
}

// linkifyRun replaces the text nodes of the run that starts at first by text
// and links around the matches of l in their joined text. The nodes are
// adjacent in the source, so the run covers the source from first's start to
// its last node's stop.
func (lk *linkifier) linkifyRun(first *ast.Text, l *linkify.Linkifier) {
	source := lk.source
	last := runEnd(first)
	base := first.Segment.Start
	value := source[base:last.Segment.Stop]
	if !l.MayMatch(value) {
		return
	}
	before, after := " ", " "
	if prev, ok := first.PreviousSibling().(*ast.Text); ok {
		if !prev.SoftLineBreak() && !prev.HardLineBreak() {
			pv := prev.Segment.Value(source)
			if r, _ := utf8.DecodeLastRune(pv); r != utf8.RuneError {
				before = string(r)
			}
		}
	} else if first.PreviousSibling() != nil {
		before = "x" // another inline element: no boundary
	}
	if !last.SoftLineBreak() && !last.HardLineBreak() {
		if next, ok := last.NextSibling().(*ast.Text); ok {
			nv := next.Segment.Value(source)
			if r, _ := utf8.DecodeRune(nv); r != utf8.RuneError {
				after = string(r)
			}
		}
	}
	matches := l.AppendMatches(lk.matches[:0], &lk.scratch, value, before, after)
	lk.matches = matches
	if len(matches) == 0 {
		return
	}
	pieces := lk.pieces[:0]
	for _, m := range matches {
		link := ast.NewLink()
		link.Destination = []byte(m.URL)
		link.AppendChild(link, ast.NewTextSegment(text.NewSegment(base+m.Start, base+m.End)))
		pieces = append(pieces, runPiece{start: m.Start, end: m.End, node: link})
	}
	lk.pieces = pieces
	lk.spliceRun(first, last, pieces)
}

// runPiece is a node that replaces the bytes start:end of a run's text.
type runPiece struct {
	start, end int
	node       ast.Node
}

// spliceRun replaces the text nodes of the run from first to last by the
// pieces (in order, not overlapping) and text segments around them, keeping
// the line break that ends the run. The nodes are adjacent in the source, so
// the run covers the source from first's start to last's stop.
func (lk *linkifier) spliceRun(first, last *ast.Text, pieces []runPiece) {
	if len(pieces) == 0 {
		return
	}
	base := first.Segment.Start
	length := last.Segment.Stop - base
	parent := first.Parent()
	segment := func(from, to int) *ast.Text {
		return ast.NewTextSegment(text.NewSegment(base+from, base+to))
	}
	pos := 0
	var tail *ast.Text // the text after the last piece, if any
	for _, p := range pieces {
		if p.start > pos {
			parent.InsertBefore(parent, first, segment(pos, p.start))
		}
		parent.InsertBefore(parent, first, p.node)
		pos = p.end
	}
	if pos < length {
		tail = segment(pos, length)
	} else if last.SoftLineBreak() || last.HardLineBreak() {
		tail = segment(length, length) // carries the line break
	}
	if tail != nil {
		tail.SetSoftLineBreak(last.SoftLineBreak())
		tail.SetHardLineBreak(last.HardLineBreak())
		parent.InsertBefore(parent, first, tail)
	}
	for n := ast.Node(first); ; {
		next := n.NextSibling()
		parent.RemoveChild(parent, n)
		if n == last {
			break
		}
		n = next
	}
}
