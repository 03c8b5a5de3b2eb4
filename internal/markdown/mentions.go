package markdown

// Mentions: @**Name**, @**Name|id**, silent @_**Name**, wildcards, and their
// resolution through the Resolver.

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

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
