package httpadapter

import (
	"context"
	"errors"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
)

// fetchAPIKey answers POST /fetch_api_key (no authentication): a password
// login, as Zulip's api_fetch_api_key, answering api_key, email and user_id
// (see [accounts.PasswordLogin], which also says why the key is a new one).
// A refused login counts as a failed authentication of the username under
// [AuthThrottle] (a throttled client gets 429 RATE_LIMIT_HIT) and is logged
// as one, without the password.
func (h *handler) fetchAPIKey(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Username string `json:"username" wire:"required"`
		Password string `json:"password" wire:"required"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	try, err := h.authFails.begin(ctx, c.r, req.Username)
	if err != nil {
		return nil, err
	}
	login, err := accounts.PasswordLogin(ctx, h.svc, h.opts.Realm, req.Username, req.Password)
	if err != nil {
		e, ok := errors.AsType[*chatcore.Error](err)
		if !ok || e.Kind != chatcore.KindUnauthenticated {
			// A store failure or a malformed address: nothing learnt
			// about the password.
			try.uncounted()
			return nil, err
		}
		refused := try.failed(ctx)
		h.log.WarnContext(ctx, "httpadapter: failed login", "client", try.addr, "email", clip(req.Username, maxLoggedEmail),
			"reason", e.Msg, "throttled", refused != nil)
		if refused != nil {
			return nil, refused
		}
		return nil, err
	}
	try.uncounted()
	return map[string]any{"api_key": login.APIKey, "email": login.Email, "user_id": login.UserID}, nil
}

// authenticationMethods is what GET /server_settings advertises: exactly the
// methods that work, e-mail and password (POST /fetch_api_key), and
// external_authentication_methods empty (no social or SAML login).
func authenticationMethods() map[string]bool {
	return map[string]bool{
		"password": true, "dev": false, "email": true, "ldap": false,
		"remoteuser": false, "github": false, "azuread": false, "gitlab": false,
		"apple": false, "google": false, "saml": false, "openid connect": false,
	}
}
