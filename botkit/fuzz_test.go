package botkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/botkit"
	"github.com/chatcore/chatcore/outgoing"
)

// FuzzDecode feeds arbitrary bodies to the receiver's decoder and to Handler.
// Decode either fails or returns a payload whose JSON encoding survives a
// decode-encode round trip unchanged (what a bot reads is what the server meant), and Handler answers
// every body with 200, 400 or 401 and a JSON body, calling the bot function
// only for a verified payload.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"bot_email": "echo-bot@acme.test", "bot_full_name": "Echo Bot", "data": "@**Echo Bot** hi", "trigger": "mention", "token": "s3cret",
		  "message": {"id": 1, "content": "@**Echo Bot** hi", "display_recipient": "general", "subject": "t", "type": "stream", "stream_id": 61,
		  "reactions": [], "submessages": [], "topic_links": [], "timestamp": 1767261600}}`,
		`{"token": "s3cret", "trigger": "direct_message", "message": {"display_recipient": [{"id": 14, "email": "a@b.test", "full_name": "A", "is_mirror_dummy": false}], "type": "private"}}`,
		`{"token": "s3cret", "message": {"display_recipient": [1, 2]}}`,
		`{"token": "s3cret", "message": {"display_recipient": {"id": 1}}}`,
		`{"token": "s3cret", "message": {"display_recipient": null}}`,
		`{"token": "s3cret", "message": {"edit_history": [{"user_id": 1, "timestamp": 2, "prev_topic": "a", "topic": "b"}], "avatar_url": null}}`,
		`{"token": "wrong"}`,
		`{"token": ""}`,
		`{"token": "s3cret", "message": {"id": 1e400}}`,
		`{"token": "s3cret", "message": {"id": -1, "timestamp": 9223372036854775808}}`,
		`{"token": "s3cret", "data": "\ud800"}`,
		`{"token": "s3cret"} {"token": "s3cret"}`,
		`[` + strings.Repeat(`[`, 20000) + strings.Repeat(`]`, 20000) + `]`,
		`null`,
		``,
		"\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := botkit.Decode(httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		if err == nil {
			b, err := json.Marshal(p)
			if err != nil {
				t.Fatalf("a decoded payload does not encode: %v", err)
			}
			again, err := botkit.Decode(httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(b)))
			if err != nil {
				t.Fatalf("re-decoding %s: %v", b, err)
			}
			// Compared as JSON: an empty list and an absent one are the
			// same payload (edit_history is omitted when empty).
			b2, err := json.Marshal(again)
			if err != nil || !bytes.Equal(b, b2) {
				t.Fatalf("payload does not round-trip:\n%s\n%s", b, b2)
			}
		}
		called := false
		h := botkit.Handler("s3cret", func(_ context.Context, got *outgoing.Payload) (string, error) {
			called = true
			if got.Token != "s3cret" {
				t.Fatalf("the bot function got an unverified token %q", got.Token)
			}
			return "ok: " + botkit.Command(got), nil
		})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		switch rec.Code {
		case http.StatusOK:
			if !called {
				t.Fatalf("200 without calling the bot function")
			}
		case http.StatusBadRequest:
			if err == nil {
				t.Fatalf("Decode accepted %q but Handler answered 400", body)
			}
		case http.StatusUnauthorized:
			if err != nil || called {
				t.Fatalf("401 for %q: decode error %v, called %v", body, err, called)
			}
		default:
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		if !json.Valid(rec.Body.Bytes()) || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("answer is not JSON: %q", rec.Body.String())
		}
	})
}
