package httpadapter_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

func TestServerSettings(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{}, chatcore.WithExternalURL("https://chat.example/"))
	res := e.do(t, request{method: "GET", path: "/server_settings"})
	wantSuccess(t, res)
	is.Equal(res.body["zulip_version"], "chatcore "+chatcore.Version)               // names chatcore and its version
	is.Equal(num(t, res.body["zulip_feature_level"]), int64(chatcore.FeatureLevel)) // feature level 467
	is.Equal(res.body["realm_name"], "Acme Corp")                                   // the lowest-id realm
	is.Equal(res.body["realm_url"], "https://chat.example")                         // the Service's external URL, no trailing slash
	methods, ok := res.body["authentication_methods"].(map[string]any)
	is.True(ok)                                    // authentication_methods is an object
	is.Equal(methods["password"], true)            // password login is on
	is.Equal(res.body["email_auth_enabled"], true) // e-mail auth is on

	t.Run("named realm", func(t *testing.T) {
		is := is.New(t)
		e := newEnv(t, httpadapter.Options{Realm: "other"})
		res := e.do(t, request{method: "GET", path: "/server_settings"})
		wantSuccess(t, res)
		is.Equal(res.body["realm_name"], "Other Inc") // Options.Realm picks the realm
	})
	t.Run("credentials are not needed but tolerated", func(t *testing.T) {
		res := e.do(t, request{method: "GET", path: "/server_settings", auth: &gone})
		wantSuccess(t, res)
	})
}

func TestAuthentication(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	b64 := func(s string) string { return "Basic " + base64Std(s) }
	tests := []struct {
		name   string
		header string // "" means no Authorization header
		status int
		code   string
		msg    string
	}{
		{"missing header", "", 401, "UNAUTHORIZED", "Missing authorization header for basic auth"},
		{"other scheme", "Bearer abc", 400, "BAD_REQUEST", "This endpoint requires HTTP basic authentication."},
		{"one token", "Basic", 401, "UNAUTHORIZED", "Invalid authorization header for basic auth"},
		{"three tokens", "Basic a b", 401, "UNAUTHORIZED", "Invalid authorization header for basic auth"},
		{"not base64", "Basic !!!", 401, "UNAUTHORIZED", "Invalid authorization header for basic auth"},
		{"no colon", b64("member@acme.test"), 401, "UNAUTHORIZED", "Invalid authorization header for basic auth"},
		{"two colons", b64("a:b:c"), 401, "UNAUTHORIZED", "Invalid authorization header for basic auth"},
		{"malformed key", b64("member@acme.test:short"), 401, "UNAUTHORIZED", "Malformed API key"},
		{"unknown key", b64("member@acme.test:zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"), 401, "UNAUTHORIZED", "Invalid API key"},
		{"key of another user", b64("admin@acme.test:" + member.key), 401, "UNAUTHORIZED", "Invalid API key"},
		{"deactivated user", gone.basic(), 401, "UNAUTHORIZED", "Account is deactivated"},
		{"incoming webhook bot", hookBot.basic(), 401, "UNAUTHORIZED", "This API is not available to incoming webhook bots."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := request{method: "GET", path: "/users/me"}
			if tt.header != "" {
				r.header = map[string]string{"Authorization": tt.header}
			}
			res := e.do(t, r)
			wantError(t, res, tt.status, tt.code, tt.msg)
			if tt.status == 401 {
				is.Equal(res.header.Get("WWW-Authenticate"), `Basic realm="zulip"`) // 401s challenge for Basic auth
			}
		})
	}
	t.Run("e-mail is case-insensitive and whitespace is stripped", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/users/me",
			header: map[string]string{"Authorization": b64(" MEMBER@Acme.Test : " + member.key + " ")}})
		wantSuccess(t, res)
		is.Equal(num(t, res.body["user_id"]), int64(14)) // the member
	})
	t.Run("scheme is case-insensitive", func(t *testing.T) {
		res := e.do(t, request{method: "GET", path: "/users/me",
			header: map[string]string{"Authorization": "bAsIc " + base64Std(member.email+":"+member.key)}})
		wantSuccess(t, res)
	})
}

// TestUncleanPathsAreJSON404 checks that paths the standard mux would
// redirect to their clean form (with an HTML 307) get the envelope's 404, as
// in Zulip, whose URLconf matches the path as sent; the redirect is not
// followed, so a client never reaches the clean route by accident.
func TestUncleanPathsAreJSON404(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tt := range []struct{ method, path string }{
		{"GET", "/api/v1//users/me"},
		{"GET", "//api/v1/users/me"},
		{"GET", "/api/v1/./users/me"},
		{"GET", "/api/v1/users/../users/me"},
		{"GET", "/api/v1/users/me/."},
		{"HEAD", "/api/v1//users/me"},
		{"POST", "/api/v1//messages"},
		{"DELETE", "/api/v1/realm/filters//4001"},
		{"OPTIONS", "/api/v1//users/me"},
		{"GET", "/accounts//confirm_new_email/x"},
		{"GET", "/api/v1//nothing"},
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			is := is.New(t)
			req, err := http.NewRequestWithContext(t.Context(), tt.method, e.srv.URL+tt.path, nil)
			is.NoErr(err)
			req.Header.Set("Authorization", member.basic())
			res, err := client.Do(req)
			is.NoErr(err) // the server answers
			defer res.Body.Close()
			raw, err := io.ReadAll(res.Body)
			is.NoErr(err)
			is.Equal(res.StatusCode, http.StatusNotFound)                // not a redirect
			is.Equal(res.Header.Get("Location"), "")                     // to nowhere
			is.Equal(res.Header.Get("Content-Type"), "application/json") // the envelope
			if tt.method != "HEAD" {
				var body map[string]any
				is.NoErr(json.Unmarshal(raw, &body))  // a JSON object
				is.Equal(body["result"], "error")     // the error envelope
				is.Equal(body["msg"], "Not Found")    // Zulip's 404 text
				is.Equal(body["code"], "BAD_REQUEST") // and code
			}
		})
	}
}

func TestNotFoundAndMethodNotAllowed(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	notFound := []struct{ method, path string }{
		{"GET", "/nope"},
		{"GET", "/messages/abc"},
		{"GET", "/messages/-1"},
		{"PATCH", "/messages/-1"},
		{"GET", "/realm/filters/abc"},
		{"DELETE", "/scheduled_messages/+5"},
		{"DELETE", "/scheduled_messages/1x"},
		{"DELETE", "/reminders/99999999999999999999999"},
		{"DELETE", "/realm/filters/abc"},
		{"POST", "/streams/general/delete_topic"},
		{"GET", "/users/me/extra"},
	}
	for _, tt := range notFound {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			// Unknown paths answer 404 before authentication, like a route that does not exist.
			res := e.do(t, request{method: tt.method, path: tt.path})
			wantError(t, res, 404, "BAD_REQUEST", "Not Found")
		})
	}
	t.Run("outside the API", func(t *testing.T) {
		res := e.do(t, request{method: "GET", path: "/accounts/nothing"})
		wantError(t, res, 404, "BAD_REQUEST", "Not Found")
	})
	methods := []struct {
		method, path string
		allowed      []string
	}{
		{"PUT", "/settings", []string{"PATCH"}},
		{"GET", "/realm/filters/4001", []string{"DELETE", "PATCH"}},
		{"POST", "/users/me", []string{"GET", "HEAD"}}, // "me" is its own path, not an id
		{"PATCH", "/reminders", []string{"GET", "HEAD", "POST"}},
	}
	for _, tt := range methods {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			is := is.New(t)
			res := e.do(t, request{method: tt.method, path: tt.path, auth: &member})
			is.Equal(res.status, 405)                       // wrong method
			is.Equal(res.body["result"], "error")           // error envelope
			is.Equal(res.body["msg"], "Method Not Allowed") // Zulip's text
			_, hasCode := res.body["code"]
			is.True(!hasCode) // Zulip's 405 has no code
			var got []string
			for _, m := range res.body["allowed_methods"].([]any) {
				got = append(got, m.(string))
			}
			is.Equal(got, tt.allowed)                                         // the methods the path accepts
			is.Equal(res.header.Get("Allow"), strings.Join(tt.allowed, ", ")) // and the Allow header
		})
	}
}

func TestIncomingWebhookBot(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("may send messages", func(t *testing.T) {
		is := is.New(t)
		for _, enc := range encodings {
			res := e.do(t, request{method: "POST", path: "/messages", auth: &hookBot, enc: enc,
				params: params("type", "stream", "to", "general", "topic", "ci", "content", "build passed")})
			wantSuccess(t, res)
			got := e.do(t, request{method: "GET", path: "/messages/" + itoa(num(t, res.body["id"])), auth: &member})
			wantSuccess(t, got)
			is.Equal(num(t, got.body["message"].(map[string]any)["sender_id"]), int64(32)) // sent by the webhook bot
		}
	})
	t.Run("the Service's rules still apply", func(t *testing.T) {
		res := e.do(t, request{method: "POST", path: "/messages", auth: &hookBot, enc: urlEncoded,
			params: params("type", "stream", "to", "nonexistent", "topic", "ci", "content", "x")})
		wantError(t, res, 400, "STREAM_DOES_NOT_EXIST", "Channel 'nonexistent' does not exist")
	})
	refused := []struct{ method, path string }{
		{"GET", "/messages"},
		{"POST", "/register"},
		{"POST", "/scheduled_messages"},
		{"GET", "/users/me"},
		{"GET", "/realm/linkifiers"},
	}
	for _, tt := range refused {
		t.Run("refused on "+tt.method+" "+tt.path, func(t *testing.T) {
			is := is.New(t)
			res := e.do(t, request{method: tt.method, path: tt.path, auth: &hookBot})
			wantError(t, res, 401, "UNAUTHORIZED", "This API is not available to incoming webhook bots.")
			is.Equal(res.header.Get("WWW-Authenticate"), `Basic realm="zulip"`) // challenged like any 401
		})
	}
}

func TestOptions(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	known := []struct {
		path  string
		allow string
	}{
		{"/messages", "GET, HEAD, POST"},
		{"/messages/1014", "DELETE, GET, HEAD, PATCH"},
		{"/users/14", "DELETE, GET, HEAD, PATCH"},
		{"/users/0", "DELETE, GET, HEAD, PATCH"},
		{"/settings", "PATCH"},
		{"/realm/filters/4001", "DELETE, PATCH"},
		{"/server_settings", "GET, HEAD"},
	}
	for _, tt := range known {
		for _, auth := range []*cred{nil, &member, &hookBot, &gone} {
			name := tt.path + " without credentials"
			if auth != nil {
				name = tt.path + " as " + auth.email
			}
			t.Run(name, func(t *testing.T) {
				is := is.New(t)
				req, err := http.NewRequest(http.MethodOptions, e.srv.URL+"/api/v1"+tt.path, nil)
				is.NoErr(err)
				if auth != nil {
					req.Header.Set("Authorization", auth.basic())
				}
				res, err := e.srv.Client().Do(req)
				is.NoErr(err) // the server answers
				defer res.Body.Close()
				body, err := io.ReadAll(res.Body)
				is.NoErr(err)
				is.Equal(res.StatusCode, http.StatusNoContent) // answered before authentication
				is.Equal(res.Header.Get("Allow"), tt.allow)    // the path's methods, sorted
				is.Equal(len(body), 0)                         // no content
			})
		}
	}
	t.Run("nothing changes", func(t *testing.T) {
		is := is.New(t)
		req, err := http.NewRequest(http.MethodOptions, e.srv.URL+"/api/v1/users/17", nil)
		is.NoErr(err)
		req.Header.Set("Authorization", admin.basic())
		res, err := e.srv.Client().Do(req)
		is.NoErr(err)
		res.Body.Close()
		is.Equal(res.StatusCode, http.StatusNoContent) // OPTIONS, not DELETE
		u := e.do(t, request{method: "GET", path: "/users/17", auth: &admin})
		is.Equal(u.body["user"].(map[string]any)["is_active"], true) // the user is still active
	})
	for _, path := range []string{"/nope", "/messages/abc", "/messages/-1", "/users/me/extra"} {
		t.Run("unknown "+path, func(t *testing.T) {
			res := e.do(t, request{method: http.MethodOptions, path: path})
			wantError(t, res, 404, "BAD_REQUEST", "Not Found")
		})
	}
}

func TestBodyLimit(t *testing.T) {
	e := newEnv(t, httpadapter.Options{MaxBodyBytes: 64})
	long := strings.Repeat("x", 100)
	for _, enc := range []encoding{urlEncoded, multiPart} {
		t.Run(enc.String(), func(t *testing.T) {
			res := e.do(t, request{method: "PATCH", path: "/settings", auth: &member, enc: enc,
				params: params("full_name", long)})
			wantError(t, res, 413, "BAD_REQUEST", "Request body too large (limit: 64 bytes)")
		})
	}
	t.Run("chunked body without length", func(t *testing.T) {
		req, err := http.NewRequest("PATCH", e.srv.URL+"/api/v1/settings",
			strings.NewReader(url.Values{"full_name": {long}}.Encode()))
		is.New(t).NoErr(err)
		req.ContentLength = -1 // forces chunked transfer: the limit applies while reading
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", member.basic())
		res := e.send(t, req)
		wantError(t, res, 413, "BAD_REQUEST", "Request body too large (limit: 64 bytes)")
	})
	t.Run("small body passes", func(t *testing.T) {
		res := e.do(t, request{method: "GET", path: "/users/me", auth: &member, enc: urlEncoded,
			params: params("a", "b")})
		wantSuccess(t, res)
	})
}

func TestMalformedInput(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("query string", func(t *testing.T) {
		req, err := http.NewRequest("GET", e.srv.URL+"/api/v1/users/me?a=%zz", nil)
		is.New(t).NoErr(err)
		req.Header.Set("Authorization", member.basic())
		wantError(t, e.send(t, req), 400, "BAD_REQUEST", "Malformed query string")
	})
	t.Run("multipart without boundary", func(t *testing.T) {
		req, err := http.NewRequest("POST", e.srv.URL+"/api/v1/register", strings.NewReader("x"))
		is.New(t).NoErr(err)
		req.Header.Set("Authorization", member.basic())
		req.Header.Set("Content-Type", "multipart/form-data")
		wantError(t, e.send(t, req), 400, "BAD_REQUEST", "Malformed request body")
	})
	t.Run("JSON body is not read", func(t *testing.T) {
		is := is.New(t)
		req, err := http.NewRequest("GET", e.srv.URL+"/api/v1/users/me", strings.NewReader(`{"a":1}`))
		is.NoErr(err)
		req.Header.Set("Authorization", member.basic())
		req.Header.Set("Content-Type", "application/json")
		res := e.send(t, req)
		wantSuccess(t, res)
		is.Equal(ignoredOf(res), []string(nil)) // a JSON body carries no parameters, as in Zulip
	})
}

func TestIgnoredParameters(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	for _, enc := range encodings {
		t.Run(enc.String(), func(t *testing.T) {
			is := is.New(t)
			res := e.do(t, request{method: "GET", path: "/users/me", auth: &member, enc: enc,
				params: params("zeta", "1", "Alpha", "2", "beta", "3", "dont_block", "true")})
			wantSuccess(t, res)
			is.Equal(ignoredOf(res), []string{"Alpha", "beta", "dont_block", "zeta"}) // sorted by byte order
		})
	}
	t.Run("query and body names merge", func(t *testing.T) {
		is := is.New(t)
		req, err := http.NewRequest("GET", e.srv.URL+"/api/v1/users?b=1&a=1", strings.NewReader("c=1&a=2"))
		is.NoErr(err)
		req.Header.Set("Authorization", member.basic())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res := e.send(t, req)
		wantSuccess(t, res)
		is.Equal(ignoredOf(res), []string{"a", "b", "c"}) // one entry per name, from both sources
	})
	t.Run("none: key absent", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/users/me", auth: &member})
		wantSuccess(t, res)
		_, ok := res.body["ignored_parameters_unsupported"]
		is.True(!ok) // left out when nothing was ignored
	})
}

func TestRateLimit(t *testing.T) {
	is := is.New(t)
	now := time.Unix(1_800_000_000, 0)
	e := newEnv(t, httpadapter.Options{
		RateLimit: &httpadapter.RateLimit{Requests: 3, Per: time.Minute},
		Now:       func() time.Time { return now },
	})
	for i := range 3 {
		res := e.do(t, request{method: "GET", path: "/users/me", auth: &member})
		wantSuccess(t, res)
		is.Equal(res.header.Get("X-RateLimit-Limit"), "3")                   // the bucket size
		is.Equal(res.header.Get("X-RateLimit-Remaining"), strconv.Itoa(2-i)) // counts down
	}
	res := e.do(t, request{method: "GET", path: "/users/me", auth: &member})
	wantError(t, res, 429, "RATE_LIMIT_HIT", "API usage exceeded rate limit")
	is.Equal(num(t, res.body["retry-after"]), int64(20))                                              // one token comes back every 20 s
	is.Equal(res.header.Get("Retry-After"), "20")                                                     // also as a header
	is.Equal(res.header.Get("X-RateLimit-Remaining"), "0")                                            // nothing left
	is.Equal(res.header.Get("X-RateLimit-Reset"), strconv.FormatInt(now.Add(time.Minute).Unix(), 10)) // full again in a minute

	other := e.do(t, request{method: "GET", path: "/users/me", auth: &admin})
	wantSuccess(t, other) // limits are per user

	public := e.do(t, request{method: "GET", path: "/server_settings"})
	wantSuccess(t, public) // unauthenticated endpoints are not limited per user

	now = now.Add(20 * time.Second)
	again := e.do(t, request{method: "GET", path: "/users/me", auth: &member})
	wantSuccess(t, again) // a token has come back
}

func TestInternalError(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	req, err := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+"/api/v1/users/me", nil)
	is.NoErr(err)
	req.Header.Set("Authorization", member.basic())
	// Close the store: every further store access fails with an internal error.
	is.NoErr(e.w.Store.Close())
	res := e.send(t, req)
	is.Equal(res.status, 500)                                                // internal failure
	is.Equal(res.body["result"], "error")                                    // error envelope
	is.Equal(res.body["msg"], "Internal server error")                       // generic text
	is.Equal(len(res.body), 2)                                               // no code, nothing leaked
	is.True(strings.Contains(e.log.String(), "httpadapter: internal error")) // logged
}

func base64Std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestErrorsMatchSpec(t *testing.T) {
	spec(t)
	e := newEnv(t, httpadapter.Options{RateLimit: &httpadapter.RateLimit{Requests: 1, Per: time.Hour}})
	unauth := e.do(t, request{method: "GET", path: "/reminders"})
	wantError(t, unauth, 401, "UNAUTHORIZED", "Missing authorization header for basic auth")
	checkSpec(t, "GET", "/reminders", unauth)
	bad := e.do(t, request{method: "POST", path: "/reminders", auth: &member})
	wantError(t, bad, 400, "REQUEST_VARIABLE_MISSING", "Missing 'message_id' argument")
	checkSpec(t, "POST", "/reminders", bad)
	limited := e.do(t, request{method: "GET", path: "/reminders", auth: &member})
	wantError(t, limited, 429, "RATE_LIMIT_HIT", "API usage exceeded rate limit")
	checkSpec(t, "GET", "/reminders", limited)
}

func TestConcurrentRequests(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{RateLimit: &httpadapter.RateLimit{Requests: 1000, Per: time.Minute}})
	users := []cred{owner, admin, moderator, member, guest}
	statuses := make(chan int, len(users)*20*2)
	var wg sync.WaitGroup
	for _, u := range users {
		wg.Go(func() {
			for i := range 20 {
				req, err := http.NewRequest("PATCH", e.srv.URL+"/api/v1/settings?web_font_size_px="+strconv.Itoa(12+i), nil)
				if err != nil {
					statuses <- -1
					continue
				}
				req.Header.Set("Authorization", u.basic())
				for _, r := range []*http.Request{req, mustGet(e.srv.URL+"/api/v1/users/me", u)} {
					res, err := e.srv.Client().Do(r)
					if err != nil {
						statuses <- -1
						continue
					}
					res.Body.Close()
					statuses <- res.StatusCode
				}
			}
		})
	}
	wg.Wait()
	close(statuses)
	n := 0
	for s := range statuses {
		is.Equal(s, 200) // every concurrent request succeeds
		n++
	}
	is.Equal(n, len(users)*20*2) // all answered
}

func mustGet(u string, c cred) *http.Request {
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Authorization", c.basic())
	return req
}
