package httpadapter_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// The request shapes below are those of the real clients, byte for byte where
// it matters: zulip-js 2.1.0 sends PATCH, DELETE and GET parameters in the
// query string and POST bodies as multipart/form-data; the Python client 0.9.1
// sends every non-GET method, DELETE included, as a urlencoded body with
// non-string values JSON-encoded, and adds dont_block when it retries.

func TestReplayPythonClient(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	python := func(method, path, body string) *http.Request {
		req, err := http.NewRequest(method, e.srv.URL+"/api/v1"+path, strings.NewReader(body))
		is.New(t).NoErr(err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("User-Agent", "ZulipPython/0.9.1 (Linux; Python 3.12.3)")
		req.Header.Set("Authorization", admin.basic())
		return req
	}
	t.Run("PATCH with JSON-encoded non-strings", func(t *testing.T) {
		is := is.New(t)
		res := e.send(t, python("PATCH", "/settings", "enter_sends=true&web_font_size_px=18&emojiset=text&default_language=de"))
		wantSuccess(t, res)
		reg := e.send(t, python("POST", "/register", ""))
		s := reg.body["user_settings"].(map[string]any)
		is.Equal(s["enter_sends"], true)                   // JSON true
		is.Equal(num(t, s["web_font_size_px"]), int64(18)) // JSON integer
		is.Equal(s["emojiset"], "text")                    // plain string taken literally
	})
	t.Run("DELETE with an (empty) urlencoded body", func(t *testing.T) {
		res := e.send(t, python("DELETE", "/scheduled_messages/2002", ""))
		wantSuccess(t, res)
	})
	t.Run("DELETE with parameters in the body", func(t *testing.T) {
		is := is.New(t)
		res := e.send(t, python("DELETE", "/users/17", `deactivation_notification_comment=bye&actions=%7B%22delete_profile%22%3A+true%7D`))
		wantSuccess(t, res)
		u := e.do(t, request{method: "GET", path: "/users/17", auth: &admin})
		is.Equal(u.body["user"].(map[string]any)["full_name"], "Deleted user") // actions were read from the DELETE body
	})
	t.Run("POST /messages records the client name", func(t *testing.T) {
		is := is.New(t)
		res := e.send(t, python("POST", "/messages", "type=stream&to=general&topic=py&content=from+python"))
		wantSuccess(t, res)
		id := num(t, res.body["id"])
		got := e.do(t, request{method: "GET", path: "/messages/" + itoa(id), auth: &admin})
		is.Equal(got.body["message"].(map[string]any)["client"], "ZulipPython") // from the User-Agent
	})
	t.Run("retry with dont_block", func(t *testing.T) {
		is := is.New(t)
		res := e.send(t, python("POST", "/register", "dont_block=true"))
		wantSuccess(t, res)
		is.Equal(ignoredOf(res), []string{"dont_block"}) // tolerated, reported like any unread parameter
	})
}

func TestReplayZulipJS(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("PATCH in the query string, no body", func(t *testing.T) {
		is := is.New(t)
		req, err := http.NewRequest("PATCH", e.srv.URL+"/api/v1/settings?color_scheme=3&enable_sounds=false", nil)
		is.NoErr(err)
		req.Header.Set("Authorization", member.basic())
		wantSuccess(t, e.send(t, req))
		reg := e.do(t, request{method: "POST", path: "/register", auth: &member})
		is.Equal(num(t, reg.body["user_settings"].(map[string]any)["color_scheme"]), int64(3)) // read from the query
	})
	t.Run("multipart POST with a file part", func(t *testing.T) {
		is := is.New(t)
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		is.NoErr(mw.WriteField("topic_name", "doomed"))
		fw, err := mw.CreateFormFile("attachment", "a.txt")
		is.NoErr(err)
		_, _ = fw.Write([]byte("file content"))
		is.NoErr(mw.Close())
		req, err := http.NewRequest("POST", e.srv.URL+"/api/v1/streams/61/delete_topic", &buf)
		is.NoErr(err)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", admin.basic())
		res := e.send(t, req)
		wantSuccess(t, res)
		is.Equal(res.body["complete"], true)             // the field part was read
		is.Equal(ignoredOf(res), []string{"attachment"}) // the file part is an unread parameter
	})
}

func TestRealmIsolation(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	// The owner of another realm sees acme's objects exactly as missing ones.
	cases := []struct {
		method, path string
		status       int
		code, msg    string
	}{
		{"GET", "/users/14", 400, "BAD_REQUEST", "No such user"},
		{"DELETE", "/users/14", 400, "BAD_REQUEST", "No such user"},
		{"DELETE", "/scheduled_messages/2001", 404, "BAD_REQUEST", "Scheduled message does not exist"},
		{"DELETE", "/reminders/3001", 404, "BAD_REQUEST", "Reminder does not exist"},
		{"DELETE", "/realm/filters/4001", 400, "BAD_REQUEST", "Linkifier not found."},
		{"GET", "/messages/1001", 400, "BAD_REQUEST", "Invalid message(s)"},
	}
	for _, tt := range cases {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			res := e.do(t, request{method: tt.method, path: tt.path, auth: &otherBoss})
			wantError(t, res, tt.status, tt.code, tt.msg)
		})
	}
	t.Run("topic deletion", func(t *testing.T) {
		res := e.do(t, request{method: "POST", path: "/streams/61/delete_topic", auth: &otherBoss, params: params("topic_name", "lunch")})
		wantError(t, res, 400, "BAD_REQUEST", "Invalid channel ID")
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
