// Package markdown renders Zulip message Markdown to HTML: CommonMark
// (goldmark) with Zulip's chat additions. It knows nothing of stores: a
// [Resolver] answers its questions about the realm (users by mention, channels
// by name, the compiled linkifiers).
package markdown

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/chatcore/chatcore/internal/linkify"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Message Markdown is CommonMark (goldmark) with Zulip's chat additions:
//
//   - raw HTML is never passed through: it is shown as escaped text;
//   - a newline inside a paragraph is a line break;
//   - @**Full Name**, @**Full Name|id** mention a user and @_**…** mentions
//     silently; @**all** (everyone, channel, stream) and @**topic** are wildcard
//     mentions. Mentions inside code are plain text, inside block quotes silent;
//   - the realm's linkifiers turn matches in text (not in links or code) into
//     links;
//   - #**channel**, #**channel>topic** and #**channel>topic@id** link to a
//     channel, a topic and a message of the realm;
//   - bare URLs become links; ```quote blocks are quotes; code blocks use Zulip's
//     codehilite markup.

// markdownEngine is the shared goldmark instance; goldmark parsers and
// renderers are safe for concurrent use.
var markdownEngine = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify),
		goldmark.WithParserOptions(
			parser.WithInlineParsers(util.Prioritized(mentionParser{}, 90), util.Prioritized(channelLinkParser{}, 91)),
		),
		goldmark.WithRendererOptions(
			ghtml.WithHardWraps(),
			renderer.WithNodeRenderers(util.Prioritized(chatNodeRenderer{}, 100)),
		),
	)
})

// User is a user a mention may name.
type User struct {
	ID       int64
	FullName string
	// Active users are counted as mentioned; mentions of others are only
	// rendered.
	Active bool
}

// Channel is a channel a channel link may name.
type Channel struct {
	ID   int64
	Name string
}

// Resolver answers the renderer's questions about one realm. A nil result
// with a nil error means "no such user or channel": the syntax then stays
// text. Errors abort rendering and are returned as they are. Render asks about
// each distinct id or name once.
type Resolver interface {
	// UserByID returns the realm's user with the id.
	UserByID(ctx context.Context, id int64) (*User, error)
	// UserByName returns the realm's user a mention of the full name means:
	// full names compare case-insensitively and, among users sharing one, the
	// first active user by id wins, else the first.
	UserByName(ctx context.Context, name string) (*User, error)
	// ChannelByName returns the realm's channel with the name.
	ChannelByName(ctx context.Context, name string) (*Channel, error)
	// Linkifiers returns the realm's compiled linkifiers in processing order.
	Linkifiers(ctx context.Context) ([]*linkify.Linkifier, error)
}

// Result is a rendered message.
type Result struct {
	HTML string
	// Mentioned lists the active users the content really mentions (outside
	// code, not silently), sorted, without duplicates.
	Mentioned []int64
	// IsMe reports a /me message.
	IsMe bool
	// StreamWildcard and TopicWildcard report a non-silent channel wildcard
	// mention (@**all**, @**everyone**, @**channel**, @**stream**) and a
	// non-silent @**topic**.
	StreamWildcard bool
	TopicWildcard  bool
}

// Render renders message content with the realm r describes. Errors come only
// from r.
func Render(ctx context.Context, r Resolver, content string) (Result, error) {
	source := []byte(expandQuoteFences(content))
	md := markdownEngine()
	doc := md.Parser().Parse(text.NewReader(source))

	var wild wildcards
	mentioned, err := resolveMentions(ctx, r, doc, &wild)
	if err != nil {
		return Result{}, err
	}
	if err := resolveChannelLinks(ctx, r, doc); err != nil {
		return Result{}, err
	}
	links, err := r.Linkifiers(ctx)
	if err != nil {
		return Result{}, err
	}
	lk := newLinkifier(doc, source)
	for _, l := range links {
		lk.apply(l)
	}
	var buf bytes.Buffer
	if err := md.Renderer().Render(&buf, source, doc); err != nil {
		return Result{}, fmt.Errorf("markdown: %w", err)
	}
	out := strings.TrimRight(buf.String(), "\n")
	return Result{HTML: out, Mentioned: mentioned, IsMe: strings.HasPrefix(content, "/me "),
		StreamWildcard: wild.stream, TopicWildcard: wild.topic}, nil
}

// maxQuoteFenceDepth bounds how deeply ```quote blocks nest; deeper quote
// fences are kept as code blocks, so hostile input cannot make the rewritten
// source (and goldmark's work) grow quadratically.
const maxQuoteFenceDepth = 8

// expandQuoteFences rewrites Zulip's ```quote (or ~~~quote) blocks as Markdown
// block quotes, leaving other fenced code blocks alone.
func expandQuoteFences(content string) string {
	if !strings.Contains(content, "quote") {
		return content
	}
	lines := strings.Split(content, "\n")
	out := make([]string, 0, len(lines))
	var fences []string // open fences; quote fences are marked with a leading ">"
	depth := 0          // open quote fences
	for _, line := range lines {
		fence, info := splitFence(strings.TrimSpace(line))
		prefix := strings.Repeat("> ", depth)
		switch {
		case fence != "" && len(fences) > 0 && info == "" && strings.TrimPrefix(fences[len(fences)-1], ">") == fence:
			closing := fences[len(fences)-1]
			fences = fences[:len(fences)-1]
			if strings.HasPrefix(closing, ">") {
				depth--
				out = append(out, strings.Repeat("> ", depth))
				continue
			}
			out = append(out, prefix+line)
		case fence != "" && info == "quote" && !inCodeFence(fences) && depth < maxQuoteFenceDepth:
			fences = append(fences, ">"+fence)
			depth++
			out = append(out, prefix)
		case fence != "":
			if !inCodeFence(fences) {
				fences = append(fences, fence)
			}
			out = append(out, prefix+line)
		default:
			out = append(out, prefix+line)
		}
	}
	return strings.Join(out, "\n")
}

// inCodeFence reports whether the innermost open fence is a code fence.
func inCodeFence(fences []string) bool {
	return len(fences) > 0 && !strings.HasPrefix(fences[len(fences)-1], ">")
}

// splitFence returns the fence characters (``` or ~~~, or longer) that start
// line and the info string after them, or "" when line is no fence.
func splitFence(line string) (fence, info string) {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return "", ""
	}
	c := line[0]
	n := 0
	for n < len(line) && line[n] == c {
		n++
	}
	if n < 3 {
		return "", ""
	}
	return line[:n], strings.ToLower(strings.TrimSpace(line[n:]))
}

// mentionKind is the kind of a mention node.
var mentionKind = ast.NewNodeKind("ChatMention")

// mentionNode is @**Name**, @**Name|id** or their silent @_ forms.
type mentionNode struct {
	ast.BaseInline
	raw    []byte // the source text, shown when nothing matches
	name   string
	id     int64 // from the |id form; zero otherwise
	silent bool
	// Set when resolved: userID and display name, or a wildcard ("all", "topic").
	userID   int64
	display  string
	wildcard string
}

// Kind implements ast.Node.
func (n *mentionNode) Kind() ast.NodeKind { return mentionKind }

// Dump implements ast.Node.
func (n *mentionNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"name": n.name}, nil)
}

// mentionParser parses Zulip's user mention syntax.
type mentionParser struct{}

// Trigger implements parser.InlineParser.
func (mentionParser) Trigger() []byte { return []byte{'@'} }

// Parse implements parser.InlineParser.
func (mentionParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	switch block.PrecendingCharacter() {
	case ' ', '\t', '\n', '\r', '\'', '"', '(', '{', '[', '/', '<', 0x85, 0xA0:
	default:
		return nil
	}
	line, _ := block.PeekLine()
	silent := false
	rest := line[1:]
	if bytes.HasPrefix(rest, []byte("_")) {
		silent = true
		rest = rest[1:]
	}
	if !bytes.HasPrefix(rest, []byte("**")) {
		return nil
	}
	rest = rest[2:]
	inner, end, ok := starredBody(rest)
	if !ok {
		return nil
	}
	n := &mentionNode{silent: silent}
	n.name = inner
	if i := strings.LastIndexByte(inner, '|'); i >= 0 {
		if id, ok := parseID(inner[i+1:]); ok {
			n.name, n.id = inner[:i], id
		}
	}
	length := len(line) - len(rest) + end + 2
	n.raw = slices.Clone(line[:length])
	block.Advance(length)
	return n
}

// starredBody returns the text of rest before the closing "**" of a mention
// or channel link and its length in bytes; ok is false when there is no
// closing "**", the text is empty, or it holds a '*' or a line break (neither
// syntax spans them).
func starredBody(rest []byte) (body string, n int, ok bool) {
	end := bytes.Index(rest, []byte("**"))
	if end <= 0 {
		return "", 0, false
	}
	body = string(rest[:end])
	if strings.ContainsAny(body, "*\n\r") {
		return "", 0, false
	}
	return body, end, true
}

// wildcardMentions maps wildcard mention names to their kind.
var wildcardMentions = map[string]string{
	"all": "channel", "everyone": "channel", "channel": "channel", "stream": "channel",
	"topic": "topic",
}

// wildcards records the non-silent wildcard mentions of a message.
type wildcards struct{ stream, topic bool }

// resolveMentions looks up the users the mention nodes of doc name, fills the
// nodes in, records non-silent wildcard mentions in wild, and returns the
// active users mentioned non-silently.
func resolveMentions(ctx context.Context, r Resolver, doc ast.Node, wild *wildcards) ([]int64, error) {
	var nodes []*mentionNode
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if m, ok := n.(*mentionNode); ok && entering {
			// As in Zulip, mentions inside block quotes are silent.
			for p := m.Parent(); p != nil; p = p.Parent() {
				if p.Kind() == ast.KindBlockquote {
					m.silent = true
					break
				}
			}
			nodes = append(nodes, m)
		}
		return ast.WalkContinue, nil
	})
	if len(nodes) == 0 {
		return nil, nil
	}
	byID := map[int64]*User{}
	byName := map[string]*User{}
	var mentioned []int64
	for _, m := range nodes {
		var u *User
		switch {
		case m.id != 0:
			cached, ok := byID[m.id]
			if !ok {
				found, err := r.UserByID(ctx, m.id)
				if err != nil {
					return nil, err
				}
				cached = found
				byID[m.id] = cached
			}
			u = cached
			// As in Zulip, @**Name|id** mentions the user only when Name is
			// exactly their full name; @**|id** needs no name.
			if u != nil && m.name != "" && m.name != u.FullName {
				u = nil
			}
		case wildcardMentions[m.name] != "":
			m.wildcard = wildcardMentions[m.name]
			m.display = m.name
			if !m.silent {
				wild.topic = wild.topic || m.wildcard == "topic"
				wild.stream = wild.stream || m.wildcard != "topic"
			}
			continue
		default:
			cached, ok := byName[m.name]
			if !ok {
				found, err := r.UserByName(ctx, m.name)
				if err != nil {
					return nil, err
				}
				cached = found
				byName[m.name] = cached
			}
			u = cached
		}
		if u == nil {
			continue
		}
		m.userID, m.display = u.ID, u.FullName
		if u.Active && !m.silent {
			mentioned = append(mentioned, u.ID)
		}
	}
	slices.Sort(mentioned)
	return slices.Compact(mentioned), nil
}

// parseID parses a positive decimal id, as the |id and @id suffixes write it.
func parseID(s string) (int64, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 63)
	if err != nil || n == 0 {
		return 0, false
	}
	return int64(n), true
}

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
	lk.heads = lk.heads[:0]
	_ = ast.Walk(lk.doc, lk.visit)
	// Linkifying a run replaces only its own nodes, so the heads found
	// before stay the heads of the runs that follow.
	for _, first := range lk.heads {
		lk.linkifyRun(first, l)
	}
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
	parent := first.Parent()
	segment := func(from, to int) *ast.Text {
		return ast.NewTextSegment(text.NewSegment(base+from, base+to))
	}
	pos := 0
	var tail *ast.Text // the text after the last match, if any
	for _, m := range matches {
		if m.Start > pos {
			parent.InsertBefore(parent, first, segment(pos, m.Start))
		}
		link := ast.NewLink()
		link.Destination = []byte(m.URL)
		link.AppendChild(link, segment(m.Start, m.End))
		parent.InsertBefore(parent, first, link)
		pos = m.End
	}
	if pos < len(value) {
		tail = segment(pos, len(value))
	} else if last.SoftLineBreak() || last.HardLineBreak() {
		tail = segment(len(value), len(value)) // carries the line break
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

// chatNodeRenderer renders mentions, escapes raw HTML instead of dropping or
// passing it, and writes code blocks in Zulip's codehilite markup.
type chatNodeRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (chatNodeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(mentionKind, renderMention)
	reg.Register(channelLinkKind, renderChannelLink)
	reg.Register(ast.KindRawHTML, renderEscapedRawHTML)
	reg.Register(ast.KindHTMLBlock, renderEscapedHTMLBlock)
	reg.Register(ast.KindCodeBlock, renderCodeBlock)
	reg.Register(ast.KindFencedCodeBlock, renderCodeBlock)
}

func renderMention(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	m := node.(*mentionNode)
	silent, at := "", "@"
	if m.silent {
		silent, at = " silent", ""
	}
	switch {
	case m.wildcard == "topic":
		_, _ = w.WriteString(`<span class="topic-mention` + silent + `">` + at + escapeHTML(m.display) + `</span>`)
	case m.wildcard != "":
		_, _ = w.WriteString(`<span class="user-mention channel-wildcard-mention` + silent + `" data-user-id="*">` + at + escapeHTML(m.display) + `</span>`)
	case m.userID != 0:
		_, _ = w.WriteString(`<span class="user-mention` + silent + `" data-user-id="` + strconv.FormatInt(m.userID, 10) + `">` + at + escapeHTML(m.display) + `</span>`)
	default:
		_, _ = w.WriteString(escapeHTML(string(m.raw)))
	}
	return ast.WalkSkipChildren, nil
}

func renderEscapedRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	for i := range n.Segments.Len() {
		seg := n.Segments.At(i)
		_, _ = w.WriteString(escapeHTML(string(seg.Value(source))))
	}
	return ast.WalkSkipChildren, nil
}

func renderEscapedHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	var b strings.Builder
	for i := range n.Lines().Len() {
		line := n.Lines().At(i)
		b.Write(line.Value(source))
	}
	if n.HasClosure() {
		b.Write(n.ClosureLine.Value(source))
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i := range lines {
		lines[i] = escapeHTML(lines[i])
	}
	_, _ = w.WriteString("<p>" + strings.Join(lines, "<br>\n") + "</p>\n")
	return ast.WalkSkipChildren, nil
}

func renderCodeBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<div class="codehilite"`)
	if f, ok := node.(*ast.FencedCodeBlock); ok {
		if lang := f.Language(source); len(lang) > 0 {
			_, _ = w.WriteString(` data-code-language="` + escapeHTML(string(lang)) + `"`)
		}
	}
	_, _ = w.WriteString(`><pre><span></span><code>`)
	lines := node.Lines()
	for i := range lines.Len() {
		line := lines.At(i)
		_, _ = w.WriteString(escapeHTML(string(line.Value(source))))
	}
	_, _ = w.WriteString("</code></pre></div>\n")
	return ast.WalkSkipChildren, nil
}

// escapeHTML escapes text for HTML exactly as goldmark escapes text, so that
// all of a message's HTML uses one style of entities.
func escapeHTML(s string) string { return string(util.EscapeHTML([]byte(s))) }

// channelLinkKind is the kind of a channel link node.
var channelLinkKind = ast.NewNodeKind("ChatChannelLink")

// channelLinkNode is #**channel**, #**channel>topic** or #**channel>topic@id**.
type channelLinkNode struct {
	ast.BaseInline
	raw      []byte
	name     string
	topic    string
	hasTopic bool
	message  int64
	// Set when resolved.
	streamID   int64
	streamName string
}

// Kind implements ast.Node.
func (n *channelLinkNode) Kind() ast.NodeKind { return channelLinkKind }

// Dump implements ast.Node.
func (n *channelLinkNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"name": n.name, "topic": n.topic}, nil)
}

// channelLinkParser parses Zulip's channel, topic and message link syntax.
type channelLinkParser struct{}

// Trigger implements parser.InlineParser.
func (channelLinkParser) Trigger() []byte { return []byte{'#'} }

// Parse implements parser.InlineParser.
func (channelLinkParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	switch block.PrecendingCharacter() {
	case ' ', '\t', '\n', '\r', '\'', '"', '(', ',', ':', '<', 0x85, 0xA0:
	default:
		return nil
	}
	line, _ := block.PeekLine()
	if !bytes.HasPrefix(line, []byte("#**")) {
		return nil
	}
	inner, end, ok := starredBody(line[3:])
	if !ok {
		return nil
	}
	n := &channelLinkNode{name: inner}
	if i := strings.IndexByte(inner, '>'); i > 0 {
		n.name, n.topic, n.hasTopic = inner[:i], inner[i+1:], true
		if j := strings.LastIndexByte(n.topic, '@'); j >= 0 {
			if id, ok := parseID(n.topic[j+1:]); ok {
				n.topic, n.message = n.topic[:j], id
			}
		}
	}
	length := 3 + end + 2
	n.raw = slices.Clone(line[:length])
	block.Advance(length)
	return n
}

// resolveChannelLinks looks up the channels that link nodes of doc name.
func resolveChannelLinks(ctx context.Context, r Resolver, doc ast.Node) error {
	var nodes []*channelLinkNode
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*channelLinkNode); ok && entering {
			nodes = append(nodes, l)
		}
		return ast.WalkContinue, nil
	})
	found := map[string]*Channel{}
	for _, l := range nodes {
		ch, ok := found[l.name]
		if !ok {
			var err error
			ch, err = r.ChannelByName(ctx, l.name)
			if err != nil {
				return err
			}
			found[l.name] = ch
		}
		if ch != nil {
			l.streamID, l.streamName = ch.ID, ch.Name
		}
	}
	return nil
}

func renderChannelLink(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	l := node.(*channelLinkNode)
	if l.streamID == 0 {
		_, _ = w.WriteString(escapeHTML(string(l.raw)))
		return ast.WalkSkipChildren, nil
	}
	id := strconv.FormatInt(l.streamID, 10)
	href := "/#narrow/channel/" + id + "-" + EncodeHashComponent(strings.ReplaceAll(l.streamName, " ", "-"))
	switch {
	case !l.hasTopic:
		_, _ = w.WriteString(`<a class="stream" data-stream-id="` + id + `" href="` + escapeHTML(href) + `">#` + escapeHTML(l.streamName) + `</a>`)
	case l.message == 0:
		href += "/topic/" + EncodeHashComponent(l.topic)
		_, _ = w.WriteString(`<a class="stream-topic" data-stream-id="` + id + `" href="` + escapeHTML(href) + `">#` +
			escapeHTML(l.streamName) + " &gt; " + escapeHTML(l.topic) + `</a>`)
	default:
		href += "/topic/" + EncodeHashComponent(l.topic) + "/near/" + strconv.FormatInt(l.message, 10)
		_, _ = w.WriteString(`<a class="message-link" href="` + escapeHTML(href) + `">#` +
			escapeHTML(l.streamName) + " &gt; " + escapeHTML(l.topic) + " @ 💬</a>")
	}
	return ast.WalkSkipChildren, nil
}

// EncodeHashComponent encodes s for a Zulip narrow URL: every byte but
// unreserved characters and "*" is percent-encoded with "." in place of "%",
// and "." itself is written ".2E".
func EncodeHashComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && (isUnreserved(c) || c == '*') {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, ".%02X", c)
	}
	return b.String()
}

// isUnreserved reports whether c is an RFC 3986 unreserved character.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}
