package httpadapter

import (
	"maps"
	"math"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/eventqueue"
)

// realmConstants are the realm section's settings chatcore does not model,
// with the values of a new Zulip organization on a self-hosted server
// (organization settings realm_*, server settings server_* and limits), and
// the limits chatcore enforces that no option changes. The password policy,
// which [chatcore.WithPasswordPolicy] sets, is added by addStateSections.
var realmConstants = map[string]any{
	"realm_message_retention_days":                     -1,
	"realm_topics_policy":                              "allow_empty_topic",
	"realm_waiting_period_threshold":                   0,
	"realm_presence_disabled":                          false,
	"realm_inline_image_preview":                       true,
	"realm_inline_url_embed_preview":                   false,
	"realm_enable_read_receipts":                       true,
	"realm_wildcard_mention_policy":                    1, // Zulip's legacy field; realm_can_mention_many_users_group decides
	"realm_default_external_accounts":                  defaultExternalAccounts,
	"realm_enable_spectator_access":                    false,
	"realm_push_notifications_enabled":                 false,
	"realm_digest_emails_enabled":                      false,
	"realm_email_auth_enabled":                         true,
	"realm_password_auth_enabled":                      true,
	"realm_plan_type":                                  1,
	"realm_org_type":                                   0,
	"max_message_length":                               chatcore.MaxMessageLength,
	"max_topic_length":                                 chatcore.MaxTopicLength,
	"max_stream_name_length":                           channels.MaxNameLength,
	"max_stream_description_length":                    channels.MaxDescriptionLength,
	"max_channel_folder_name_length":                   60,
	"max_channel_folder_description_length":            1024,
	"server_typing_started_expiry_period_milliseconds": 45000,
	"server_typing_stopped_wait_period_milliseconds":   5000,
	"server_typing_started_wait_period_milliseconds":   10000,
	"server_presence_ping_interval_seconds":            60,
	"server_presence_offline_threshold_seconds":        140,
	"event_queue_longpoll_timeout_seconds":             int(eventqueue.LongpollTimeout.Seconds()),
	"password_max_length":                              100,
	"server_inline_image_preview":                      true,
	"server_inline_url_embed_preview":                  false,
	"server_avatar_changes_disabled":                   false,
	"server_name_changes_disabled":                     false,
	"server_web_public_streams_enabled":                false,
	"server_needs_upgrade":                             false,
	"development_environment":                          false,
	"zulip_plan_is_not_limited":                        true,
}

// customProfileFieldTypes is Zulip's custom_profile_field_types.
var customProfileFieldTypes = map[string]any{
	"SHORT_TEXT":       map[string]any{"id": 1, "name": "Text (short)"},
	"LONG_TEXT":        map[string]any{"id": 2, "name": "Text (long)"},
	"SELECT":           map[string]any{"id": 3, "name": "List of options"},
	"DATE":             map[string]any{"id": 4, "name": "Date picker"},
	"URL":              map[string]any{"id": 5, "name": "Link"},
	"USER":             map[string]any{"id": 6, "name": "Person picker"},
	"EXTERNAL_ACCOUNT": map[string]any{"id": 7, "name": "External account"},
	"PRONOUNS":         map[string]any{"id": 8, "name": "Pronouns"},
}

// addStateSections puts the state sections of st into state under Zulip's
// names: realm_user (user_id, email, delivery_email, full_name, role flags,
// avatar, realm_users, realm_non_active_users, cross_realm_bots), realm (the
// realm's own settings, realmConstants and the Service's password policy),
// realm_user_groups,
// subscription (subscriptions, unsubscribed, never_subscribed),
// muted_topics, user_topic (user_topics), realm_emoji,
// custom_profile_fields (with custom_profile_field_types), user_settings,
// realm_user_settings_defaults,
// realm_linkifiers, scheduled_messages, reminders, message
// (max_message_id), unread_msgs, starred_messages, drafts,
// recent_private_conversations and stream (streams). The realm section
// carries the URLs of files the adapter serves itself (realm_icon_url,
// server_emoji_data_url; see static.go) and the Service's
// max_file_upload_size_mib.
func (h *handler) addStateSections(state map[string]any, st eventqueue.State) {
	if st.UserID != nil {
		state["user_id"] = *st.UserID
	}
	if u := st.Users; u != nil {
		me := u.Me
		state["email"] = me.Email
		state["delivery_email"] = me.DeliveryEmail
		state["full_name"] = me.FullName
		state["is_admin"] = me.IsAdmin
		state["is_owner"] = me.IsOwner
		state["is_moderator"] = me.Role == chatcore.RoleModerator
		state["is_guest"] = me.IsGuest
		state["avatar_source"] = u.AvatarSource
		state["avatar_url"] = me.AvatarURL
		state["avatar_url_medium"] = u.AvatarURLMedium
		state["can_create_public_streams"] = u.CanCreatePublicChannels
		state["can_create_private_streams"] = u.CanCreatePrivateChannels
		// chatcore's channels are never web-public (Zulip's
		// can_create_web_public_streams is false when the server has
		// web-public channels off).
		state["can_create_web_public_streams"] = false
		state["can_create_streams"] = u.CanCreatePublicChannels || u.CanCreatePrivateChannels
		state["can_subscribe_other_users"] = u.CanSubscribeOthers
		state["can_invite_others_to_realm"] = u.CanInviteOthers
		state["realm_users"] = u.Active
		state["realm_non_active_users"] = u.NonActive
		state["cross_realm_bots"] = u.CrossRealmBots
	}
	if st.Bots != nil {
		state["realm_bots"] = st.Bots
	}
	if r := st.Realm; r != nil {
		maps.Copy(state, realmConstants)
		minLength, minGuesses := h.svc.PasswordPolicy()
		state["password_min_length"] = minLength
		state["password_min_guesses"] = int64(math.Ceil(minGuesses))
		state["realm_name"] = r.Name
		state["realm_description"] = r.Description
		state["realm_default_language"] = r.DefaultLanguage
		state["realm_url"] = h.opts.ExternalURL
		state["realm_empty_topic_display_name"] = r.EmptyTopicDisplayName
		state["max_reminder_note_length"] = r.MaxReminderNoteLength
		state["realm_date_created"] = r.DateCreated.Unix()
		state["realm_name_changes_disabled"] = r.NameChangesDisabled
		state["realm_email_changes_disabled"] = r.EmailChangesDisabled
		state["realm_require_unique_names"] = r.RequireUniqueNames
		state["realm_icon_url"] = h.opts.ExternalURL + r.IconPath
		state["realm_icon_source"] = r.IconSource
		state["realm_enable_read_receipts"] = r.EnableReadReceipts
		state["server_emoji_data_url"] = h.opts.ExternalURL + emojiDataPath
		addMessagePolicy(state, r.Messages)
		for name, v := range r.GroupSettings {
			state["realm_"+name] = v
		}
		h.addFileState(state)
	}
	if st.DefaultStreams != nil {
		state["realm_default_streams"] = st.DefaultStreams
	}
	if st.Groups != nil {
		state["realm_user_groups"] = st.Groups
	}
	if s := st.Subscriptions; s != nil {
		state["subscriptions"] = s.Subscribed
		state["unsubscribed"] = s.Unsubscribed
		state["never_subscribed"] = s.NeverSubscribed
	}
	if st.MutedTopics != nil {
		state["muted_topics"] = st.MutedTopics
	}
	if st.UserTopics != nil {
		state["user_topics"] = st.UserTopics
	}
	addPersonalSections(state, st.Personal)
	if st.RealmEmoji != nil {
		state["realm_emoji"] = st.RealmEmoji
	}
	if st.Presence != nil {
		state["presences"] = st.Presence.Presences
		state["presence_last_update_id"] = st.Presence.LastUpdateID
		state["server_timestamp"] = st.Presence.ServerTimestamp
	}
	if st.CustomProfileFields != nil {
		state["custom_profile_fields"] = st.CustomProfileFields
		state["custom_profile_field_types"] = customProfileFieldTypes
	}
	if st.Settings != nil {
		state["user_settings"] = *st.Settings
	}
	if st.UserDefaults != nil {
		state["realm_user_settings_defaults"] = st.UserDefaults
	}
	if st.Linkifiers != nil {
		state["realm_linkifiers"] = st.Linkifiers
	}
	if st.ScheduledMessages != nil {
		state["scheduled_messages"] = st.ScheduledMessages
	}
	if st.Unread != nil {
		state["unread_msgs"] = st.Unread
	}
	if st.MaxMessageID != nil {
		state["max_message_id"] = *st.MaxMessageID
	}
	if st.StarredMessages != nil {
		state["starred_messages"] = st.StarredMessages
	}
	if st.Reminders != nil {
		state["reminders"] = st.Reminders
	}
	if st.Drafts != nil {
		state["drafts"] = st.Drafts
	}
	if st.RecentConversations != nil {
		state["recent_private_conversations"] = st.RecentConversations
	}
	if st.Streams != nil {
		state["streams"] = st.Streams
	}
}

// defaultExternalAccounts is Zulip's DEFAULT_EXTERNAL_ACCOUNTS, the
// external account types a custom profile field may link to.
var defaultExternalAccounts = map[string]any{
	"github": map[string]string{"name": "GitHub", "text": "GitHub", "hint": "Enter your GitHub username", "url_pattern": "https://github.com/%(username)s"},
	"x":      map[string]string{"name": "X", "text": "X", "hint": "Enter your X username", "url_pattern": "https://x.com/%(username)s"},
}

// addMessagePolicy puts the realm's message editing, moving and deleting
// settings into the realm section, as Zulip names them (a limit of null is
// no limit). It also sends realm_allow_edit_history, which Zulip dropped at
// feature level 358 in favour of realm_message_edit_history_visibility_policy:
// zulip-terminal still reads it unconditionally (its message information
// popup fails without it), and it says no more than the policy does.
func addMessagePolicy(state map[string]any, p chatcore.MessagePolicy) {
	state["realm_allow_message_editing"] = !p.ContentEditingDisabled
	state["realm_message_content_edit_limit_seconds"] = p.ContentEditLimit.Seconds(chatcore.DefaultContentEditLimit)
	state["realm_message_content_delete_limit_seconds"] = p.DeleteOwnLimit.Seconds(chatcore.DefaultDeleteOwnLimit)
	state["realm_move_messages_within_stream_limit_seconds"] = p.MoveWithinChannelLimit.Seconds(chatcore.DefaultMoveLimit)
	state["realm_move_messages_between_streams_limit_seconds"] = p.MoveBetweenChannelsLimit.Seconds(chatcore.DefaultMoveLimit)
	state["realm_message_edit_history_visibility_policy"] = "all"
	if p.EditHistoryDisabled {
		state["realm_message_edit_history_visibility_policy"] = "none"
	}
	state["realm_allow_edit_history"] = !p.EditHistoryDisabled
}
