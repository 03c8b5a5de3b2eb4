// Package botkit helps Go programs receive chatcore's (and Zulip's) outgoing
// webhooks: it decodes the payload ([outgoing.Payload]), checks the bot's token
// in constant time and answers with the reply the server posts back as the bot
// ([outgoing.Response]). It depends on the standard library and package
// outgoing only.
//
// The simplest integration is one [Handler]:
//
//	h := botkit.Handler(token, func(ctx context.Context, p *outgoing.Payload) (string, error) {
//		return "You said: " + botkit.Command(p), nil
//	})
//	http.ListenAndServe("127.0.0.1:8765", h)
//
// Only the generic interface (JSON) is supported, not the Slack-compatible one.
package botkit

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/chatcore/chatcore/outgoing"
)

// MaxPayloadBytes bounds the request body [Decode] reads. The server caps
// message content at 10,000 bytes; the rest of the payload is small.
const MaxPayloadBytes = 1 << 20

// ErrBadToken is returned by [Verify] when the payload's token is not the
// bot's.
var ErrBadToken = errors.New("botkit: invalid token")

// Decode reads the outgoing-webhook payload from r: a POST whose body is at
// most MaxPayloadBytes of JSON. It does not check the token (see [Verify]).
// Errors say what was wrong; none of them is [ErrBadToken].
func Decode(r *http.Request) (*outgoing.Payload, error) {
	if r.Method != http.MethodPost {
		return nil, fmt.Errorf("botkit: method %s, want POST", r.Method)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxPayloadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("botkit: reading payload: %w", err)
	}
	if len(body) > MaxPayloadBytes {
		return nil, fmt.Errorf("botkit: payload larger than %d bytes", MaxPayloadBytes)
	}
	var p outgoing.Payload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("botkit: decoding payload: %w", err)
	}
	return &p, nil
}

// Verify returns nil when p carries token, compared in constant time, and
// [ErrBadToken] otherwise. An empty token never verifies.
func Verify(p *outgoing.Payload, token string) error {
	if token == "" || subtle.ConstantTimeCompare([]byte(p.Token), []byte(token)) != 1 {
		return ErrBadToken
	}
	return nil
}

// Reply writes the answer to a webhook: {"content": reply}, or
// {"response_not_required": true} when reply is empty or only white space.
func Reply(w http.ResponseWriter, reply string) error {
	res := outgoing.Response{Content: reply}
	if strings.TrimSpace(reply) == "" {
		res = outgoing.Response{ResponseNotRequired: true}
	}
	return writeJSON(w, http.StatusOK, res)
}

// HandlerFunc answers one verified payload: the returned reply is posted by the
// bot ("" posts nothing). A non-nil error answers 500, which the server shows
// as "Failure! Third party responded with 500" and reports to the bot's owner;
// the error's text is not sent.
type HandlerFunc func(ctx context.Context, p *outgoing.Payload) (reply string, err error)

// Handler returns an http.Handler that decodes each request, verifies its token
// against token and calls fn. Requests that are not POST get 405, undecodable
// ones 400 and a wrong token 401, each with a JSON {"error": ...} body. The
// handler is safe for concurrent use if fn is. Handler panics if token is
// empty or fn is nil.
func Handler(token string, fn HandlerFunc) http.Handler {
	if token == "" {
		panic("botkit: Handler with an empty token")
	}
	if fn == nil {
		panic("botkit: Handler with a nil function")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		p, err := Decode(r)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		if err := Verify(p, token); err != nil {
			writeError(w, http.StatusUnauthorized, "invalid token")
			return
		}
		reply, err := fn(r.Context(), p)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "internal error")
			return
		}
		_ = Reply(w, reply)
	})
}

// mentionPrefix matches a leading mention: @**Name**, @**Name|id**, or the
// silent @_**Name**.
var mentionPrefix = regexp.MustCompile(`^\s*@_?\*\*([^*|]+)(?:\|\d+)?\*\*`)

// Command returns the payload's message text without a leading mention of the
// bot (@**Bot Name**, @**Bot Name|id** or @_**Bot Name**), trimmed of
// surrounding white space. Text that does not start with the bot's mention is
// returned trimmed.
func Command(p *outgoing.Payload) string {
	text := p.Data
	if m := mentionPrefix.FindStringSubmatchIndex(text); m != nil && text[m[2]:m[3]] == p.BotFullName {
		text = text[m[1]:]
	}
	return strings.TrimSpace(text)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	_ = writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err = w.Write(append(b, '\n'))
	return err
}
