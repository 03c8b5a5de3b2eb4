// Package settings declares chatcore's personal settings (Zulip's user
// settings) once, in [Table], and holds what follows from that table alone:
// the [Settings] struct and [Default] (generated from the table, see
// settings_gen.go), by-name access for stores ([Names], [Settings.Value],
// [Settings.Set], [Settings.Fields]), the error texts of refused values and
// the configured value sets (languages, notification sounds, time zones).
// The rules that need the rest of the domain (who may change what, events)
// are package accounts'; the root package exposes these types as
// chatcore.Settings and friends.
//
// Adding a setting is one row in [Table], `go generate ./...` (which also
// writes the setting's field of accounts.SettingsUpdate) and, in each SQL
// store (store/sqlite and store/postgres), a migration that adds its column;
// the memory store needs nothing more.
package settings

//go:generate go run ./internal/gensettings -accounts ../accounts/settings_gen.go

// This file holds plain data only (no imports, no references to other files),
// so the generator can type-check it on its own.

// Row declares one personal setting.
type Row struct {
	// Name is the wire name (JSON key, PATCH /settings parameter, event
	// property) and the SQLite column.
	Name string
	// Field is the Go field name in Settings and accounts.SettingsUpdate.
	Field string
	// Default is Zulip's value for a new user. Its Go type (bool, int or
	// string) is the setting's type.
	Default any
	// OneOf lists the allowed values, separated by spaces ("" allows any).
	OneOf string
	// Min and Max bound an int setting when Max is non-zero.
	Min, Max int
	// In names the configured set that a string setting's value must
	// belong to.
	In Set
	// Late marks the values Zulip checks in its view, after its parameter
	// parser has checked every other parameter (in alphabetical order); late
	// checks run in table order.
	Late bool
	// Error selects Zulip's error text for a refused value.
	Error ErrorText
	// Who says who may change the setting.
	Who Editors
}

// Set names a configured value set (see Row.In and [Config.Allows]).
type Set int

const (
	Unrestricted Set = iota // no configured set
	Languages               // the configured languages (Config.Languages)
	Sounds                  // the configured notification sounds (Config.Sounds), plus "none"
	TimeZones               // the IANA time zones CanonicalTimezone recognises
)

// ErrorText selects the error text of a refused setting value.
type ErrorText int

const (
	// RuleText is the text of the failed rule: "Invalid <name>: Value error,
	// Not in the list of possible values" for OneOf, "<name> is too small" /
	// "<name> is too large" for Min and Max.
	RuleText ErrorText = iota
	// InvalidText is "Invalid <name>".
	InvalidText
	// BatchingPeriodText is "Invalid email batching period: <value> seconds".
	BatchingPeriodText
	// SoundText is "Invalid notification sound '<value>'".
	SoundText
	// TimezoneText is "Invalid timezone: Value error, Not a recognized time zone".
	TimezoneText
)

// Editors says who may change a setting.
type Editors int

const (
	// UserOrAdmins: the user, and administrators for other users in bulk
	// (PATCH /settings with target_users).
	UserOrAdmins Editors = iota
	// UserOnly: only the user; Zulip's bulk edit does not take it.
	UserOnly
	// UserOnlySensitive: only the user, because Zulip lists it in
	// SECURITY_SENSITIVE_USER_SETTINGS.
	UserOnlySensitive
)

// MaxEmailBatchingPeriod is Zulip's upper bound on
// email_notifications_batching_period_seconds: one week.
const MaxEmailBatchingPeriod = 7 * 24 * 60 * 60

// Table lists the personal settings in declaration order, which is the
// order of [Names], of the [Settings] fields and of the store's columns.
//
// Bounds: Zulip checks web_font_size_px and web_line_height_percent only
// through their database column, a positive small integer; chatcore accepts
// exactly that column's range, 1-32767.
var Table = []Row{
	{Name: "twenty_four_hour_time", Field: "TwentyFourHourTime", Default: false},
	{Name: "web_mark_read_on_scroll_policy", Field: "WebMarkReadOnScrollPolicy", Default: 1, OneOf: "1 2 3"},
	{Name: "web_channel_default_view", Field: "WebChannelDefaultView", Default: 1, OneOf: "1 2 3 4"},
	{Name: "starred_message_counts", Field: "StarredMessageCounts", Default: true},
	{Name: "receives_typing_notifications", Field: "ReceivesTypingNotifications", Default: true},
	{Name: "web_suggest_update_timezone", Field: "WebSuggestUpdateTimezone", Default: true},
	{Name: "fluid_layout_width", Field: "FluidLayoutWidth", Default: false},
	{Name: "high_contrast_mode", Field: "HighContrastMode", Default: false},
	{Name: "web_font_size_px", Field: "WebFontSizePx", Default: 16, Min: 1, Max: 32767},
	{Name: "web_line_height_percent", Field: "WebLineHeightPercent", Default: 140, Min: 1, Max: 32767},
	{Name: "color_scheme", Field: "ColorScheme", Default: 1, OneOf: "1 2 3"},
	{Name: "enable_drafts_synchronization", Field: "EnableDraftsSynchronization", Default: true},
	{Name: "translate_emoticons", Field: "TranslateEmoticons", Default: false},
	{Name: "display_emoji_reaction_users", Field: "DisplayEmojiReactionUsers", Default: true},
	{Name: "default_language", Field: "DefaultLanguage", Default: "en", In: Languages, Late: true, Error: InvalidText},
	{Name: "web_home_view", Field: "WebHomeView", Default: "inbox", OneOf: "recent inbox all_messages"},
	{Name: "web_escape_navigates_to_home_view", Field: "WebEscapeNavigatesToHomeView", Default: true},
	{Name: "left_side_userlist", Field: "LeftSideUserlist", Default: false},
	{Name: "emojiset", Field: "Emojiset", Default: "google", OneOf: "google twitter text"},
	{Name: "demote_inactive_streams", Field: "DemoteInactiveStreams", Default: 1, OneOf: "1 2 3"},
	{Name: "user_list_style", Field: "UserListStyle", Default: 3, OneOf: "1 2 3"},
	{Name: "web_animate_image_previews", Field: "WebAnimateImagePreviews", Default: "on_hover", OneOf: "always on_hover never"},
	{Name: "web_stream_unreads_count_display_policy", Field: "WebStreamUnreadsCountDisplayPolicy", Default: 2, OneOf: "1 2 3"},
	{Name: "hide_ai_features", Field: "HideAIFeatures", Default: false},
	{Name: "web_inbox_show_channel_folders", Field: "WebInboxShowChannelFolders", Default: true},
	{Name: "web_left_sidebar_show_channel_folders", Field: "WebLeftSidebarShowChannelFolders", Default: true},
	{Name: "web_left_sidebar_unreads_count_summary", Field: "WebLeftSidebarUnreadsCountSummary", Default: true},
	{Name: "timezone", Field: "Timezone", Default: "", In: TimeZones, Error: TimezoneText, Who: UserOnly},
	{Name: "enable_stream_desktop_notifications", Field: "EnableStreamDesktopNotifications", Default: false},
	{Name: "enable_stream_email_notifications", Field: "EnableStreamEmailNotifications", Default: false},
	{Name: "enable_stream_push_notifications", Field: "EnableStreamPushNotifications", Default: false},
	{Name: "enable_stream_audible_notifications", Field: "EnableStreamAudibleNotifications", Default: false},
	{Name: "notification_sound", Field: "NotificationSound", Default: "zulip", In: Sounds, Late: true, Error: SoundText},
	{Name: "enable_desktop_notifications", Field: "EnableDesktopNotifications", Default: true},
	{Name: "enable_sounds", Field: "EnableSounds", Default: true},
	{Name: "email_notifications_batching_period_seconds", Field: "EmailNotificationsBatchingPeriodSeconds", Default: 120,
		Min: 1, Max: MaxEmailBatchingPeriod, Late: true, Error: BatchingPeriodText},
	{Name: "enable_offline_email_notifications", Field: "EnableOfflineEmailNotifications", Default: true},
	{Name: "enable_offline_push_notifications", Field: "EnableOfflinePushNotifications", Default: true},
	{Name: "enable_online_push_notifications", Field: "EnableOnlinePushNotifications", Default: true},
	{Name: "enable_followed_topic_desktop_notifications", Field: "EnableFollowedTopicDesktopNotifications", Default: true},
	{Name: "enable_followed_topic_email_notifications", Field: "EnableFollowedTopicEmailNotifications", Default: true},
	{Name: "enable_followed_topic_push_notifications", Field: "EnableFollowedTopicPushNotifications", Default: true},
	{Name: "enable_followed_topic_audible_notifications", Field: "EnableFollowedTopicAudibleNotifications", Default: true},
	{Name: "enable_digest_emails", Field: "EnableDigestEmails", Default: true, Who: UserOnlySensitive},
	{Name: "enable_marketing_emails", Field: "EnableMarketingEmails", Default: true, Who: UserOnlySensitive},
	{Name: "enable_login_emails", Field: "EnableLoginEmails", Default: true, Who: UserOnlySensitive},
	{Name: "message_content_in_email_notifications", Field: "MessageContentInEmailNotifications", Default: true},
	{Name: "pm_content_in_desktop_notifications", Field: "PMContentInDesktopNotifications", Default: true},
	{Name: "wildcard_mentions_notify", Field: "WildcardMentionsNotify", Default: true},
	{Name: "enable_followed_topic_wildcard_mentions_notify", Field: "EnableFollowedTopicWildcardMentionsNotify", Default: true},
	{Name: "desktop_icon_count_display", Field: "DesktopIconCountDisplay", Default: 1, OneOf: "1 2 3 4"},
	{Name: "realm_name_in_email_notifications_policy", Field: "RealmNameInEmailNotificationsPolicy", Default: 1, OneOf: "1 2 3"},
	{Name: "automatically_follow_topics_policy", Field: "AutomaticallyFollowTopicsPolicy", Default: 3, OneOf: "1 2 3 4"},
	{Name: "automatically_unmute_topics_in_muted_streams_policy", Field: "AutomaticallyUnmuteTopicsInMutedStreamsPolicy", Default: 2, OneOf: "1 2 3 4"},
	{Name: "automatically_follow_topics_where_mentioned", Field: "AutomaticallyFollowTopicsWhereMentioned", Default: true},
	{Name: "resolved_topic_notice_auto_read_policy", Field: "ResolvedTopicNoticeAutoReadPolicy", Default: "except_followed",
		OneOf: "always except_followed never", Error: InvalidText},
	{Name: "presence_enabled", Field: "PresenceEnabled", Default: true, Who: UserOnlySensitive},
	{Name: "enter_sends", Field: "EnterSends", Default: false},
	{Name: "send_private_typing_notifications", Field: "SendPrivateTypingNotifications", Default: true, Who: UserOnlySensitive},
	{Name: "send_stream_typing_notifications", Field: "SendStreamTypingNotifications", Default: true, Who: UserOnlySensitive},
	{Name: "send_read_receipts", Field: "SendReadReceipts", Default: true, Who: UserOnlySensitive},
	{Name: "allow_private_data_export", Field: "AllowPrivateDataExport", Default: false, Who: UserOnlySensitive},
	{Name: "email_address_visibility", Field: "EmailAddressVisibility", Default: 1, OneOf: "1 2 3 4 5", Who: UserOnlySensitive},
	{Name: "web_navigate_to_sent_message", Field: "WebNavigateToSentMessage", Default: true},
}
