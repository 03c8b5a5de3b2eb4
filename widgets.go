package chatcore

import (
	"strings"
	"unicode"

	"github.com/chatcore/chatcore/internal/pyrepr"
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
		pyrepr.WriteJSONString(&js, question)
		js.WriteString(`, "options": [`)
		n := 0
		for _, line := range lines {
			if opt := stripListMarker(line); opt != "" {
				if n > 0 {
					js.WriteString(", ")
				}
				pyrepr.WriteJSONString(&js, opt)
				n++
			}
		}
		js.WriteString("]}}")
	case "/todo":
		title, lines := widgetHead(content[len(first):])
		js.WriteString(`{"widget_type": "todo", "extra_data": {"task_list_title": `)
		pyrepr.WriteJSONString(&js, title)
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
			pyrepr.WriteJSONString(&js, strings.TrimSpace(task))
			js.WriteString(`, "desc": `)
			pyrepr.WriteJSONString(&js, strings.TrimSpace(desc))
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
	lines = pyrepr.SplitLines(rest)
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
