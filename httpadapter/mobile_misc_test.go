package httpadapter_test

import (
	"bytes"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// idle_queue_timeout sets the lifespan of the registered queue: seconds
// within the documented bounds, or "mobile" (12 hours).
func TestRegisterIdleQueueTimeout(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	lifespan := func(t *testing.T, kv ...string) time.Duration {
		t.Helper()
		id := registerQueue(t, e, &member, kv...)
		var q *chatcore.EventQueue
		is.New(t).NoErr(e.w.Svc.View(t.Context(), func(tx chatcore.Tx) error {
			var err error
			q, err = tx.EventQueue(t.Context(), id)
			return err
		}))
		return q.Lifespan
	}
	for _, tt := range []struct {
		name string
		kv   []string
		want time.Duration
	}{
		{"default", nil, eventqueue.DefaultQueueLifespan},
		{"mobile", []string{"idle_queue_timeout", `"mobile"`}, httpadapter.MobileIdleQueueTimeout},
		{"seconds", []string{"idle_queue_timeout", "86400"}, 24 * time.Hour},
		{"at most a week", []string{"idle_queue_timeout", "99999999999999"}, eventqueue.MaxQueueLifespan},
		{"at least the default", []string{"idle_queue_timeout", "5"}, eventqueue.DefaultQueueLifespan},
		{"queue_lifespan_secs, bounded too", []string{"queue_lifespan_secs", "99999999999999"}, eventqueue.MaxQueueLifespan},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is.New(t).Equal(lifespan(t, tt.kv...), tt.want)
		})
	}
	res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("idle_queue_timeout", `"desktop"`)})
	wantError(t, res, 400, "BAD_REQUEST", `idle_queue_timeout is not an integer or "mobile"`)
}

// The files the answers' URLs name are served: the default avatar, the
// realm icon and the emoji data; GET /avatar/{user_id_or_email} redirects
// as Zulip does.
func TestStaticFilesAndAvatars(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	client := e.srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	get := func(t *testing.T, path string, c *cred) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+path, nil)
		is.New(t).NoErr(err)
		if c != nil {
			req.Header.Set("Authorization", c.basic())
		}
		res, err := client.Do(req)
		is.New(t).NoErr(err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		is.New(t).NoErr(err)
		return res, body
	}
	t.Run("files", func(t *testing.T) {
		is := is.New(t)
		res, body := get(t, "/static/images/default-avatar.png", nil)
		is.Equal(res.StatusCode, 200)
		is.Equal(res.Header.Get("Content-Type"), "image/png")
		img, err := png.Decode(bytes.NewReader(body))
		is.NoErr(err)                    // a PNG image
		is.Equal(img.Bounds().Dx(), 100) // of an avatar's size
		res, body = get(t, "/static/images/logo/zulip-icon-square.svg", nil)
		is.Equal(res.StatusCode, 200)
		is.True(bytes.HasPrefix(body, []byte("<svg"))) // an SVG image
		res, body = get(t, "/static/generated/emoji/emoji_api.json", nil)
		is.Equal(res.StatusCode, 200)
		var data struct {
			CodeToNames map[string][]string `json:"code_to_names"`
		}
		is.NoErr(json.Unmarshal(body, &data))
		is.True(len(data.CodeToNames) > 1000)                            // every emoji
		is.True(slices.Contains(data.CodeToNames["1f44d"], "thumbs_up")) // with its names
		is.Equal(data.CodeToNames["1f44d"][0], "+1")                     // the canonical one first
	})
	t.Run("avatar redirects", func(t *testing.T) {
		is := is.New(t)
		res, _ := get(t, "/avatar/14", &owner)
		is.Equal(res.StatusCode, http.StatusFound)
		me := e.do(t, request{method: "GET", path: "/users/14", auth: &owner})
		is.Equal(res.Header.Get("Location"), me.body["user"].(map[string]any)["avatar_url"]) // the user's avatar
		res, _ = get(t, "/avatar/member@acme.test/medium?s=50", &owner)
		is.Equal(res.StatusCode, http.StatusFound)
		is.True(strings.HasSuffix(res.Header.Get("Location"), "&s=50")) // the query string carried over
		res, _ = get(t, "/avatar/nobody@elsewhere.test", &owner)
		is.Equal(res.StatusCode, http.StatusFound)
		is.True(strings.HasPrefix(res.Header.Get("Location"), "https://secure.gravatar.com/avatar/")) // an address without an account: its Gravatar
		res, _ = get(t, "/avatar/21", &owner)                                                         // the other realm's user: not found here
		other := e.do(t, request{method: "GET", path: "/users/me", auth: &otherBoss})
		is.True(res.Header.Get("Location") != other.body["avatar_url"])
		res, _ = get(t, "/avatar/14", nil)
		is.Equal(res.StatusCode, 401) // only for who is logged in
	})
}

// With simplified_presence_events a queue gets presence events in the
// modern format; with slim_presence the legacy one without e-mail; without
// either the legacy one.
func TestPresenceEventFormats(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			is := is.New(t)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json", chatcore.WithPresenceFlush(10*time.Millisecond, 0))
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			modern := registerQueue(t, e, &owner, "event_types", `["presence"]`, "client_capabilities", `{"simplified_presence_events":true}`)
			slim := registerQueue(t, e, &admin, "event_types", `["presence"]`, "slim_presence", "true")
			legacy := registerQueue(t, e, &moderator, "event_types", `["presence"]`)
			wantSuccess(t, e.do(t, request{method: "POST", path: "/users/me/presence", auth: &member, enc: urlEncoded,
				params: params("status", "active", "new_user_input", "true")}))
			poll := func(c *cred, queue string) map[string]any {
				deadline := time.Now().Add(5 * time.Second)
				for {
					res := e.do(t, request{method: "GET", path: "/events", auth: c, enc: inQuery,
						params: params("queue_id", queue, "last_event_id", "-1", "dont_block", "true")})
					wantSuccess(t, res)
					checkDoc(t, servedSpec(t), "GET", "/events", res)
					evs := res.body["events"].([]any)
					if len(evs) > 0 || time.Now().After(deadline) {
						is.Equal(len(evs), 1) // the member came online
						return evs[0].(map[string]any)
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			m := poll(&owner, modern)
			is.Equal(keysOfMap(m), []string{"id", "presences", "type"})
			p := m["presences"].(map[string]any)["14"].(map[string]any)
			is.True(num(t, p["active_timestamp"]) > 0 && num(t, p["idle_timestamp"]) > 0)
			s := poll(&admin, slim)
			is.Equal(keysOfMap(s), []string{"id", "presence", "server_timestamp", "type", "user_id"})
			l := poll(&moderator, legacy)
			is.Equal(l["email"], "member@acme.test")
			_, hidden := l["chatcore_modern_presence"]
			is.True(!hidden) // the log's own keys never reach a client
		})
	}
}

// The message event reaches the sender's queue named by queue_id with
// local_message_id; the sender's other queues and other users' queues get
// it without; local_id without queue_id does nothing; both are bounded.
func TestLocalEcho(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	q1 := registerQueue(t, e, &member, "event_types", `["message"]`)
	q2 := registerQueue(t, e, &member, "event_types", `["message"]`)
	qo := registerQueue(t, e, &owner, "event_types", `["message"]`)
	send := func(kv ...string) *response {
		return e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
			params: params(append([]string{"type", "stream", "to", "general", "topic", "echo", "content", "hi"}, kv...)...)})
	}
	wantSuccess(t, send("local_id", "a1", "queue_id", q1))
	wantSuccess(t, send("local_id", "a2"))
	wantSuccess(t, send("local_id", "a3", "queue_id", qo)) // another user's queue: nothing
	poll := func(c *cred, q string) []any {
		res := e.do(t, request{method: "GET", path: "/events", auth: c, enc: inQuery, params: params("queue_id", q, "last_event_id", "-1")})
		wantSuccess(t, res)
		var out []any
		for _, ev := range res.body["events"].([]any) {
			out = append(out, ev.(map[string]any)["local_message_id"])
		}
		return out
	}
	is.Equal(poll(&member, q1), []any{"a1", nil, nil}) // the sending queue only
	is.Equal(poll(&member, q2), []any{nil, nil, nil})
	is.Equal(poll(&owner, qo), []any{nil, nil, nil})
	wantError(t, send("local_id", strings.Repeat("x", 101), "queue_id", q1), 400, "BAD_REQUEST", "local_id is too long (limit: 100 characters)")
}

// max_file_upload_size_mib tells the Service's limit.
func TestRegisterMaxFileUploadSize(t *testing.T) {
	e := newEnv(t, httpadapter.Options{}, chatcore.WithMaxFileUploadSizeMiB(7))
	res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("fetch_event_types", `["realm"]`)})
	wantSuccess(t, res)
	is.New(t).Equal(num(t, res.body["max_file_upload_size_mib"]), int64(7))
}
