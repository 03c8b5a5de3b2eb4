package chatcore

import (
	"fmt"
	"reflect"
	"sync"
)

// Settings holds a user's personal settings, named and typed as on the wire
// (json tags). Every field is a plain bool, int or string, so a [Store] can keep
// one column per setting; [SettingNames], [Settings.Value] and [Settings.Set]
// give by-name access for stores and bulk updates.
type Settings struct {
	TwentyFourHourTime                            bool   `json:"twenty_four_hour_time"`
	WebMarkReadOnScrollPolicy                     int    `json:"web_mark_read_on_scroll_policy"`
	WebChannelDefaultView                         int    `json:"web_channel_default_view"`
	StarredMessageCounts                          bool   `json:"starred_message_counts"`
	ReceivesTypingNotifications                   bool   `json:"receives_typing_notifications"`
	WebSuggestUpdateTimezone                      bool   `json:"web_suggest_update_timezone"`
	FluidLayoutWidth                              bool   `json:"fluid_layout_width"`
	HighContrastMode                              bool   `json:"high_contrast_mode"`
	WebFontSizePx                                 int    `json:"web_font_size_px"`
	WebLineHeightPercent                          int    `json:"web_line_height_percent"`
	ColorScheme                                   int    `json:"color_scheme"`
	EnableDraftsSynchronization                   bool   `json:"enable_drafts_synchronization"`
	TranslateEmoticons                            bool   `json:"translate_emoticons"`
	DisplayEmojiReactionUsers                     bool   `json:"display_emoji_reaction_users"`
	DefaultLanguage                               string `json:"default_language"`
	WebHomeView                                   string `json:"web_home_view"`
	WebEscapeNavigatesToHomeView                  bool   `json:"web_escape_navigates_to_home_view"`
	LeftSideUserlist                              bool   `json:"left_side_userlist"`
	Emojiset                                      string `json:"emojiset"`
	DemoteInactiveStreams                         int    `json:"demote_inactive_streams"`
	UserListStyle                                 int    `json:"user_list_style"`
	WebAnimateImagePreviews                       string `json:"web_animate_image_previews"`
	WebStreamUnreadsCountDisplayPolicy            int    `json:"web_stream_unreads_count_display_policy"`
	HideAIFeatures                                bool   `json:"hide_ai_features"`
	WebInboxShowChannelFolders                    bool   `json:"web_inbox_show_channel_folders"`
	WebLeftSidebarShowChannelFolders              bool   `json:"web_left_sidebar_show_channel_folders"`
	WebLeftSidebarUnreadsCountSummary             bool   `json:"web_left_sidebar_unreads_count_summary"`
	Timezone                                      string `json:"timezone"`
	EnableStreamDesktopNotifications              bool   `json:"enable_stream_desktop_notifications"`
	EnableStreamEmailNotifications                bool   `json:"enable_stream_email_notifications"`
	EnableStreamPushNotifications                 bool   `json:"enable_stream_push_notifications"`
	EnableStreamAudibleNotifications              bool   `json:"enable_stream_audible_notifications"`
	NotificationSound                             string `json:"notification_sound"`
	EnableDesktopNotifications                    bool   `json:"enable_desktop_notifications"`
	EnableSounds                                  bool   `json:"enable_sounds"`
	EmailNotificationsBatchingPeriodSeconds       int    `json:"email_notifications_batching_period_seconds"`
	EnableOfflineEmailNotifications               bool   `json:"enable_offline_email_notifications"`
	EnableOfflinePushNotifications                bool   `json:"enable_offline_push_notifications"`
	EnableOnlinePushNotifications                 bool   `json:"enable_online_push_notifications"`
	EnableFollowedTopicDesktopNotifications       bool   `json:"enable_followed_topic_desktop_notifications"`
	EnableFollowedTopicEmailNotifications         bool   `json:"enable_followed_topic_email_notifications"`
	EnableFollowedTopicPushNotifications          bool   `json:"enable_followed_topic_push_notifications"`
	EnableFollowedTopicAudibleNotifications       bool   `json:"enable_followed_topic_audible_notifications"`
	EnableDigestEmails                            bool   `json:"enable_digest_emails"`
	EnableMarketingEmails                         bool   `json:"enable_marketing_emails"`
	EnableLoginEmails                             bool   `json:"enable_login_emails"`
	MessageContentInEmailNotifications            bool   `json:"message_content_in_email_notifications"`
	PMContentInDesktopNotifications               bool   `json:"pm_content_in_desktop_notifications"`
	WildcardMentionsNotify                        bool   `json:"wildcard_mentions_notify"`
	EnableFollowedTopicWildcardMentionsNotify     bool   `json:"enable_followed_topic_wildcard_mentions_notify"`
	DesktopIconCountDisplay                       int    `json:"desktop_icon_count_display"`
	RealmNameInEmailNotificationsPolicy           int    `json:"realm_name_in_email_notifications_policy"`
	AutomaticallyFollowTopicsPolicy               int    `json:"automatically_follow_topics_policy"`
	AutomaticallyUnmuteTopicsInMutedStreamsPolicy int    `json:"automatically_unmute_topics_in_muted_streams_policy"`
	AutomaticallyFollowTopicsWhereMentioned       bool   `json:"automatically_follow_topics_where_mentioned"`
	ResolvedTopicNoticeAutoReadPolicy             string `json:"resolved_topic_notice_auto_read_policy"`
	PresenceEnabled                               bool   `json:"presence_enabled"`
	EnterSends                                    bool   `json:"enter_sends"`
	SendPrivateTypingNotifications                bool   `json:"send_private_typing_notifications"`
	SendStreamTypingNotifications                 bool   `json:"send_stream_typing_notifications"`
	SendReadReceipts                              bool   `json:"send_read_receipts"`
	AllowPrivateDataExport                        bool   `json:"allow_private_data_export"`
	EmailAddressVisibility                        int    `json:"email_address_visibility"`
	WebNavigateToSentMessage                      bool   `json:"web_navigate_to_sent_message"`
}

// DefaultSettings returns Zulip's defaults for a new user.
func DefaultSettings() Settings {
	return Settings{
		TwentyFourHourTime:                            false,
		WebMarkReadOnScrollPolicy:                     1,
		WebChannelDefaultView:                         1,
		StarredMessageCounts:                          true,
		ReceivesTypingNotifications:                   true,
		WebSuggestUpdateTimezone:                      true,
		FluidLayoutWidth:                              false,
		HighContrastMode:                              false,
		WebFontSizePx:                                 16,
		WebLineHeightPercent:                          140,
		ColorScheme:                                   1,
		EnableDraftsSynchronization:                   true,
		TranslateEmoticons:                            false,
		DisplayEmojiReactionUsers:                     true,
		DefaultLanguage:                               "en",
		WebHomeView:                                   "inbox",
		WebEscapeNavigatesToHomeView:                  true,
		LeftSideUserlist:                              false,
		Emojiset:                                      "google",
		DemoteInactiveStreams:                         1,
		UserListStyle:                                 3,
		WebAnimateImagePreviews:                       "on_hover",
		WebStreamUnreadsCountDisplayPolicy:            2,
		HideAIFeatures:                                false,
		WebInboxShowChannelFolders:                    true,
		WebLeftSidebarShowChannelFolders:              true,
		WebLeftSidebarUnreadsCountSummary:             true,
		Timezone:                                      "",
		EnableStreamDesktopNotifications:              false,
		EnableStreamEmailNotifications:                false,
		EnableStreamPushNotifications:                 false,
		EnableStreamAudibleNotifications:              false,
		NotificationSound:                             "zulip",
		EnableDesktopNotifications:                    true,
		EnableSounds:                                  true,
		EmailNotificationsBatchingPeriodSeconds:       120,
		EnableOfflineEmailNotifications:               true,
		EnableOfflinePushNotifications:                true,
		EnableOnlinePushNotifications:                 true,
		EnableFollowedTopicDesktopNotifications:       true,
		EnableFollowedTopicEmailNotifications:         true,
		EnableFollowedTopicPushNotifications:          true,
		EnableFollowedTopicAudibleNotifications:       true,
		EnableDigestEmails:                            true,
		EnableMarketingEmails:                         true,
		EnableLoginEmails:                             true,
		MessageContentInEmailNotifications:            true,
		PMContentInDesktopNotifications:               true,
		WildcardMentionsNotify:                        true,
		EnableFollowedTopicWildcardMentionsNotify:     true,
		DesktopIconCountDisplay:                       1,
		RealmNameInEmailNotificationsPolicy:           1,
		AutomaticallyFollowTopicsPolicy:               3,
		AutomaticallyUnmuteTopicsInMutedStreamsPolicy: 2,
		AutomaticallyFollowTopicsWhereMentioned:       true,
		ResolvedTopicNoticeAutoReadPolicy:             "except_followed",
		PresenceEnabled:                               true,
		EnterSends:                                    false,
		SendPrivateTypingNotifications:                true,
		SendStreamTypingNotifications:                 true,
		SendReadReceipts:                              true,
		AllowPrivateDataExport:                        false,
		EmailAddressVisibility:                        1,
		WebNavigateToSentMessage:                      true,
	}
}

// settingField describes one field of Settings.
type settingField struct {
	name  string
	index int
	kind  reflect.Kind
}

var settingFields = sync.OnceValues(func() ([]settingField, map[string]int) {
	t := reflect.TypeFor[Settings]()
	fields := make([]settingField, t.NumField())
	byName := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		fields[i] = settingField{name: f.Tag.Get("json"), index: i, kind: f.Type.Kind()}
		byName[fields[i].name] = i
	}
	return fields, byName
})

// SettingNames returns the wire names of all settings in declaration order.
// The slice is a fresh copy.
func SettingNames() []string {
	fields, _ := settingFields()
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

// IsSetting reports whether name is the wire name of a setting.
func IsSetting(name string) bool {
	_, byName := settingFields()
	_, ok := byName[name]
	return ok
}

// Value returns the value of the named setting as a bool, int or string. It
// reports false for an unknown name.
func (s *Settings) Value(name string) (any, bool) {
	fields, byName := settingFields()
	i, ok := byName[name]
	if !ok {
		return nil, false
	}
	v := reflect.ValueOf(s).Elem().Field(fields[i].index)
	switch fields[i].kind {
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Int:
		return int(v.Int()), true
	default:
		return v.String(), true
	}
}

// Set assigns the named setting. v must be a bool, an integer or a string
// matching the setting's type (any integer type is accepted for int settings);
// Set performs no range validation.
func (s *Settings) Set(name string, v any) error {
	fields, byName := settingFields()
	i, ok := byName[name]
	if !ok {
		return fmt.Errorf("chatcore: unknown setting %q", name)
	}
	f := reflect.ValueOf(s).Elem().Field(fields[i].index)
	rv := reflect.ValueOf(v)
	switch {
	case fields[i].kind == reflect.Bool && rv.Kind() == reflect.Bool:
		f.SetBool(rv.Bool())
	case fields[i].kind == reflect.Int && rv.CanInt():
		f.SetInt(rv.Int())
	case fields[i].kind == reflect.String && rv.Kind() == reflect.String:
		f.SetString(rv.String())
	default:
		return fmt.Errorf("chatcore: setting %q: cannot assign %T", name, v)
	}
	return nil
}

// Fields returns pointers to every setting field in [SettingNames] order, for
// stores that scan one column per setting (*bool, *int or *string).
func (s *Settings) Fields() []any {
	fields, _ := settingFields()
	v := reflect.ValueOf(s).Elem()
	out := make([]any, len(fields))
	for i, f := range fields {
		out[i] = v.Field(f.index).Addr().Interface()
	}
	return out
}
