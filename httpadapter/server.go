package httpadapter

import (
	"context"
	"errors"

	"github.com/chatcore/chatcore"
)

// zulipVersion is the zulip_version chatcore reports.
const zulipVersion = "chatcore " + chatcore.Version

// realm returns the realm GET /server_settings describes: Options.Realm, or
// the realm with the lowest id. It returns nil when the store holds no realm.
func (h *handler) realm(ctx context.Context) (*chatcore.Realm, error) {
	var realm *chatcore.Realm
	err := h.svc.Store().View(ctx, func(tx chatcore.Tx) error {
		if h.opts.Realm != "" {
			r, err := tx.RealmByStringID(ctx, h.opts.Realm)
			if errors.Is(err, chatcore.ErrNotFound) {
				return nil
			}
			realm = r
			return err
		}
		realms, err := tx.Realms(ctx)
		if err != nil {
			return err
		}
		if len(realms) > 0 {
			realm = &realms[0]
		}
		return nil
	})
	return realm, err
}

// serverSettings answers GET /server_settings (no authentication): what a
// client needs before logging in, most importantly zulip_version and
// zulip_feature_level.
func (h *handler) serverSettings(ctx context.Context, c *call) (map[string]any, error) {
	realm, err := h.realm(ctx)
	if err != nil {
		return nil, err
	}
	name := ""
	if realm != nil {
		name = realm.Name
	}
	return map[string]any{
		"authentication_methods": map[string]bool{
			"password": true, "dev": false, "email": true, "ldap": false,
			"remoteuser": false, "github": false, "azuread": false, "gitlab": false,
			"apple": false, "google": false, "saml": false, "openid connect": false,
		},
		"external_authentication_methods": []any{},
		"zulip_feature_level":             chatcore.FeatureLevel,
		"zulip_version":                   zulipVersion,
		"zulip_merge_base":                zulipVersion,
		"push_notifications_enabled":      false,
		"is_incompatible":                 false,
		"email_auth_enabled":              true,
		"require_email_format_usernames":  true,
		"realm_url":                       h.opts.ExternalURL,
		"realm_uri":                       h.opts.ExternalURL,
		"realm_name":                      name,
		"realm_icon":                      h.opts.ExternalURL + "/static/images/logo/zulip-icon-square.svg",
		"realm_description":               "",
		"realm_web_public_access_enabled": false,
	}, nil
}

// routes lists every endpoint, each with its wrapped handler.
func (h *handler) routes() []route {
	routes := []route{
		{pattern: "GET /api/v1/server_settings", access: public, fn: h.serverSettings},
		{pattern: "POST /api/v1/register", access: authed, fn: h.register},

		{pattern: "PATCH /api/v1/settings", access: humanOnly, fn: h.updateSettings},
		{pattern: "PATCH /api/v1/settings/display", access: humanOnly, fn: h.updateSettings},
		{pattern: "PATCH /api/v1/settings/notifications", access: humanOnly, fn: h.updateSettings},
		{pattern: "GET /accounts/confirm_new_email/{key}", access: public, fn: h.confirmEmailChange},

		{pattern: "POST /api/v1/streams/{stream_id}/delete_topic", access: adminOnly, ids: []string{"stream_id"}, fn: h.deleteTopic},

		{pattern: "POST /api/v1/messages", access: authed, webhooks: true, fn: h.sendMessage},
		{pattern: "GET /api/v1/messages", access: authed, fn: h.messages},
		{pattern: "GET /api/v1/messages/{message_id}", access: authed, ids: []string{"message_id"}, fn: h.message},

		{pattern: "GET /api/v1/users/me", access: authed, fn: h.me},
		{pattern: "GET /api/v1/users", access: authed, fn: h.users},
		{pattern: "GET /api/v1/users/{user_id}", access: authed, ids: []string{"user_id"}, fn: h.user},
		{pattern: "DELETE /api/v1/users/{user_id}", access: authed, ids: []string{"user_id"}, fn: h.deactivateUser},

		{pattern: "GET /api/v1/scheduled_messages", access: authed, fn: h.scheduledMessages},
		{pattern: "POST /api/v1/scheduled_messages", access: authed, fn: h.createScheduledMessage},
		{pattern: "DELETE /api/v1/scheduled_messages/{scheduled_message_id}", access: authed, ids: []string{"scheduled_message_id"}, fn: h.deleteScheduledMessage},

		{pattern: "GET /api/v1/reminders", access: authed, fn: h.reminders},
		{pattern: "POST /api/v1/reminders", access: authed, fn: h.createReminder},
		{pattern: "DELETE /api/v1/reminders/{reminder_id}", access: authed, ids: []string{"reminder_id"}, fn: h.deleteReminder},

		{pattern: "GET /api/v1/realm/linkifiers", access: authed, fn: h.linkifiers},
		{pattern: "PATCH /api/v1/realm/linkifiers", access: adminOnly, fn: h.reorderLinkifiers},
		{pattern: "POST /api/v1/realm/filters", access: adminOnly, fn: h.addLinkifier},
		{pattern: "PATCH /api/v1/realm/filters/{filter_id}", access: adminOnly, ids: []string{"filter_id"}, fn: h.updateLinkifier},
		{pattern: "DELETE /api/v1/realm/filters/{filter_id}", access: adminOnly, ids: []string{"filter_id"}, untyped: true, fn: h.removeLinkifier},
	}
	for i := range routes {
		routes[i].handler = h.wrap(routes[i])
	}
	return routes
}
