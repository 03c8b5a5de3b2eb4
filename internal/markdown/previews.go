package markdown

// Inline previews of uploaded images, as Zulip's markdown makes them
// (InlineInterestingLinkProcessor for /user_uploads/ links): a link to an
// image upload of the realm gets a message_inline_image div showing the
// image's thumbnail, or a loading placeholder while the thumbnail is not
// made. [RewriteUploadPreview] later turns the placeholder into the
// thumbnail (or removes the preview when no thumbnail can be made), as
// Zulip's rewrite_thumbnailed_images does.

import (
	"context"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

// ImagePreview is what the inline preview of an uploaded image shows
// (Zulip's MarkdownImageMetadata).
type ImagePreview struct {
	// Width and Height are the original image's size.
	Width, Height int
	// ContentType is the original's media type.
	ContentType string
	// ThumbnailURL is the path of the thumbnail the preview shows; empty
	// while it is not made (the preview is then a loading placeholder).
	ThumbnailURL string
	// Animated reports that the thumbnail is animated.
	Animated bool
}

// uploadsPrefix starts the path of every uploaded file's link.
const uploadsPrefix = "/user_uploads/"

// LoadingPlaceholderSrc is the image Zulip's loading placeholder shows.
const LoadingPlaceholderSrc = "/static/images/loading/loader-black.svg"

// MaxInlinePreviews is Zulip's INLINE_PREVIEW_LIMIT_PER_MESSAGE: a message
// linking more distinct URLs (outside block quotes) gets no previews.
const MaxInlinePreviews = 24

// inlineImageKind is the kind of an inline image preview node.
var inlineImageKind = ast.NewNodeKind("ChatInlineImage")

// inlineImageNode is the preview of an uploaded image a link points to.
type inlineImageNode struct {
	ast.BaseBlock
	dest    []byte  // the link's destination, /user_uploads/{path}
	title   *string // the link's text when it is not the URL itself
	preview ImagePreview
}

// Kind implements ast.Node.
func (n *inlineImageNode) Kind() ast.NodeKind { return inlineImageKind }

// Dump implements ast.Node.
func (n *inlineImageNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"dest": string(n.dest)}, nil)
}

// IsRaw implements ast.Node: the node has no lines of its own.
func (n *inlineImageNode) IsRaw() bool { return true }

// attrURL returns url as goldmark writes a link's href.
func attrURL(url []byte) string { return string(util.EscapeHTML(util.URLEscape(url, true))) }

// inlineImageOpen returns the markup of an upload's preview up to its img
// element: the div and the link around it.
func inlineImageOpen(dest []byte, title *string) string {
	s := `<div class="message_inline_image"><a href="` + attrURL(dest) + `"`
	if title != nil {
		s += ` title="` + escapeHTML(*title) + `"`
	}
	return s + ">"
}

// previewImg returns the img element of a preview: the thumbnail when it
// is made, else the loading placeholder (attributes in Zulip's order).
func previewImg(p ImagePreview) string {
	meta := ` data-original-content-type="` + escapeHTML(p.ContentType) + `" data-original-dimensions="` +
		strconv.Itoa(p.Width) + "x" + strconv.Itoa(p.Height) + `"`
	if p.ThumbnailURL == "" {
		return `<img class="image-loading-placeholder"` + meta + ` src="` + LoadingPlaceholderSrc + `">`
	}
	animated := ""
	if p.Animated {
		animated = ` data-animated="true"`
	}
	return `<img` + animated + meta + ` src="` + attrURL([]byte(p.ThumbnailURL)) + `">`
}

func renderInlineImage(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		n := node.(*inlineImageNode)
		_, _ = w.WriteString(inlineImageOpen(n.dest, n.title) + previewImg(n.preview) + "</a></div>")
	}
	return ast.WalkSkipChildren, nil
}

// foundLink is a link of the message, in document order.
type foundLink struct {
	node         ast.Node // *ast.Link or *ast.AutoLink
	dest         []byte
	inBlockquote bool
}

// findLinks returns the links of doc in document order.
func findLinks(doc ast.Node, source []byte) []foundLink {
	var out []foundLink
	quotes := 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch l := n.(type) {
		case *ast.Blockquote:
			if entering {
				quotes++
			} else {
				quotes--
			}
		case *ast.Link:
			if entering {
				out = append(out, foundLink{node: l, dest: l.Destination, inBlockquote: quotes > 0})
			}
		case *ast.AutoLink:
			if entering {
				out = append(out, foundLink{node: l, dest: l.URL(source), inBlockquote: quotes > 0})
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// linkText returns a link's leading text (ElementTree's text of the a
// element: the text before its first child element), and false when it
// starts with an element.
func linkText(n ast.Node, source []byte) (string, bool) {
	if al, ok := n.(*ast.AutoLink); ok {
		return string(al.Label(source)), true
	}
	var b strings.Builder
	c := n.FirstChild()
	if c == nil {
		return "", false
	}
	for ; c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			v := t.Segment.Value(source)
			if !t.IsRaw() {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			b.Write(v)
			if t.SoftLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.RawHTML: // shown as text (see renderEscapedRawHTML)
			for i := range t.Segments.Len() {
				seg := t.Segments.At(i)
				b.Write(seg.Value(source))
			}
		default:
			return b.String(), b.Len() > 0
		}
	}
	return b.String(), true
}

// inlineUploadPreviews adds the previews of the image uploads doc links
// to, as Zulip's InlineInterestingLinkProcessor: the first link to each
// distinct URL outside block quotes, none at all when there are more than
// MaxInlinePreviews such URLs. The previews come from r, asked once with
// the upload paths, and only when doc links to uploads.
func inlineUploadPreviews(ctx context.Context, r Resolver, doc ast.Node, source []byte) error {
	links := findLinks(doc, source)
	distinct := map[string]bool{}
	var paths []string
	for _, l := range links {
		if l.inBlockquote || distinct[string(l.dest)] {
			continue
		}
		distinct[string(l.dest)] = true
		if p, ok := strings.CutPrefix(string(l.dest), uploadsPrefix); ok && p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 || len(distinct) > MaxInlinePreviews {
		return nil
	}
	previews, err := r.UploadPreviews(ctx, paths)
	if err != nil || len(previews) == 0 {
		return err
	}
	done := map[string]bool{}
	after := map[ast.Node]ast.Node{} // a paragraph's last preview so far
	for _, l := range links {
		dest := string(l.dest)
		if l.inBlockquote || done[dest] {
			continue
		}
		done[dest] = true
		p, ok := previews[strings.TrimPrefix(dest, uploadsPrefix)]
		if !ok || !strings.HasPrefix(dest, uploadsPrefix) {
			continue
		}
		inlineImage(doc, l, p, source, after)
	}
	return nil
}

// inlineImage places the preview p of link l as Zulip's
// handle_image_inlining: after the link's paragraph (and the previews of
// that paragraph's earlier links), at the end of its tight list item, or
// else at the end of the message. A link that is all of its paragraph or
// list item and shows its own URL is replaced by the preview.
func inlineImage(doc ast.Node, l foundLink, p ImagePreview, source []byte, after map[ast.Node]ast.Node) {
	text, hasText := linkText(l.node, source)
	urlIsText := !hasText || text == string(l.dest)
	node := &inlineImageNode{dest: l.dest, preview: p}
	if !urlIsText {
		node.title = &text
	}
	parent := l.node.Parent()
	alone := parent != nil && parent.ChildCount() == 1 && urlIsText
	switch {
	case parent != nil && parent.Kind() == ast.KindTextBlock && parent.Parent() != nil && parent.Parent().Kind() == ast.KindListItem:
		if alone {
			parent.RemoveChild(parent, l.node)
		}
		parent.AppendChild(parent, node)
	case parent != nil && parent.Kind() == ast.KindParagraph && parent.Parent() != nil:
		grand := parent.Parent()
		prev := parent
		if last, ok := after[parent]; ok {
			prev = last
		}
		grand.InsertAfter(grand, prev, node)
		after[parent] = node
		if alone {
			grand.RemoveChild(grand, parent)
		}
	default:
		doc.AppendChild(doc, node)
	}
}

// uploadPreviewOpen starts the preview of upload path in rendered HTML, up
// to its href's closing quote.
func uploadPreviewOpen(path string) string {
	return `<div class="message_inline_image"><a href="` + attrURL([]byte(uploadsPrefix+path)) + `"`
}

// placeholderStart starts the img element of a loading placeholder.
const placeholderStart = `<img class="image-loading-placeholder"`

// RewriteUploadPreview returns html with the loading placeholders of the
// previews of upload path replaced by p's thumbnail, or, when p is nil
// (no thumbnail can be made), with those previews removed, as Zulip's
// rewrite_thumbnailed_images; false when html has no such placeholder
// (nothing to change). Only markup Render wrote matches: text of the
// message is always escaped.
func RewriteUploadPreview(html, path string, p *ImagePreview) (string, bool) {
	open := uploadPreviewOpen(path)
	var b strings.Builder
	changed := false
	rest := html
	for {
		i := strings.Index(rest, open)
		if i < 0 {
			break
		}
		end := strings.Index(rest[i:], "</a></div>")
		if end < 0 {
			break
		}
		end += i + len("</a></div>")
		div := rest[i:end]
		img := strings.Index(div, placeholderStart)
		if img < 0 { // already thumbnailed
			b.WriteString(rest[:end])
			rest = rest[end:]
			continue
		}
		changed = true
		b.WriteString(rest[:i])
		if p != nil {
			imgEnd := strings.IndexByte(div[img:], '>') + img + 1
			b.WriteString(div[:img] + previewImg(*p) + div[imgEnd:])
		}
		rest = rest[end:]
	}
	if !changed {
		return html, false
	}
	b.WriteString(rest)
	return strings.TrimSpace(b.String()), true
}
