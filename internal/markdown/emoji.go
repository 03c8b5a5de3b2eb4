package markdown

// Emoji: :name: syntax for the realm's custom emoji and Zulip's names of
// Unicode emoji, and Unicode emoji characters in text.

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chatcore/chatcore/internal/emoji"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

// zulipEmojiURL is the image of :zulip:, which Zulip shows as a custom
// emoji of every realm (a realm's own emoji of that name wins).
const zulipEmojiURL = "/static/generated/emoji/images/emoji/unicode/zulip.png"

// emojiKind is the kind of an emoji node.
var emojiKind = ast.NewNodeKind("ChatEmoji")

// emojiNode is an emoji: a Unicode emoji shown by its code, or a custom
// emoji shown by its image.
type emojiNode struct {
	ast.BaseInline
	// display is the :name: text, shown inside the span and as the image's
	// alt text.
	display string
	code    string // the Unicode emoji's code, or ""
	src     string // the custom emoji's image URL, or ""
}

// Kind implements ast.Node.
func (n *emojiNode) Kind() ast.NodeKind { return emojiKind }

// Dump implements ast.Node.
func (n *emojiNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"display": n.display}, nil)
}

func renderEmoji(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*emojiNode)
	title := escapeHTML(strings.ReplaceAll(n.display[1:len(n.display)-1], "_", " "))
	display := escapeHTML(n.display)
	if n.src != "" {
		_, _ = w.WriteString(`<img alt="` + display + `" class="emoji" src="` + escapeHTML(n.src) + `" title="` + title + `">`)
	} else {
		_, _ = w.WriteString(`<span aria-label="` + title + `" class="emoji emoji-` + n.code + `" role="img" title="` + title + `">` + display + `</span>`)
	}
	return ast.WalkSkipChildren, nil
}

// HasEmojiSyntax reports whether content has :name: syntax anywhere (code
// included), as Zulip checks before it reads the realm's custom emoji:
// Render asks for them only then.
func HasEmojiSyntax(content string) bool {
	for i := strings.IndexByte(content, ':'); i >= 0; {
		if colonNameLen(content[i:]) > 0 {
			return true
		}
		next := strings.IndexByte(content[i+1:], ':')
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// mayHaveEmoji reports whether content may hold an emoji: :name: syntax or
// a character outside ASCII (every emoji sequence has one).
func mayHaveEmoji(content string) bool {
	if strings.IndexByte(content, ':') >= 0 {
		return true
	}
	for i := 0; i < len(content); i++ {
		if content[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// colonNameLen returns the length of the :name: syntax (Zulip's
// :[\w\-\+]+:) that starts s, or 0.
func colonNameLen(s string) int {
	if len(s) < 3 || s[0] != ':' {
		return 0
	}
	for i, r := range s[1:] {
		switch {
		case r == ':':
			if i == 0 {
				return 0
			}
			return i + 2
		case r == '_' || r == '-' || r == '+' || unicode.IsLetter(r) || unicode.IsNumber(r):
		default:
			return 0
		}
	}
	return 0
}

// emojify turns the emoji in the document's text (outside links, code and
// mentions) into emoji nodes, as Zulip does: from left to right, :name:
// syntax first (a custom emoji of realm, a name → image URL map, before a
// Unicode emoji name; unknown names stay text), and Unicode emoji
// characters Zulip has a name for.
func (lk *linkifier) emojify(realm map[string]string) {
	lk.collectRuns()
	for _, first := range lk.heads {
		last := runEnd(first)
		base := first.Segment.Start
		value := string(lk.source[base:last.Segment.Stop])
		pieces := lk.pieces[:0]
		for i := 0; i < len(value); {
			if n := colonNameLen(value[i:]); n > 0 {
				if node := colonEmoji(value[i:i+n], realm); node != nil {
					pieces = append(pieces, runPiece{start: i, end: i + n, node: node})
				}
				i += n
				continue
			}
			if n := emoji.SequenceLen(value[i:]); n > 0 {
				if code, name, ok := emoji.FromSequence(value[i : i+n]); ok {
					pieces = append(pieces, runPiece{start: i, end: i + n, node: &emojiNode{display: ":" + name + ":", code: code}})
				}
				i += n
				continue
			}
			_, size := utf8.DecodeRuneInString(value[i:])
			i += size
		}
		lk.pieces = pieces
		lk.spliceRun(first, last, pieces)
	}
}

// colonEmoji returns the emoji the :name: syntax shows, or nil.
func colonEmoji(syntax string, realm map[string]string) *emojiNode {
	name := syntax[1 : len(syntax)-1]
	if src, ok := realm[name]; ok {
		return &emojiNode{display: syntax, src: src}
	}
	if name == "zulip" {
		return &emojiNode{display: syntax, src: zulipEmojiURL}
	}
	if code, ok := emoji.Code(name); ok {
		return &emojiNode{display: syntax, code: emoji.Unqualified(code)}
	}
	return nil
}
