package httpadapter_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// postMessage sends a channel message to general as member with the
// User-Agent given and returns its id.
func postMessage(t *testing.T, e *env, ua string, extra ...string) int64 {
	t.Helper()
	p := params(append([]string{"type", "stream", "to", "general", "topic", "t", "content", "hi"}, extra...)...)
	res := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded, params: p,
		header: map[string]string{"User-Agent": ua}})
	wantSuccess(t, res)
	return num(t, res.body["id"])
}

// flagsOver returns the flags of message id that GET /messages/{id} shows cred.
func flagsOver(t *testing.T, e *env, c cred, id int64) []any {
	t.Helper()
	res := e.do(t, request{method: "GET", path: fmt.Sprintf("/messages/%d", id), auth: &c})
	wantSuccess(t, res)
	msg, _ := res.body["message"].(map[string]any)
	flags, ok := msg["flags"].([]any)
	if !ok {
		t.Fatalf("no flags in %s", res.raw)
	}
	return flags
}

func TestHTTPMessageFlags(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	api := postMessage(t, e, "ZulipPython/0.9")
	web := postMessage(t, e, "ZulipMobile/27.1 (Android 14)")
	forced := postMessage(t, e, "ZulipPython/0.9", "read_by_sender", "true")
	named := postMessage(t, e, "ZulipPython/0.9", "client", "website")
	is.Equal(flagsOver(t, e, member, api), []any{})          // an API client's own message stays unread
	is.Equal(flagsOver(t, e, member, web), []any{"read"})    // Zulip's own app: read for the sender
	is.Equal(flagsOver(t, e, member, forced), []any{"read"}) // read_by_sender=true
	is.Equal(flagsOver(t, e, member, named), []any{"read"})  // the client parameter names the client ahead of the User-Agent

	res := e.do(t, request{method: "POST", path: "/messages/flags", auth: &member, enc: urlEncoded,
		params: params("messages", fmt.Sprintf("[%d]", api), "op", "add", "flag", "starred")})
	wantSuccess(t, res)
	echoed, _ := res.body["messages"].([]any)
	is.Equal(len(echoed), 1)                                               // the ids echoed
	is.Equal(num(t, echoed[0]), api)                                       // the same id
	is.Equal(res.body["ignored_because_not_subscribed_channels"], []any{}) // no channel skipped (Zulip 10.0, level 355)
	is.Equal(flagsOver(t, e, member, api), []any{"starred"})               // starred
	res = e.do(t, request{method: "GET", path: "/messages", auth: &member,
		params: params("anchor", "newest", "num_before", "5", "num_after", "0", "narrow", `[{"operator":"is","operand":"starred"}]`)})
	wantSuccess(t, res)
	msgs, _ := res.body["messages"].([]any)
	is.Equal(len(msgs), 1)                                        // is:starred
	is.Equal(msgs[0].(map[string]any)["flags"], []any{"starred"}) // flags on GET /messages

	res = e.do(t, request{method: "POST", path: "/messages/flags/narrow", auth: &member, enc: urlEncoded,
		params: params("anchor", "oldest", "num_before", "0", "num_after", "100", "narrow", `[["topic","t"]]`, "op", "add", "flag", "read")})
	wantSuccess(t, res)
	is.Equal(num(t, res.body["processed_count"]), int64(4))                // the four messages
	is.Equal(num(t, res.body["updated_count"]), int64(1))                  // three were read already
	is.Equal(num(t, res.body["first_processed_id"]), api)                  // first
	is.Equal(num(t, res.body["last_processed_id"]), named)                 // last
	is.Equal(res.body["found_oldest"], true)                               // found_oldest
	is.Equal(res.body["found_newest"], true)                               // found_newest
	is.Equal(res.body["ignored_because_not_subscribed_channels"], []any{}) // no channel skipped

	res = e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
		params: params("fetch_event_types", `["message","update_message_flags","starred_messages"]`)})
	wantSuccess(t, res)
	starred, _ := res.body["starred_messages"].([]any)
	is.Equal(len(starred), 1)                           // starred_messages
	is.Equal(num(t, starred[0]), api)                   // the starred one
	is.Equal(num(t, res.body["max_message_id"]), named) // max_message_id
	unread, _ := res.body["unread_msgs"].(map[string]any)
	streams, _ := unread["streams"].([]any)
	for _, st := range streams {
		is.True(st.(map[string]any)["topic"] != "t") // topic t was marked read
	}
	is.Equal(unread["old_unreads_missing"], false) // Zulip's shape
}

func TestHTTPMessageFlagsErrors(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	id := postMessage(t, e, "ZulipPython/0.9")
	ids := fmt.Sprintf("[%d]", id)
	tooMany := "[" + strings.TrimSuffix(strings.Repeat("1,", 5001), ",") + "]"
	tests := []struct {
		name   string
		path   string
		params []string
		code   string
		msg    string
	}{
		{"missing messages", "/messages/flags", []string{"op", "add", "flag", "read"}, "REQUEST_VARIABLE_MISSING", "Missing 'messages' argument"},
		{"missing op", "/messages/flags", []string{"messages", ids, "flag", "read"}, "REQUEST_VARIABLE_MISSING", "Missing 'op' argument"},
		{"missing flag", "/messages/flags", []string{"messages", ids, "op", "add"}, "REQUEST_VARIABLE_MISSING", "Missing 'flag' argument"},
		{"invalid flag", "/messages/flags", []string{"messages", ids, "op", "add", "flag", "bogus"}, "BAD_REQUEST", "Invalid flag: 'bogus'"},
		{"not editable", "/messages/flags", []string{"messages", ids, "op", "add", "flag", "mentioned"}, "BAD_REQUEST", "Flag not editable: 'mentioned'"},
		{"bad op", "/messages/flags", []string{"messages", ids, "op", "flip", "flag", "read"}, "BAD_REQUEST", "Invalid message flag operation: 'flip'"},
		{"too many", "/messages/flags", []string{"messages", tooMany, "op", "add", "flag", "read"}, "BAD_REQUEST", "messages is too long (limit: 5000 items)"},
		{"invalid message", "/messages/flags", []string{"messages", "[999999]", "op", "add", "flag", "starred"}, "BAD_REQUEST", "Invalid message(s)"},
		{"narrow: missing anchor", "/messages/flags/narrow", []string{"num_before", "0", "num_after", "0", "narrow", "[]", "op", "add", "flag", "read"}, "REQUEST_VARIABLE_MISSING", "Missing 'anchor' argument"},
		{"narrow: missing narrow", "/messages/flags/narrow", []string{"anchor", "newest", "num_before", "0", "num_after", "0", "op", "add", "flag", "read"}, "REQUEST_VARIABLE_MISSING", "Missing 'narrow' argument"},
		{"narrow: anchor excluded inside", "/messages/flags/narrow", []string{"anchor", "newest", "num_before", "1", "num_after", "1", "include_anchor", "false", "narrow", "[]", "op", "add", "flag", "read"}, "BAD_REQUEST", "The anchor can only be excluded at an end of the range"},
		{"narrow: bad anchor", "/messages/flags/narrow", []string{"anchor", "soon", "num_before", "1", "num_after", "0", "narrow", "[]", "op", "add", "flag", "read"}, "BAD_REQUEST", "Invalid anchor"},
		{"narrow: bad operand", "/messages/flags/narrow", []string{"anchor", "newest", "num_before", "1", "num_after", "0", "narrow", `[["is","nothing"]]`, "op", "add", "flag", "read"}, "BAD_NARROW", "Invalid narrow operator: unknown 'is' operand nothing"},
		{"narrow: invalid flag", "/messages/flags/narrow", []string{"anchor", "newest", "num_before", "1", "num_after", "0", "narrow", "[]", "op", "add", "flag", "historical"}, "BAD_REQUEST", "Flag not editable: 'historical'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.do(t, request{method: "POST", path: tt.path, auth: &member, enc: urlEncoded, params: params(tt.params...)})
			wantError(t, res, 400, tt.code, tt.msg)
		})
	}
}

// TestHTTPFlagsNarrowClamps: issue 32's finding, num_after=5000 was refused
// with "maximum 1000"; Zulip clamps num_before + num_after to 5000 instead
// (the chatcore package's TestUpdateMessageFlagsForNarrowClamps checks what
// a 5000-message range marks).
func TestHTTPFlagsNarrowClamps(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	for _, sides := range [][2]string{{"0", "5000"}, {"5000", "5000"}, {"100000", "100000"}} {
		res := e.do(t, request{method: "POST", path: "/messages/flags/narrow", auth: &member, enc: urlEncoded,
			params: params("anchor", "oldest", "num_before", sides[0], "num_after", sides[1], "narrow", "[]", "op", "add", "flag", "read")})
		wantSuccess(t, res)                              // never refused for its size
		is.True(num(t, res.body["processed_count"]) > 0) // the member's messages
		is.Equal(res.body["found_oldest"], true)         // from the oldest
		is.Equal(res.body["found_newest"], true)         // the fixture's few messages all fit
	}
}

// TestHTTPRegisterUnreadEmptyTopic: unread_msgs lists the empty topic under
// Zulip's fallback name unless client_capabilities has empty_topic_name.
func TestHTTPRegisterUnreadEmptyTopic(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	res := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
		params: params("type", "stream", "to", "general", "topic", "", "content", "no topic"),
		header: map[string]string{"User-Agent": "ZulipPython/0.9"}}) // unread for its API sender
	wantSuccess(t, res)
	id := num(t, res.body["id"])
	topicOf := func(extra ...string) any {
		t.Helper()
		res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
			params: params(append([]string{"fetch_event_types", `["message","update_message_flags"]`}, extra...)...)})
		wantSuccess(t, res)
		unread, _ := res.body["unread_msgs"].(map[string]any)
		streams, _ := unread["streams"].([]any)
		for _, st := range streams {
			st := st.(map[string]any)
			ids, _ := st["unread_message_ids"].([]any)
			if len(ids) > 0 && num(t, ids[len(ids)-1]) == id {
				return st["topic"]
			}
		}
		t.Fatalf("message %d not in unread_msgs: %s", id, res.raw)
		return nil
	}
	is.Equal(topicOf(), "general chat")                                                     // Zulip's fallback name
	is.Equal(topicOf("client_capabilities", `{"empty_topic_name": true}`), "")              // kept empty
	is.Equal(topicOf("client_capabilities", `{"empty_topic_name": false}`), "general chat") // asked not to
}
