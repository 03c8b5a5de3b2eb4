package httpadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
)

// registerParams are the parameters of POST /register, typed as Zulip's API
// documents them (every one optional). event_types, fetch_event_types,
// slim_presence and presence_history_limit_days change the answer, and the
// queue options (event_types, narrow, all_public_streams, apply_markdown,
// slim_presence, client_capabilities, idle_queue_timeout and its older
// name queue_lifespan_secs) shape the event queue; the others
// are decoded and checked (a wrong type is a 400 as in Zulip) but have no
// effect.
type registerParams struct {
	ApplyMarkdown *bool `json:"apply_markdown"`
	// ClientGravatar is a boolean or null.
	ClientGravatar           json.RawMessage `json:"client_gravatar"`
	SlimPresence             *bool           `json:"slim_presence"`
	PresenceHistoryLimitDays *int            `json:"presence_history_limit_days"`
	AllPublicStreams         *bool           `json:"all_public_streams"`
	// IncludeSubscribers is a JSON boolean or "partial", which Zulip takes
	// unquoted (a Literal beside Json[bool]); the quoted form is accepted too.
	IncludeSubscribers *string             `json:"include_subscribers"`
	ClientCapabilities *clientCapabilities `json:"client_capabilities"`
	EventTypes         []string            `json:"event_types"`
	FetchEventTypes    []string            `json:"fetch_event_types"`
	// Narrow is a list of [operator, operand] pairs.
	Narrow            [][]string `json:"narrow"`
	QueueLifespanSecs *int       `json:"queue_lifespan_secs"`
	// IdleQueueTimeout is Zulip's idle_queue_timeout: seconds, or "mobile"
	// (the lifespan Zulip gives its mobile app, [MobileIdleQueueTimeout]).
	IdleQueueTimeout json.RawMessage `json:"idle_queue_timeout"`
}

// MobileIdleQueueTimeout is the idle_queue_timeout "mobile" asks for: 12
// hours, as in Zulip. A numeric idle_queue_timeout (or queue_lifespan_secs)
// is kept within [eventqueue.DefaultQueueLifespan] and
// [eventqueue.MaxQueueLifespan] (a week).
const MobileIdleQueueTimeout = 12 * time.Hour

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

// check validates the parameters the wire decoder cannot type on its own.
func (p *registerParams) check() error {
	if p.ClientGravatar != nil && !isJSON(p.ClientGravatar, "true", "false", "null") {
		return chatcore.BadRequest("client_gravatar is not a boolean")
	}
	if p.IncludeSubscribers != nil && !slices.Contains([]string{"true", "false", "partial", `"partial"`}, *p.IncludeSubscribers) {
		return chatcore.BadRequest(`include_subscribers is not a boolean or "partial"`)
	}
	if p.IdleQueueTimeout != nil {
		if _, ok := p.idleTimeout(); !ok {
			return chatcore.BadRequest(`idle_queue_timeout is not an integer or "mobile"`)
		}
	}
	switch {
	case len(p.EventTypes) > chatcore.MaxEventTypes:
		return chatcore.TooLongError("event_types", chatcore.MaxEventTypes)
	case len(p.FetchEventTypes) > chatcore.MaxEventTypes:
		return chatcore.TooLongError("fetch_event_types", chatcore.MaxEventTypes)
	case len(p.Narrow) > chatcore.MaxNarrowTerms:
		return chatcore.TooLongError("narrow", chatcore.MaxNarrowTerms)
	}
	return nil
}

// isJSON reports whether raw is one of the JSON texts in allowed.
func isJSON(raw json.RawMessage, allowed ...string) bool {
	return slices.ContainsFunc(allowed, func(a string) bool { return bytes.Equal(raw, []byte(a)) })
}

// maxLifespanSecs caps a lifespan in seconds before it becomes a
// time.Duration (which a huge number would overflow); the queue caps it
// further at [eventqueue.MaxQueueLifespan].
const maxLifespanSecs = int(eventqueue.MaxQueueLifespan/time.Second) + 1

// idleTimeout returns the lifespan idle_queue_timeout asks for (zero
// without it), or false when it is neither an integer nor "mobile".
func (p *registerParams) idleTimeout() (time.Duration, bool) {
	raw := bytes.TrimSpace(p.IdleQueueTimeout)
	if len(raw) == 0 || isJSON(raw, "null") {
		return 0, true
	}
	if isJSON(raw, `"mobile"`, "mobile") {
		return MobileIdleQueueTimeout, true
	}
	var secs int64
	if json.Unmarshal(raw, &secs) != nil {
		return 0, false
	}
	return time.Duration(min(max(secs, 0), int64(maxLifespanSecs))) * time.Second, true
}

// queue returns the options of the event queue to register.
func (p *registerParams) queue() *eventqueue.QueueOptions {
	o := &eventqueue.QueueOptions{
		EventTypes:     p.EventTypes,
		Narrow:         p.Narrow,
		ApplyMarkdown:  p.ApplyMarkdown != nil && *p.ApplyMarkdown,
		ClientGravatar: bytes.Equal(p.ClientGravatar, []byte("true")),
		SlimPresence:   p.SlimPresence != nil && *p.SlimPresence,
	}
	if p.QueueLifespanSecs != nil {
		o.Lifespan = time.Duration(min(max(*p.QueueLifespanSecs, 0), maxLifespanSecs)) * time.Second
	}
	if d, ok := p.idleTimeout(); ok && p.IdleQueueTimeout != nil {
		o.Lifespan = d
	}
	if c := p.ClientCapabilities; c != nil {
		o.Capabilities = eventqueue.ClientCapabilities{
			BulkMessageDeletion:       c.BulkMessageDeletion != nil && *c.BulkMessageDeletion,
			StreamTypingNotifications: c.StreamTypingNotifications != nil && *c.StreamTypingNotifications,
			LinkifierURLTemplate:      c.LinkifierURLTemplate != nil && *c.LinkifierURLTemplate,
			EmptyTopicName:            c.EmptyTopicName != nil && *c.EmptyTopicName,
			SimplifiedPresenceEvents:  c.SimplifiedPresenceEvents != nil && *c.SimplifiedPresenceEvents,
		}
	}
	return o
}

// sections returns the state sections the client asked for, as Zulip's
// fetch_initial_state_data reads them: fetch_event_types when given, else
// event_types, else every section (nil).
func (p *registerParams) sections() []string {
	if p.FetchEventTypes != nil {
		return p.FetchEventTypes
	}
	return p.EventTypes
}

// zulipVersion is the zulip_version chatcore reports.
const zulipVersion = "chatcore " + chatcore.Version

// serverSettings answers GET /server_settings (no authentication): what a
// client needs before logging in, most importantly zulip_version and
// zulip_feature_level.
func (h *handler) serverSettings(ctx context.Context, c *call) (map[string]any, error) {
	settings, err := h.svc.ServerSettings(ctx, h.opts.Realm)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"authentication_methods":          authenticationMethods(),
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
		"realm_name":                      settings.RealmName,
		"realm_icon":                      h.opts.ExternalURL + settings.RealmIconPath,
		"realm_description":               settings.RealmDescription,
		"realm_web_public_access_enabled": false,
	}, nil
}

// register answers POST /register with the initial state and a new event
// queue (see [eventqueue.Hub.Register]). The version fields, queue_id and
// last_event_id are always present (event_queue_longpoll_timeout_seconds
// comes with the realm section, as in Zulip);
// the other sections only when wanted (see [registerParams.sections] and
// addStateSections). Section names chatcore does not serve are accepted and
// give nothing, as in Zulip.
func (h *handler) register(ctx context.Context, c *call) (map[string]any, error) {
	var req registerParams
	// Zulip takes JSON null for these (the Python client's register()
	// sends event_types=null): the same as leaving them out.
	for _, name := range []string{"event_types", "fetch_event_types", "client_capabilities"} {
		if c.params.Get(name) == "null" {
			c.params.Del(name)
		}
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	if err := req.check(); err != nil {
		return nil, err
	}
	st, err := h.events.Register(ctx, c.user.ID, eventqueue.RegisterRequest{
		Sections:                 req.sections(),
		AllPublicStreams:         req.AllPublicStreams != nil && *req.AllPublicStreams,
		IncludeSubscribers:       req.IncludeSubscribers != nil && *req.IncludeSubscribers != "false",
		SlimPresence:             req.SlimPresence != nil && *req.SlimPresence,
		PresenceHistoryLimitDays: req.PresenceHistoryLimitDays,
		EmptyTopicName:           req.ClientCapabilities != nil && req.ClientCapabilities.EmptyTopicName != nil && *req.ClientCapabilities.EmptyTopicName,
		Queue:                    req.queue(),
	})
	if err != nil {
		return nil, err
	}
	state := map[string]any{
		"queue_id":            st.QueueID,
		"last_event_id":       st.LastEventID,
		"zulip_feature_level": chatcore.FeatureLevel,
		"zulip_version":       zulipVersion,
		"zulip_merge_base":    zulipVersion,
	}
	h.addStateSections(state, st)
	return state, nil
}
