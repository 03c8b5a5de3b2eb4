package chatcore_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// TestWidgetSubmessage: /poll and /todo become Zulip's widget submessage,
// parsed as Zulip's get_widget_data and written as its json.dumps writes
// them; anything else is no widget.
func TestWidgetSubmessage(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{"/poll", `{"widget_type": "poll", "extra_data": {"question": "", "options": []}}`},
		{"/poll What now?\nA\n\n  B  \n-C\n* D\n--E\n- ", `{"widget_type": "poll", "extra_data": {"question": "What now?", "options": ["A", "B", "C", "D", "-E"]}}`},
		{"/poll\nA\nB", `{"widget_type": "poll", "extra_data": {"question": "", "options": ["A", "B"]}}`},
		{"/poll\tQ?\r\nA\rB\u2028C", `{"widget_type": "poll", "extra_data": {"question": "Q?", "options": ["A", "B", "C"]}}`},
		{"/poll \"Où?\" \\ 😀\n\x01\x7f", `{"widget_type": "poll", "extra_data": {"question": "\"O\u00f9?\" \\ \ud83d\ude00", "options": ["\u0001\u007f"]}}`},
		{"/todo", `{"widget_type": "todo", "extra_data": {"task_list_title": "", "tasks": []}}`},
		{"/todo Chores\n- Dishes: tonight: late\n* Laundry\nMop :  now ", `{"widget_type": "todo", "extra_data": {"task_list_title": "Chores", "tasks": [{"task": "Dishes", "desc": "tonight: late"}, {"task": "Laundry", "desc": ""}, {"task": "Mop", "desc": "now"}]}}`},
	} {
		sm, ok := chatcore.WidgetSubmessage(7, c.content)
		if !ok || sm.Content != c.want || sm.MsgType != "widget" || sm.SenderID != 7 {
			t.Errorf("%q: got %v %+v, want %s", c.content, ok, sm, c.want)
		}
	}
	is := is.New(t)
	for _, content := range []string{"hello", " /poll Q", "/polls Q", "/zform", "poll", "/Poll Q", "x /poll"} {
		_, ok := chatcore.WidgetSubmessage(7, content)
		is.True(!ok) // no widget
	}
}
