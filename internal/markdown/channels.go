package markdown

// Channel links: #**channel**, resolved through the Resolver.

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/chatcore/chatcore/internal/narrowlink"
)

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
	switch {
	case !l.hasTopic:
		href := "/" + narrowlink.Channel(l.streamID, l.streamName)
		_, _ = w.WriteString(`<a class="stream" data-stream-id="` + id + `" href="` + escapeHTML(href) + `">#` + escapeHTML(l.streamName) + `</a>`)
	case l.message == 0:
		href := "/" + narrowlink.Topic(l.streamID, l.streamName, l.topic)
		_, _ = w.WriteString(`<a class="stream-topic" data-stream-id="` + id + `" href="` + escapeHTML(href) + `">#` +
			escapeHTML(l.streamName) + " &gt; " + escapeHTML(l.topic) + `</a>`)
	default:
		href := "/" + narrowlink.ChannelMessage(l.streamID, l.streamName, l.topic, l.message)
		_, _ = w.WriteString(`<a class="message-link" href="` + escapeHTML(href) + `">#` +
			escapeHTML(l.streamName) + " &gt; " + escapeHTML(l.topic) + " @ 💬</a>")
	}
	return ast.WalkSkipChildren, nil
}
