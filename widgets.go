package chatcore

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SubmessageTypeWidget is the msg_type of widget submessages.
const SubmessageTypeWidget = "widget"

// WidgetSubmessage returns the widget submessage a message sent by sender
// with content (normalised) starts with, as Zulip's
// do_widget_post_save_actions: content whose first word is /poll or /todo
// becomes a poll or a to-do list, whose question or title is the rest of
// the first line and whose options or tasks are the following non-empty
// lines (a leading "-" or "*" list marker dropped; a task's description
// follows its first ": "). Its content is the JSON Zulip writes,
// {"widget_type": ..., "extra_data": ...}, byte for byte. It reports false
// for other content.
func WidgetSubmessage(sender UserID, content string) (Submessage, bool) {
	first := content
	if i := strings.IndexFunc(content, unicode.IsSpace); i >= 0 {
		first = content[:i]
	}
	var js strings.Builder
	switch first {
	case "/poll":
		question, lines := widgetHead(content[len(first):])
		js.WriteString(`{"widget_type": "poll", "extra_data": {"question": `)
		writePyJSONString(&js, question)
		js.WriteString(`, "options": [`)
		n := 0
		for _, line := range lines {
			if opt := stripListMarker(line); opt != "" {
				if n > 0 {
					js.WriteString(", ")
				}
				writePyJSONString(&js, opt)
				n++
			}
		}
		js.WriteString("]}}")
	case "/todo":
		title, lines := widgetHead(content[len(first):])
		js.WriteString(`{"widget_type": "todo", "extra_data": {"task_list_title": `)
		writePyJSONString(&js, title)
		js.WriteString(`, "tasks": [`)
		n := 0
		for _, line := range lines {
			t := stripListMarker(line)
			if t == "" {
				continue
			}
			task, desc, _ := strings.Cut(t, ": ")
			if n > 0 {
				js.WriteString(", ")
			}
			js.WriteString(`{"task": `)
			writePyJSONString(&js, strings.TrimSpace(task))
			js.WriteString(`, "desc": `)
			writePyJSONString(&js, strings.TrimSpace(desc))
			js.WriteString("}")
			n++
		}
		js.WriteString("]}}")
	default:
		return Submessage{}, false
	}
	return Submessage{SenderID: sender, MsgType: SubmessageTypeWidget, Content: js.String()}, true
}

// widgetHead splits what follows a widget command into Python lines and
// takes the first, stripped, as the widget's heading when it is not empty
// (Zulip's parse_poll_extra_data and parse_todo_extra_data).
func widgetHead(rest string) (head string, lines []string) {
	lines = pySplitLines(rest)
	if len(lines) > 0 && lines[0] != "" {
		return strings.TrimSpace(lines[0]), lines[1:]
	}
	return "", lines
}

// stripListMarker strips line and then one leading "-" or "*" with the
// spaces after it.
func stripListMarker(line string) string {
	s := strings.TrimSpace(line)
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "*") {
		s = strings.TrimLeftFunc(s[1:], unicode.IsSpace)
	}
	return s
}

// pySplitLines splits s at Python's str.splitlines boundaries, without
// the line ends and without a last empty line.
func pySplitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool {
			switch r {
			case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
				return true
			}
			return false
		})
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		r, size := utf8.DecodeRuneInString(s[i:])
		s = s[i+size:]
		if r == '\r' && strings.HasPrefix(s, "\n") {
			s = s[1:]
		}
	}
	return out
}

// writePyJSONString writes s as Python's json.dumps does (ensure_ascii):
// every non-ASCII character as \uXXXX escapes (surrogate pairs above the
// BMP).
func writePyJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	u4 := func(r rune) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[(r>>shift)&0xf])
		}
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r >= 0x7f && r <= 0xffff):
			u4(r)
		case r > 0xffff:
			r -= 0x10000
			u4(0xd800 + r>>10)
			u4(0xdc00 + r&0x3ff)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
