package httpadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/chatcore/chatcore"
)

// registerParams are the parameters of POST /register, typed as Zulip's API
// documents them (every one optional). chatcore has no event queue yet, so
// only event_types and fetch_event_types change the answer; the others are
// decoded and checked (a wrong type is a 400 as in Zulip) but have no effect,
// except all_public_streams, which guests may not ask for.
type registerParams struct {
	ApplyMarkdown *bool `json:"apply_markdown"`
	// ClientGravatar is a boolean or null.
	ClientGravatar           json.RawMessage `json:"client_gravatar"`
	SlimPresence             *bool           `json:"slim_presence"`
	PresenceHistoryLimitDays *int            `json:"presence_history_limit_days"`
	AllPublicStreams         *bool           `json:"all_public_streams"`
	// IncludeSubscribers is a boolean or the string "partial".
	IncludeSubscribers json.RawMessage     `json:"include_subscribers"`
	ClientCapabilities *clientCapabilities `json:"client_capabilities"`
	EventTypes         []string            `json:"event_types"`
	FetchEventTypes    []string            `json:"fetch_event_types"`
	// Narrow is a list of [operator, operand] pairs.
	Narrow            [][]string `json:"narrow"`
	QueueLifespanSecs *int       `json:"queue_lifespan_secs"`
}

// clientCapabilities is the client_capabilities object of POST /register;
// keys chatcore does not know are ignored, as Zulip ignores them.
type clientCapabilities struct {
	NotificationSettingsNull   *bool `json:"notification_settings_null"`
	BulkMessageDeletion        *bool `json:"bulk_message_deletion"`
	UserAvatarURLFieldOptional *bool `json:"user_avatar_url_field_optional"`
	StreamTypingNotifications  *bool `json:"stream_typing_notifications"`
	UserSettingsObject         *bool `json:"user_settings_object"`
	LinkifierURLTemplate       *bool `json:"linkifier_url_template"`
	UserListIncomplete         *bool `json:"user_list_incomplete"`
	IncludeDeactivatedGroups   *bool `json:"include_deactivated_groups"`
	ArchivedChannels           *bool `json:"archived_channels"`
	EmptyTopicName             *bool `json:"empty_topic_name"`
	SimplifiedPresenceEvents   *bool `json:"simplified_presence_events"`
}

// check validates the parameters DecodeParams cannot type on its own.
func (p *registerParams) check() error {
	if p.ClientGravatar != nil && !isJSON(p.ClientGravatar, "true", "false", "null") {
		return chatcore.BadRequest("client_gravatar is not a boolean")
	}
	if p.IncludeSubscribers != nil && !isJSON(p.IncludeSubscribers, "true", "false", `"partial"`) {
		return chatcore.BadRequest(`include_subscribers is not a boolean or "partial"`)
	}
	switch {
	case len(p.EventTypes) > chatcore.MaxEventTypes:
		return chatcore.BadRequestf("event_types is too long (limit: %d items)", chatcore.MaxEventTypes)
	case len(p.FetchEventTypes) > chatcore.MaxEventTypes:
		return chatcore.BadRequestf("fetch_event_types is too long (limit: %d items)", chatcore.MaxEventTypes)
	case len(p.Narrow) > chatcore.MaxNarrowTerms:
		return chatcore.BadRequestf("narrow is too long (limit: %d items)", chatcore.MaxNarrowTerms)
	}
	return nil
}

// isJSON reports whether raw is one of the JSON texts in allowed.
func isJSON(raw json.RawMessage, allowed ...string) bool {
	return slices.ContainsFunc(allowed, func(a string) bool { return bytes.Equal(raw, []byte(a)) })
}

// wanted returns the state sections the client asked for, as Zulip's
// fetch_initial_state_data does: fetch_event_types when given, else
// event_types, else every section (nil).
func (p *registerParams) wanted() func(section string) bool {
	types := p.FetchEventTypes
	if types == nil {
		types = p.EventTypes
	}
	if types == nil {
		return func(string) bool { return true }
	}
	return func(section string) bool { return slices.Contains(types, section) }
}

// register answers POST /register with the initial state chatcore can give
// (no event queue yet: queue_id is null and last_event_id -1). The version
// fields are always present; the other sections only when wanted (see
// [registerParams.wanted]), under Zulip's section names: realm_user
// (user_id), realm (realm_name, realm_url, realm_empty_topic_display_name,
// max_reminder_note_length), user_settings, realm_linkifiers,
// scheduled_messages and reminders. Section names chatcore does not serve
// are accepted and give nothing, as in Zulip.
func (h *handler) register(ctx context.Context, c *call) (map[string]any, error) {
	var req registerParams
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	if err := req.check(); err != nil {
		return nil, err
	}
	if req.AllPublicStreams != nil && *req.AllPublicStreams && c.user.Role == chatcore.RoleGuest {
		return nil, chatcore.BadRequest("User not authorized for this query")
	}
	want := req.wanted()
	uid := c.user.ID
	state := map[string]any{
		"queue_id":            nil,
		"last_event_id":       -1,
		"zulip_feature_level": chatcore.FeatureLevel,
		"zulip_version":       zulipVersion,
		"zulip_merge_base":    zulipVersion,
	}
	if want("realm_user") {
		state["user_id"] = uid
	}
	if want("realm") {
		var realm *chatcore.Realm
		err := h.svc.Store().View(ctx, func(tx chatcore.Tx) error {
			var err error
			realm, err = tx.Realm(ctx, c.user.RealmID)
			return err
		})
		if err != nil {
			return nil, err
		}
		display := realm.EmptyTopicDisplayName
		if display == "" {
			display = chatcore.DefaultEmptyTopicDisplayName
		}
		state["realm_name"] = realm.Name
		state["realm_url"] = h.opts.ExternalURL
		state["realm_empty_topic_display_name"] = display
		state["max_reminder_note_length"] = chatcore.MaxReminderNoteLength
	}
	if want("user_settings") {
		state["user_settings"] = c.user.Settings
	}
	if want("realm_linkifiers") {
		list, err := h.svc.Linkifiers(ctx, uid)
		if err != nil {
			return nil, err
		}
		state["realm_linkifiers"] = nonNil(list)
	}
	if want("scheduled_messages") {
		list, err := h.svc.ScheduledMessages(ctx, uid)
		if err != nil {
			return nil, err
		}
		state["scheduled_messages"] = nonNil(list)
	}
	if want("reminders") {
		list, err := h.svc.Reminders(ctx, uid)
		if err != nil {
			return nil, err
		}
		state["reminders"] = nonNil(list)
	}
	return state, nil
}
