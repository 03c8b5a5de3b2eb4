package botkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/botkit"
	"github.com/chatcore/chatcore/outgoing"
	"github.com/matryer/is"
)

const token = "xvOzfurIutdRRVLzpXrIIHXJvNfaJLJ0"

func directPayload() outgoing.Payload {
	avatar := "https://secure.gravatar.com/avatar/x?d=identicon&version=1"
	return outgoing.Payload{
		BotEmail: "echo-bot@acme.test", BotFullName: "Echo Bot",
		Data: "@**Echo Bot** hello", Trigger: outgoing.TriggerDirectMessage, Token: token,
		Message: outgoing.Message{
			AvatarURL: &avatar, Client: "website", Content: "@**Echo Bot** hello", ContentType: "text/x-markdown",
			DisplayRecipient: []outgoing.DisplayRecipient{
				{ID: 12, Email: "mark@acme.test", FullName: "Mark Member"},
				{ID: 31, Email: "echo-bot@acme.test", FullName: "Echo Bot"},
			},
			ID: 1001, Reactions: []outgoing.Reaction{{UserID: 12, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}},
			RecipientID: 7, SenderEmail: "mark@acme.test", SenderFullName: "Mark Member", SenderID: 12,
			SenderRealmStr: "acme", Submessages: []outgoing.Submessage{}, Timestamp: 1767225600,
			TopicLinks: []outgoing.TopicLink{}, Type: "private", RenderedContent: "<p>hello</p>",
		},
	}
}

// post sends body to h and returns the status and decoded JSON answer.
func post(t *testing.T, h http.Handler, method, body string) (int, map[string]any) {
	t.Helper()
	is := is.New(t)
	r := httptest.NewRequest(method, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	is.Equal(w.Header().Get("Content-Type"), "application/json") // always a JSON answer
	var out map[string]any
	is.NoErr(json.Unmarshal(w.Body.Bytes(), &out)) // the answer is a JSON object
	return w.Code, out
}

func TestHandlerRoundTrip(t *testing.T) {
	is := is.New(t)
	want := directPayload()
	body, err := json.Marshal(want)
	is.NoErr(err) // payload encodes
	var got *outgoing.Payload
	h := botkit.Handler(token, func(_ context.Context, p *outgoing.Payload) (string, error) {
		got = p
		return "echo: " + botkit.Command(p), nil
	})
	status, out := post(t, h, http.MethodPost, string(body))
	is.Equal(status, http.StatusOK)                         // accepted
	is.Equal(out, map[string]any{"content": "echo: hello"}) // the reply, as {"content": ...}
	is.Equal(*got, want)                                    // the payload survives the round trip, participants typed
}

func TestHandlerRejects(t *testing.T) {
	good := directPayload()
	bad := directPayload()
	bad.Token = "xvOzfurIutdRRVLzpXrIIHXJvNfaJLJ1"
	empty := directPayload()
	empty.Token = ""
	enc := func(p outgoing.Payload) string { b, _ := json.Marshal(p); return string(b) }
	tests := []struct {
		name, method, body string
		status             int
	}{
		{"wrong token", http.MethodPost, enc(bad), http.StatusUnauthorized},
		{"no token", http.MethodPost, enc(empty), http.StatusUnauthorized},
		{"GET", http.MethodGet, enc(good), http.StatusMethodNotAllowed},
		{"not JSON", http.MethodPost, "token=" + token, http.StatusBadRequest},
		{"too large", http.MethodPost, `{"data": "` + strings.Repeat("x", botkit.MaxPayloadBytes) + `"}`, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			called := false
			h := botkit.Handler(token, func(context.Context, *outgoing.Payload) (string, error) {
				called = true
				return "no", nil
			})
			status, out := post(t, h, tt.method, tt.body)
			is.Equal(status, tt.status)  // refused with the right status
			is.True(out["error"] != nil) // says why
			is.True(!called)             // the bot function never runs
		})
	}
}

func TestHandlerAnswers(t *testing.T) {
	body, _ := json.Marshal(directPayload())
	t.Run("empty reply", func(t *testing.T) {
		is := is.New(t)
		h := botkit.Handler(token, func(context.Context, *outgoing.Payload) (string, error) { return " ", nil })
		status, out := post(t, h, http.MethodPost, string(body))
		is.Equal(status, http.StatusOK)                              // accepted
		is.Equal(out, map[string]any{"response_not_required": true}) // nothing to post
	})
	t.Run("error", func(t *testing.T) {
		is := is.New(t)
		h := botkit.Handler(token, func(context.Context, *outgoing.Payload) (string, error) {
			return "", errors.New("database password is hunter2")
		})
		status, out := post(t, h, http.MethodPost, string(body))
		is.Equal(status, http.StatusInternalServerError)         // the server reports a failure to the owner
		is.Equal(out, map[string]any{"error": "internal error"}) // without the error's text
	})
}

func TestHandlerPanicsOnMisuse(t *testing.T) {
	is := is.New(t)
	panics := func(f func()) (p bool) {
		defer func() { p = recover() != nil }()
		f()
		return false
	}
	fn := func(context.Context, *outgoing.Payload) (string, error) { return "", nil }
	is.True(panics(func() { botkit.Handler("", fn) }))     // an empty token would accept token-less payloads
	is.True(panics(func() { botkit.Handler(token, nil) })) // nothing to call
}

func TestDecodeChannelPayload(t *testing.T) {
	is := is.New(t)
	body := `{"bot_email":"b@x","bot_full_name":"B","data":"hi","trigger":"mention","token":"t",
		"message":{"display_recipient":"general","stream_id":61,"subject":"lunch","type":"stream","id":5}}`
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	p, err := botkit.Decode(r)
	is.NoErr(err)                                                 // decodes
	is.Equal(p.Message.DisplayRecipient, "general")               // channel name as a string
	is.Equal(p.Message.StreamID, int64(61))                       // channel id
	is.Equal(p.Message.Subject, "lunch")                          // topic
	is.Equal(botkit.Verify(p, "t"), nil)                          // right token
	is.True(errors.Is(botkit.Verify(p, "u"), botkit.ErrBadToken)) // wrong token
	is.True(errors.Is(botkit.Verify(p, ""), botkit.ErrBadToken))  // an empty expected token never verifies

	_, err = botkit.Decode(httptest.NewRequest(http.MethodPut, "/", strings.NewReader(body)))
	is.True(err != nil) // only POST
	_, err = botkit.Decode(httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader(`{"data": 1}`))))
	is.True(err != nil) // wrong types are refused
}

func TestCommand(t *testing.T) {
	tests := []struct{ data, want string }{
		{"@**Echo Bot** hello", "hello"},
		{"  @**Echo Bot**   hello  ", "hello"},
		{"@**Echo Bot|31** hello", "hello"},
		{"@_**Echo Bot** quietly", "quietly"},
		{"@**Echo Bot**", ""},
		{"hello @**Echo Bot**", "hello @**Echo Bot**"},
		{"@**Other Bot** hello", "@**Other Bot** hello"},
		{"plain text", "plain text"},
		{"@**Echo Bot**\nline two", "line two"},
	}
	for _, tt := range tests {
		t.Run(tt.data, func(t *testing.T) {
			is := is.New(t)
			p := &outgoing.Payload{BotFullName: "Echo Bot", Data: tt.data}
			is.Equal(botkit.Command(p), tt.want) // the text without the leading mention
		})
	}
}
