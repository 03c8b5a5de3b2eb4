package chatcore

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

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

// render turns message Markdown into HTML for the realm (mentions resolved
// against its users, its linkifiers applied).
func (s *Service) render(ctx context.Context, tx Tx, realm RealmID, content string) (string, error) {
	out, _, _, err := s.renderMessage(ctx, tx, realm, content)
	return out, err
}

// renderMessage renders message content for the realm. It returns the HTML,
// the active users of the realm the content really mentions (outside code, not
// silently; sorted, without duplicates) and whether it is a /me message.
// Errors come only from the store.
func (s *Service) renderMessage(ctx context.Context, tx Tx, realm RealmID, content string) (string, []UserID, bool, error) {
	source := []byte(expandQuoteFences(content))
	md := markdownEngine()
	doc := md.Parser().Parse(text.NewReader(source))

	mentioned, err := resolveMentions(ctx, tx, realm, doc)
	if err != nil {
		return "", nil, false, err
	}
	if err := resolveChannelLinks(ctx, tx, realm, doc); err != nil {
		return "", nil, false, err
	}
	links, err := loadLinkifiers(ctx, tx, realm)
	if err != nil {
		return "", nil, false, err
	}
	for _, l := range links {
		applyLinkifier(doc, source, l)
	}
	var buf bytes.Buffer
	if err := md.Renderer().Render(&buf, source, doc); err != nil {
		return "", nil, false, err
	}
	out := strings.TrimRight(buf.String(), "\n")
	return out, mentioned, strings.HasPrefix(content, "/me "), nil
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
	id     UserID // from the |id form; zero otherwise
	silent bool
	// Set when resolved: userID and display name, or a wildcard ("all", "topic").
	userID   UserID
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
	end := bytes.Index(rest, []byte("**"))
	if end <= 0 {
		return nil
	}
	inner := string(rest[:end])
	if strings.ContainsAny(inner, "*\n\r") {
		return nil
	}
	n := &mentionNode{silent: silent}
	n.name = inner
	if i := strings.LastIndexByte(inner, '|'); i >= 0 {
		if id, ok := ParseID[UserID](inner[i+1:]); ok {
			n.name, n.id = inner[:i], id
		}
	}
	length := len(line) - len(rest) + end + 2
	n.raw = slices.Clone(line[:length])
	block.Advance(length)
	return n
}

// wildcardMentions maps wildcard mention names to their kind.
var wildcardMentions = map[string]string{
	"all": "channel", "everyone": "channel", "channel": "channel", "stream": "channel",
	"topic": "topic",
}

// resolveMentions looks up the users the mention nodes of doc name, fills the
// nodes in, and returns the active users mentioned non-silently.
func resolveMentions(ctx context.Context, tx Tx, realm RealmID, doc ast.Node) ([]UserID, error) {
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
	byID := map[UserID]*User{}
	byName := map[string]*User{}
	var mentioned []UserID
	for _, m := range nodes {
		var u *User
		switch {
		case m.id != 0:
			cached, ok := byID[m.id]
			if !ok {
				found, err := userInRealm(ctx, tx, realm, m.id)
				if err != nil && !isNotFound(err) {
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
			continue
		default:
			key := FoldKey(m.name)
			cached, ok := byName[key]
			if !ok {
				users, err := tx.Users(ctx, UserFilter{RealmID: realm, FullNameKey: key})
				if err != nil {
					return nil, err
				}
				cached = pickMentionedUser(users)
				byName[key] = cached
			}
			u = cached
		}
		if u == nil {
			continue
		}
		m.userID, m.display = u.ID, u.FullName
		if u.IsActive && !m.silent {
			mentioned = append(mentioned, u.ID)
		}
	}
	slices.Sort(mentioned)
	return slices.Compact(mentioned), nil
}

// pickMentionedUser chooses among users sharing a full name: the first active
// one by id, else the first.
func pickMentionedUser(users []User) *User {
	for i := range users {
		if users[i].IsActive {
			return &users[i]
		}
	}
	if len(users) > 0 {
		return &users[0]
	}
	return nil
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// applyLinkifier turns the matches of l in doc's text (outside links, code
// and mentions) into links. goldmark splits text at delimiter characters
// (_ * @ [ and others) into adjacent text nodes, so matching runs over each
// run of adjacent plain text siblings as one string, as Zulip matches the
// text of a paragraph; a run ends at a line break or any other inline node.
func applyLinkifier(doc ast.Node, source []byte, l compiledLinkifier) {
	var runs [][]*ast.Text
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link, *ast.AutoLink, *ast.CodeSpan, *ast.CodeBlock, *ast.FencedCodeBlock,
			*ast.HTMLBlock, *ast.RawHTML, *ast.Image, *mentionNode, *channelLinkNode:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			if linkifiable(n) && !continuesRun(n) {
				runs = append(runs, textRun(n))
			}
		}
		return ast.WalkContinue, nil
	})
	for _, run := range runs {
		linkifyRun(run, source, l)
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

// textRun returns first and the siblings that continue its run.
func textRun(first *ast.Text) []*ast.Text {
	run := []*ast.Text{first}
	for {
		next, ok := run[len(run)-1].NextSibling().(*ast.Text)
		if !ok || !linkifiable(next) || !continuesRun(next) {
			return run
		}
		run = append(run, next)
	}
}

// linkifyRun replaces the text nodes of run by text and links around the
// matches of l in their joined text. The nodes are adjacent in the source, so
// the run covers the source from run[0]'s start to its last node's stop.
func linkifyRun(run []*ast.Text, source []byte, l compiledLinkifier) {
	first, last := run[0], run[len(run)-1]
	base := first.Segment.Start
	value := string(source[base:last.Segment.Stop])
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
	matches := l.matches(value, before, after)
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
	for _, t := range run {
		parent.RemoveChild(parent, t)
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
		_, _ = w.WriteString(`<span class="user-mention` + silent + `" data-user-id="` + strconv.FormatInt(int64(m.userID), 10) + `">` + at + escapeHTML(m.display) + `</span>`)
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
	message  MessageID
	// Set when resolved.
	streamID   StreamID
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
	rest := line[3:]
	end := bytes.Index(rest, []byte("**"))
	if end <= 0 {
		return nil
	}
	inner := string(rest[:end])
	if strings.ContainsAny(inner, "*\n\r") {
		return nil
	}
	n := &channelLinkNode{name: inner}
	if i := strings.IndexByte(inner, '>'); i > 0 {
		n.name, n.topic, n.hasTopic = inner[:i], inner[i+1:], true
		if j := strings.LastIndexByte(n.topic, '@'); j >= 0 {
			if id, ok := ParseID[MessageID](n.topic[j+1:]); ok {
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
func resolveChannelLinks(ctx context.Context, tx Tx, realm RealmID, doc ast.Node) error {
	var nodes []*channelLinkNode
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*channelLinkNode); ok && entering {
			nodes = append(nodes, l)
		}
		return ast.WalkContinue, nil
	})
	found := map[string]*Stream{}
	for _, l := range nodes {
		key := FoldKey(l.name)
		st, ok := found[key]
		if !ok {
			var err error
			st, err = tx.StreamByName(ctx, realm, l.name)
			if errors.Is(err, ErrNotFound) || (err == nil && st.RealmID != realm) {
				st, err = nil, nil
			}
			if err != nil {
				return err
			}
			found[key] = st
		}
		if st != nil {
			l.streamID, l.streamName = st.ID, st.Name
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
	// encodeHashComponent (reminders.go) encodes as Zulip's narrow URLs do.
	id := strconv.FormatInt(int64(l.streamID), 10)
	href := "/#narrow/channel/" + id + "-" + encodeHashComponent(strings.ReplaceAll(l.streamName, " ", "-"))
	switch {
	case !l.hasTopic:
		_, _ = w.WriteString(`<a class="stream" data-stream-id="` + id + `" href="` + escapeHTML(href) + `">#` + escapeHTML(l.streamName) + `</a>`)
	case l.message == 0:
		href += "/topic/" + encodeHashComponent(l.topic)
		_, _ = w.WriteString(`<a class="stream-topic" data-stream-id="` + id + `" href="` + escapeHTML(href) + `">#` +
			escapeHTML(l.streamName) + " &gt; " + escapeHTML(l.topic) + `</a>`)
	default:
		href += "/topic/" + encodeHashComponent(l.topic) + "/near/" + strconv.FormatInt(int64(l.message), 10)
		_, _ = w.WriteString(`<a class="message-link" href="` + escapeHTML(href) + `">#` +
			escapeHTML(l.streamName) + " &gt; " + escapeHTML(l.topic) + " @ 💬</a>")
	}
	return ast.WalkSkipChildren, nil
}
