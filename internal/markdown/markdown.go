// Package markdown renders Zulip message Markdown to HTML: CommonMark
// (goldmark) with Zulip's chat additions. It knows nothing of stores: a
// [Resolver] answers its questions about the realm (users by mention, channels
// by name, the compiled linkifiers).
package markdown

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

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
//   - :name: shows the realm's custom emoji or the Unicode emoji Zulip names
//     so, and Unicode emoji characters are wrapped as Zulip wraps them (not
//     in links or code);
//   - a link to an image upload of the realm gets an inline preview of it
//     (its thumbnail, or a loading placeholder until the thumbnail is made);
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
	// RealmEmoji returns the realm's active custom emoji: each name's image
	// URL. Render asks once, and only for content with :name: syntax.
	RealmEmoji(ctx context.Context) (map[string]string, error)
	// UploadPreviews returns the previews of the realm's image uploads
	// among paths (upload path ids, below /user_uploads/), by path; other
	// paths are left out. Render asks once, and only for content that
	// links to uploads.
	UploadPreviews(ctx context.Context, paths []string) (map[string]ImagePreview, error)
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
	var realmEmoji map[string]string
	if HasEmojiSyntax(content) {
		if realmEmoji, err = r.RealmEmoji(ctx); err != nil {
			return Result{}, err
		}
	}
	lk := newLinkifier(doc, source)
	for _, l := range links {
		lk.apply(l)
	}
	if mayHaveEmoji(content) {
		lk.emojify(realmEmoji)
	}
	if strings.Contains(content, uploadsPrefix) {
		if err := inlineUploadPreviews(ctx, r, doc, source); err != nil {
			return Result{}, err
		}
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

// chatNodeRenderer renders mentions, escapes raw HTML instead of dropping or
// passing it, and writes code blocks in Zulip's codehilite markup.
type chatNodeRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (chatNodeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(mentionKind, renderMention)
	reg.Register(channelLinkKind, renderChannelLink)
	reg.Register(emojiKind, renderEmoji)
	reg.Register(inlineImageKind, renderInlineImage)
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
