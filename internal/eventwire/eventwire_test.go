package eventwire_test

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/eventwire"
)

// decode returns the JSON object data as a map, failing the test when it is not one.
func decode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("not a JSON object: %s: %v", data, err)
	}
	return m
}

// TestWithID checks that the id goes in front of every field, and alone into
// an empty object.
func TestWithID(t *testing.T) {
	is := is.New(t)
	is.Equal(string(eventwire.WithID(7, []byte(`{"type":"x"}`))), `{"id":7,"type":"x"}`) // id first, then the fields
	is.Equal(string(eventwire.WithID(42, []byte(`{}`))), `{"id":42}`)                    // an empty object gets the id alone
}

const logged = `{"type":"message","flags":["read"],"chatcore_raw_content":"**hi**",` +
	`"message":{"type":"stream","subject":"","display_recipient":"Denmark","content":"<p><strong>hi</strong></p>","content_type":"text/html"}}`

// TestVariants checks both content variants of a logged message event: the
// raw content key is always gone; without apply_markdown the content is the
// raw Markdown.
func TestVariants(t *testing.T) {
	is := is.New(t)
	e := eventwire.Parse([]byte(logged))
	is.True(e.OK)                    // the event parses
	is.Equal(e.Head.Type, "message") // its head is read
	is.Equal(*e.Head.Raw, "**hi**")  // with the raw content
	is.Equal(e.Head.Flags, []string{"read"})
	for _, applyMarkdown := range []bool{false, true} {
		got := decode(t, e.Variant([]byte(logged), applyMarkdown))
		_, hasRaw := got[eventwire.RawContentKey]
		is.True(!hasRaw) // queues never get the raw content key
		msg := got["message"].(map[string]any)
		if applyMarkdown {
			is.Equal(msg["content"], "<p><strong>hi</strong></p>") // rendered content kept
			is.Equal(msg["content_type"], "text/html")
		} else {
			is.Equal(msg["content"], "**hi**") // raw content instead
			is.Equal(msg["content_type"], "text/x-markdown")
		}
	}
	first := e.Variant([]byte(logged), true)
	is.Equal(&first[0], &e.Variant(nil, true)[0]) // a variant is built once, then reused
}

// TestEmptyTopic checks which events name the empty topic.
func TestEmptyTopic(t *testing.T) {
	for _, tt := range []struct {
		data string
		want bool
	}{
		{logged, true},
		{`{"type":"message","message":{"type":"stream","subject":"lunch"}}`, false},
		{`{"type":"message","message":{"type":"private","subject":""}}`, false},
		{`{"type":"typing","topic":""}`, true},
		{`{"type":"typing","topic":"lunch"}`, false},
		{`{"type":"update_message"}`, false},
	} {
		t.Run(tt.data, func(t *testing.T) {
			is := is.New(t)
			is.Equal(eventwire.Parse([]byte(tt.data)).EmptyTopic(), tt.want)
		})
	}
}

// TestRenameEmptyTopic checks that only an empty topic, or the empty subject
// of a channel message, is renamed.
func TestRenameEmptyTopic(t *testing.T) {
	is := is.New(t)
	got := decode(t, eventwire.RenameEmptyTopic([]byte(logged), "general chat"))
	is.Equal(got["message"].(map[string]any)["subject"], "general chat") // a channel message's empty subject
	got = decode(t, eventwire.RenameEmptyTopic([]byte(`{"type":"typing","topic":""}`), "general chat"))
	is.Equal(got["topic"], "general chat") // an event's empty topic
	got = decode(t, eventwire.RenameEmptyTopic([]byte(`{"type":"typing","topic":"lunch"}`), "general chat"))
	is.Equal(got["topic"], "lunch") // other topics stay
	dm := `{"type":"message","message":{"type":"private","subject":""}}`
	got = decode(t, eventwire.RenameEmptyTopic([]byte(dm), "general chat"))
	is.Equal(got["message"].(map[string]any)["subject"], "")                  // a direct message has no topic to rename
	is.Equal(string(eventwire.RenameEmptyTopic([]byte("nope"), "x")), "nope") // data that does not parse is returned as it is
}

// TestPerMessage checks the split of a bulk deletion into one event per message.
func TestPerMessage(t *testing.T) {
	is := is.New(t)
	out, ok := eventwire.PerMessage([]byte(`{"type":"delete_message","message_ids":[3,5],"message_type":"private"}`), []int64{3, 5})
	is.True(ok) // the event parses
	is.Equal(len(out), 2)
	for i, id := range []float64{3, 5} {
		got := decode(t, out[i])
		is.Equal(got["message_id"], id) // one message id per copy
		_, hasIDs := got["message_ids"]
		is.True(!hasIDs)                         // without the list
		is.Equal(got["message_type"], "private") // other fields kept
	}
	_, ok = eventwire.PerMessage([]byte("nope"), []int64{1})
	is.True(!ok) // data that does not parse gives nothing
}
