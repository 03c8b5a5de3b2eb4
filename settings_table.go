package chatcore

//go:generate go run ./internal/gensettings

// This file declares every personal setting once. internal/gensettings reads
// it (go generate) and writes settings_gen.go: the Settings struct,
// DefaultSettings, the setting fields of SettingsUpdate with validate tags
// derived from the rules below, and the by-name accessors. The Service reads
// the same rows at run time for the rules that need code (configured sets,
// error texts, who may change a setting). The SQLite store names one column
// after each setting. Adding a setting is one row here, `go generate`, and one
// migration that adds its column.
//
// The file holds plain data only (no imports, no references to other files),
// so the generator can type-check it on its own.

// settingRow declares one personal setting.
type settingRow struct {
	// Name is the wire name (JSON key, PATCH /settings parameter, event
	// property) and the SQLite column.
	Name string
	// Field is the Go field name in Settings and SettingsUpdate.
	Field string
	// Default is Zulip's value for a new user. Its Go type (bool, int or
	// string) is the setting's type.
	Default any
	// OneOf lists the allowed values, separated by spaces ("" allows any).
	OneOf string
	// Min and Max bound an int setting when Max is non-zero.
	Min, Max int
	// In names the set, defined by the Service's configuration, that a
	// string setting's value must belong to.
	In settingSet
	// Late marks the values Zulip checks in its view, after its parameter
	// parser has checked every other parameter (in alphabetical order); late
	// checks run in table order.
	Late bool
	// Error selects Zulip's error text for a refused value.
	Error settingError
	// Who says who may change the setting.
	Who settingEditors
}

// settingSet names a configured value set (see settingRow.In).
type settingSet int

const (
	inAny       settingSet = iota // no configured set
	inLanguages                   // the Service's languages (WithLanguages)
	inSounds                      // the Service's notification sounds (WithNotificationSounds), plus "none"
	inTimeZones                   // the IANA time zones CanonicalTimezone recognises
)

// settingError selects the error text of a refused setting value.
type settingError int

const (
	// errRule is the text of the failed rule: "Invalid <name>: Value error,
	// Not in the list of possible values" for OneOf, "<name> is too small" /
	// "<name> is too large" for Min and Max.
	errRule settingError = iota
	// errInvalid is "Invalid <name>".
	errInvalid
	// errBatchingPeriod is "Invalid email batching period: <value> seconds".
	errBatchingPeriod
	// errSound is "Invalid notification sound '<value>'".
	errSound
	// errTimezone is "Invalid timezone: Value error, Not a recognized time zone".
	errTimezone
)

// settingEditors says who may change a setting.
type settingEditors int

const (
	// userOrAdmins: the user, and administrators for other users in bulk
	// (PATCH /settings with target_users).
	userOrAdmins settingEditors = iota
	// userOnly: only the user; Zulip's bulk edit does not take it.
	userOnly
	// userOnlySensitive: only the user, because Zulip lists it in
	// SECURITY_SENSITIVE_USER_SETTINGS.
	userOnlySensitive
)

// maxEmailBatchingPeriod is Zulip's upper bound on
// email_notifications_batching_period_seconds: one week.
const maxEmailBatchingPeriod = 7 * 24 * 60 * 60

// settingsTable lists the personal settings in declaration order, which is the
// order of SettingNames, of the Settings fields and of the store's columns.
//
// Bounds: Zulip checks web_font_size_px and web_line_height_percent only
// through their database column, a positive small integer; chatcore accepts
// exactly that column's range, 1-32767.
var settingsTable = []settingRow{
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
	{Name: "default_language", Field: "DefaultLanguage", Default: "en", In: inLanguages, Late: true, Error: errInvalid},
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
	{Name: "timezone", Field: "Timezone", Default: "", In: inTimeZones, Error: errTimezone, Who: userOnly},
	{Name: "enable_stream_desktop_notifications", Field: "EnableStreamDesktopNotifications", Default: false},
	{Name: "enable_stream_email_notifications", Field: "EnableStreamEmailNotifications", Default: false},
	{Name: "enable_stream_push_notifications", Field: "EnableStreamPushNotifications", Default: false},
	{Name: "enable_stream_audible_notifications", Field: "EnableStreamAudibleNotifications", Default: false},
	{Name: "notification_sound", Field: "NotificationSound", Default: "zulip", In: inSounds, Late: true, Error: errSound},
	{Name: "enable_desktop_notifications", Field: "EnableDesktopNotifications", Default: true},
	{Name: "enable_sounds", Field: "EnableSounds", Default: true},
	{Name: "email_notifications_batching_period_seconds", Field: "EmailNotificationsBatchingPeriodSeconds", Default: 120,
		Min: 1, Max: maxEmailBatchingPeriod, Late: true, Error: errBatchingPeriod},
	{Name: "enable_offline_email_notifications", Field: "EnableOfflineEmailNotifications", Default: true},
	{Name: "enable_offline_push_notifications", Field: "EnableOfflinePushNotifications", Default: true},
	{Name: "enable_online_push_notifications", Field: "EnableOnlinePushNotifications", Default: true},
	{Name: "enable_followed_topic_desktop_notifications", Field: "EnableFollowedTopicDesktopNotifications", Default: true},
	{Name: "enable_followed_topic_email_notifications", Field: "EnableFollowedTopicEmailNotifications", Default: true},
	{Name: "enable_followed_topic_push_notifications", Field: "EnableFollowedTopicPushNotifications", Default: true},
	{Name: "enable_followed_topic_audible_notifications", Field: "EnableFollowedTopicAudibleNotifications", Default: true},
	{Name: "enable_digest_emails", Field: "EnableDigestEmails", Default: true, Who: userOnlySensitive},
	{Name: "enable_marketing_emails", Field: "EnableMarketingEmails", Default: true, Who: userOnlySensitive},
	{Name: "enable_login_emails", Field: "EnableLoginEmails", Default: true, Who: userOnlySensitive},
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
		OneOf: "always except_followed never", Error: errInvalid},
	{Name: "presence_enabled", Field: "PresenceEnabled", Default: true, Who: userOnlySensitive},
	{Name: "enter_sends", Field: "EnterSends", Default: false},
	{Name: "send_private_typing_notifications", Field: "SendPrivateTypingNotifications", Default: true, Who: userOnlySensitive},
	{Name: "send_stream_typing_notifications", Field: "SendStreamTypingNotifications", Default: true, Who: userOnlySensitive},
	{Name: "send_read_receipts", Field: "SendReadReceipts", Default: true, Who: userOnlySensitive},
	{Name: "allow_private_data_export", Field: "AllowPrivateDataExport", Default: false, Who: userOnlySensitive},
	{Name: "email_address_visibility", Field: "EmailAddressVisibility", Default: 1, OneOf: "1 2 3 4 5", Who: userOnlySensitive},
	{Name: "web_navigate_to_sent_message", Field: "WebNavigateToSentMessage", Default: true},
}
