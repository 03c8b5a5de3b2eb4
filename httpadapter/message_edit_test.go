package httpadapter_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// TestHTTPMessageHistory edits a message over HTTP and reads its history
// back: Zulip's message_history, oldest version first, with the fields
// Zulip's description of GET /messages/{message_id}/history lists.
func TestHTTPMessageHistory(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	id := messageID(t, e)
	path := fmt.Sprintf("/messages/%d", id)
	res := e.do(t, request{method: "PATCH", path: path, auth: &member, enc: urlEncoded, params: params("content", "edited", "topic", "moved")})
	wantSuccess(t, res)
	is.Equal(len(res.body), 2) // result and msg only
	res = e.do(t, request{method: "GET", path: path + "/history", auth: &member})
	wantSuccess(t, res)
	hist := res.body["message_history"].([]any)
	is.Equal(len(hist), 2)
	first, last := hist[0].(map[string]any), hist[1].(map[string]any)
	is.Equal(first["content"], "hi") // the original
	is.Equal(first["topic"], "t")
	is.Equal(last["content"], "edited")
	is.Equal(last["prev_content"], "hi")
	is.Equal(last["topic"], "moved")
	is.Equal(last["prev_topic"], "t")
	allowed := []string{"topic", "prev_topic", "stream", "prev_stream", "content", "rendered_content",
		"prev_content", "prev_rendered_content", "user_id", "content_html_diff", "timestamp"}
	for _, h := range hist {
		for k := range h.(map[string]any) {
			is.True(slices.Contains(allowed, k)) // only Zulip's fields
		}
	}
	res = e.do(t, request{method: "DELETE", path: path, auth: &member})
	wantSuccess(t, res)
	res = e.do(t, request{method: "GET", path: path + "/history", auth: &member})
	is.Equal(res.status, 400)
	is.Equal(res.body["msg"], "Invalid message(s)")
}
