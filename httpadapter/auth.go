package httpadapter

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
)

// authenticate checks the request's HTTP Basic credentials as Zulip's
// validate_api_key does and returns the authenticated user or bot. Incoming
// webhook bots are refused unless allowWebhook is set (Zulip's
// allow_incoming_webhooks route flag).
//
// A scheme other than Basic is a 400; every other failure is a 401 UNAUTHORIZED
// carrying the reason as its message (the writer adds WWW-Authenticate).
func (h *handler) authenticate(r *http.Request, allowWebhook bool) (*chatcore.User, error) {
	header, ok := r.Header["Authorization"]
	if !ok || len(header) == 0 {
		return nil, chatcore.Unauthorized("Missing authorization header for basic auth")
	}
	email, key, err := parseBasic(header[0])
	if err != nil {
		return nil, err
	}
	u, err := h.svc.Authenticate(r.Context(), email, key)
	if err != nil {
		// Over Basic auth Zulip re-raises every authentication failure
		// (deactivated user or realm, bad key, ...) as a 401 UNAUTHORIZED
		// with the original message.
		if e, ok := errors.AsType[*chatcore.Error](err); ok {
			return nil, chatcore.Unauthorized(e.Msg)
		}
		return nil, err
	}
	if u.IsBot && u.BotType == chatcore.BotTypeIncomingWebhook && !allowWebhook {
		return nil, chatcore.Unauthorized("This API is not available to incoming webhook bots.")
	}
	return u, nil
}

// parseBasic splits an Authorization header value into the stripped e-mail and
// API key.
func parseBasic(value string) (email, key string, err error) {
	invalid := chatcore.Unauthorized("Invalid authorization header for basic auth")
	fields := strings.Fields(value)
	if len(fields) != 2 {
		return "", "", invalid
	}
	if !strings.EqualFold(fields[0], "basic") {
		return "", "", chatcore.BadRequest("This endpoint requires HTTP basic authentication.")
	}
	raw, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil || !utf8.Valid(raw) {
		return "", "", invalid
	}
	parts := strings.Split(string(raw), ":")
	if len(parts) != 2 {
		return "", "", invalid
	}
	return strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), nil
}
