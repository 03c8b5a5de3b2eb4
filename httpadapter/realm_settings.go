package httpadapter

import (
	"context"
	"encoding/json"
	"maps"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/realms"
)

// PATCH /realm (package realms).

// limitParam decodes a time-limit parameter: a JSON integer or "unlimited".
func limitParam(name string, raw json.RawMessage) (*realms.Limit, error) {
	if raw == nil {
		return nil, nil
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err == nil {
		return &realms.Limit{Seconds: n}, nil
	}
	if s := strings.Trim(string(raw), `"`); s == "unlimited" {
		return &realms.Limit{Unlimited: true}, nil
	}
	return nil, chatcore.BadRequestf("Bad value for '%s': %s", name, raw)
}

// updateRealm answers PATCH /realm.
func (h *handler) updateRealm(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Name                 *string         `json:"name"`
		Description          *string         `json:"description"`
		DefaultLanguage      *string         `json:"default_language"`
		NameChangesDisabled  *bool           `json:"name_changes_disabled"`
		EmailChangesDisabled *bool           `json:"email_changes_disabled"`
		RequireUniqueNames   *bool           `json:"require_unique_names"`
		AllowMessageEditing  *bool           `json:"allow_message_editing"`
		EnableReadReceipts   *bool           `json:"enable_read_receipts"`
		EditLimit            json.RawMessage `json:"message_content_edit_limit_seconds"`
		DeleteLimit          json.RawMessage `json:"message_content_delete_limit_seconds"`
		MoveWithinLimit      json.RawMessage `json:"move_messages_within_stream_limit_seconds"`
		MoveBetweenLimit     json.RawMessage `json:"move_messages_between_streams_limit_seconds"`
	}
	settings := map[string]json.RawMessage{}
	for _, name := range groups.RealmGroupSettingNames() {
		if v, ok := c.params[name]; ok && len(v) > 0 {
			settings[name] = json.RawMessage(v[len(v)-1])
		}
	}
	rest := maps.Clone(c.params)
	for name := range settings {
		delete(rest, name)
	}
	saved := c.params
	c.params = rest
	err := c.decode(&req)
	c.params = saved
	if err != nil {
		return nil, err
	}
	u := realms.UpdateRequest{Name: req.Name, Description: req.Description, DefaultLanguage: req.DefaultLanguage, NameChangesDisabled: req.NameChangesDisabled,
		EmailChangesDisabled: req.EmailChangesDisabled, RequireUniqueNames: req.RequireUniqueNames,
		AllowMessageEditing: req.AllowMessageEditing, EnableReadReceipts: req.EnableReadReceipts, Settings: map[string]groups.Change{}}
	for _, l := range []struct {
		name string
		raw  json.RawMessage
		dst  **realms.Limit
	}{
		{"message_content_edit_limit_seconds", req.EditLimit, &u.ContentEditLimit},
		{"message_content_delete_limit_seconds", req.DeleteLimit, &u.ContentDeleteLimit},
		{"move_messages_within_stream_limit_seconds", req.MoveWithinLimit, &u.MoveWithinChannelLimit},
		{"move_messages_between_streams_limit_seconds", req.MoveBetweenLimit, &u.MoveBetweenChannelsLimit},
	} {
		if *l.dst, err = limitParam(l.name, l.raw); err != nil {
			return nil, err
		}
	}
	for name, raw := range settings {
		var ch groups.Change
		if err := json.Unmarshal(raw, &ch); err != nil || ch.New == nil {
			return nil, chatcore.BadRequestf("Invalid %s", name)
		}
		u.Settings[name] = ch
	}
	return nil, realms.Update(ctx, h.svc, c.user.ID, u)
}

// updateUserDefaults answers PATCH /realm/user_settings_defaults: the
// parameters of PATCH /settings, less those Zulip does not take here
// (account fields, target_users and realms.NotUserDefaults), which are
// reported as ignored.
func (h *handler) updateUserDefaults(ctx context.Context, c *call) (map[string]any, error) {
	var skipped []string
	rest := maps.Clone(c.params)
	for _, name := range append([]string{"full_name", "email", "old_password", "new_password", "target_users"}, realms.NotUserDefaults...) {
		if _, ok := rest[name]; ok {
			skipped = append(skipped, name)
			delete(rest, name)
		}
	}
	saved := c.params
	c.params = rest
	var req accounts.SettingsUpdate
	err := c.decode(&req)
	c.params = saved
	if err != nil {
		return nil, err
	}
	c.ignored = append(c.ignored, skipped...)
	return nil, realms.UpdateUserDefaults(ctx, h.svc, c.user.ID, req)
}

// deactivateRealm answers POST /realm/deactivate.
func (h *handler) deactivateRealm(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	return nil, realms.Deactivate(ctx, h.svc, c.user.ID)
}
