package httpadapter_test

// Limits over HTTP: hostile or oversized requests get a 4xx with Zulip's
// JSON error envelope, never a 5xx, a hang or a dropped connection.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// limRaw sends a request with a raw body and content type as member.
func (e *env) limRaw(t *testing.T, method, path, contentType, body string) *response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, e.srv.URL+"/api/v1"+path, strings.NewReader(body))
	is.New(t).NoErr(err) // the request is well formed
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", member.basic())
	return e.send(t, req)
}

// limNoServerError checks that res is a well-formed 4xx error.
func limNoServerError(t *testing.T, res *response) {
	t.Helper()
	is := is.New(t)
	if res.status >= 500 {
		t.Logf("body: %s", res.raw)
	}
	is.True(res.status >= 400 && res.status < 500) // a client error, never a server error
	is.Equal(res.body["result"], "error")          // the error envelope
	msg, _ := res.body["msg"].(string)
	is.True(msg != "") // saying what is wrong
}

func TestLimitBodySizeDefault(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	limit := httpadapter.DefaultMaxBodyBytes
	big := strings.Repeat("x", int(limit))
	for _, enc := range []encoding{urlEncoded, multiPart} {
		t.Run(enc.String(), func(t *testing.T) {
			res := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: enc,
				params: params("type", "stream", "to", "general", "topic", "t", "content", big)})
			wantError(t, res, http.StatusRequestEntityTooLarge, "BAD_REQUEST",
				fmt.Sprintf("Request body too large (limit: %d bytes)", limit))
		})
	}
	t.Run("just under the limit is read", func(t *testing.T) {
		is := is.New(t)
		content := strings.Repeat("y", int(limit)-200)
		res := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
			params: params("type", "stream", "to", "general", "topic", "t", "content", content)})
		wantSuccess(t, res)
		_, ok := res.body["id"].(json.Number)
		is.True(ok) // the message was sent
	})
}

func TestLimitTruncationOverHTTP(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	is := is.New(t)
	res := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: multiPart,
		params: params("type", "stream", "to", "general", "topic", strings.Repeat("ü", 100),
			"content", strings.Repeat("é", 20000))})
	wantSuccess(t, res)
	got := e.do(t, request{method: "GET", path: "/messages/" + fmt.Sprint(res.body["id"]), auth: &member})
	wantSuccess(t, got)
	msg, _ := got.body["message"].(map[string]any)
	subject, _ := msg["subject"].(string)
	content, _ := got.body["raw_content"].(string)
	is.Equal(subject, strings.Repeat("ü", 57)+"...")             // the topic is cut to 60 characters
	is.True(len(content) <= 10000 && utf8.ValidString(content))  // the content to 10,000 bytes, whole characters
	is.True(strings.HasSuffix(content, "\n[message truncated]")) // with Zulip's marker
}

func TestLimitBadBytesOverHTTP(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	send := func(topic, content string) request {
		return request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
			params: params("type", "stream", "to", "general", "topic", topic, "content", content)}
	}
	for _, tt := range []struct {
		name string
		req  request
		msg  string
	}{
		{"NUL in content", send("t", "a\x00b"), "Message must not contain null bytes"},
		{"NUL in topic", send("a\x00", "hi"), "Invalid character in topic, at position 2!"},
		{"invalid UTF-8 in content", send("t", "a\xffb"), "content is not valid UTF-8"},
		{"invalid UTF-8 in topic", send("t\xc3", "hi"), "topic is not valid UTF-8"},
		{"invalid UTF-8 in a JSON parameter", request{method: "PATCH", path: "/settings", auth: &member, enc: urlEncoded,
			params: params("target_users", "{\"user_ids\": [\"\xff\"]}")}, "target_users is not valid UTF-8"},
		{"invalid UTF-8 in a parameter name", request{method: "PATCH", path: "/settings", auth: &member, enc: multiPart,
			params: params("enter_sends\xff", "true")}, "Invalid UTF-8 in a parameter name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := e.do(t, tt.req)
			wantError(t, res, http.StatusBadRequest, "BAD_REQUEST", tt.msg)
		})
	}
	t.Run("NUL and invalid UTF-8 in the raw query string", func(t *testing.T) {
		for _, q := range []string{"?apply_markdown=%00", "?%ff=1", "?narrow=%5B%ff%5D", "?anchor=%00%00"} {
			req, err := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+"/api/v1/messages"+q, nil)
			is.New(t).NoErr(err)
			req.Header.Set("Authorization", member.basic())
			limNoServerError(t, e.send(t, req))
		}
	})
}

func TestLimitNestedJSONOverHTTP(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	t.Run("target_users", func(t *testing.T) {
		res := e.do(t, request{method: "PATCH", path: "/settings", auth: &admin, enc: urlEncoded,
			params: params("target_users", `{"user_ids": `+deep+`, "skip_if_already_edited": true}`, "enter_sends", "true")})
		wantError(t, res, http.StatusBadRequest, "BAD_REQUEST", "target_users is nested too deeply")
	})
	t.Run("narrow", func(t *testing.T) {
		res := e.do(t, request{method: "GET", path: "/messages", auth: &member, enc: inQuery,
			params: params("narrow", deep, "anchor", "newest", "num_before", "1", "num_after", "0")})
		wantError(t, res, http.StatusBadRequest, "BAD_REQUEST", "narrow is nested too deeply")
	})
	t.Run("actions", func(t *testing.T) {
		res := e.do(t, request{method: "DELETE", path: "/users/17", auth: &owner, enc: inQuery,
			params: params("actions", `{"delete_profile": `+strings.Repeat("[", 50)+"true"+strings.Repeat("]", 50)+`}`)})
		wantError(t, res, http.StatusBadRequest, "BAD_REQUEST", "actions is nested too deeply")
	})
}

func TestLimitTargetUsersOverHTTP(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	var b strings.Builder
	b.WriteString(`{"skip_if_already_edited": true, "user_ids": [`)
	for i := range 10_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, 900_000+i)
	}
	b.WriteString("]}")
	start := time.Now()
	res := e.do(t, request{method: "PATCH", path: "/settings", auth: &admin, enc: urlEncoded,
		params: params("target_users", b.String(), "color_scheme", "2")})
	t.Logf("10,000 unknown ids refused in %v", time.Since(start))
	wantError(t, res, http.StatusBadRequest, "BAD_REQUEST", "Invalid user ID: 900000")
}

func TestLimitHostileRequestsNever5xx(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	for _, tt := range []struct {
		name, method, path, contentType, body string
	}{
		{"truncated multipart", "POST", "/messages", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\nhal"},
		{"multipart without parts", "POST", "/messages", "multipart/form-data; boundary=xyz", "--xyz--\r\n"},
		{"multipart with a bad header", "POST", "/messages", "multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition\r\n\r\nx\r\n--xyz--\r\n"},
		{"bad percent-encoding", "POST", "/messages", "application/x-www-form-urlencoded", "type=stream&content=%zz"},
		{"semicolons", "PATCH", "/settings", "application/x-www-form-urlencoded", "enter_sends=true;color_scheme=2"},
		{"bad content type", "POST", "/messages", "multipart/form-data; boundary=\"", "x"},
		{"many parameters", "PATCH", "/settings", "application/x-www-form-urlencoded", strings.Repeat("a=1&", 100_000)},
		{"one long parameter name", "PATCH", "/settings", "application/x-www-form-urlencoded", strings.Repeat("n", 500_000) + "=1"},
		{"JSON parameter of the wrong shape", "PATCH", "/settings", "application/x-www-form-urlencoded", "target_users=%7B%22user_ids%22%3A%7B%7D%7D"},
		{"NUL in an id", "DELETE", "/users/17%00", "", ""},
		{"huge id", "DELETE", "/users/99999999999999999999999", "", ""},
		{"negative id", "POST", "/streams/-1/delete_topic", "application/x-www-form-urlencoded", "topic_name=x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := e.limRaw(t, tt.method, tt.path, tt.contentType, tt.body)
			t.Logf("status %d: %s", res.status, res.body["msg"])
			if res.status == http.StatusOK {
				return // harmless input may well be accepted (unknown names are ignored)
			}
			limNoServerError(t, res)
		})
	}
	is.New(t).True(!strings.Contains(e.log.String(), "level=ERROR")) // nothing was logged as an internal failure
}
