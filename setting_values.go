package chatcore

// The values some settings accept: the languages of default_language and the
// notification sounds of notification_sound.

import "github.com/chatcore/chatcore/settings"

// WithLanguages replaces the language codes default_language accepts (default:
// Zulip's set, which includes "en" and "de"). Codes Zulip knows keep its
// language name in events; others use the code as their name. The slice is
// copied.
func WithLanguages(codes []string) Option {
	m := settings.LanguageSet(codes)
	return func(s *Service) { s.valueSets.Languages = m }
}

// WithNotificationSounds replaces the notification sounds notification_sound
// accepts (default: Zulip's sounds, such as "zulip", "ding" and "chime"). The
// value "none" is always accepted. The slice is copied.
func WithNotificationSounds(names []string) Option {
	m := settings.SoundSet(names)
	return func(s *Service) { s.valueSets.Sounds = m }
}

// SettingValueSets returns the languages and notification sounds the
// settings accept ([WithLanguages], [WithNotificationSounds]; Zulip's sets by
// default). The maps are shared: callers must not modify them.
func (s *Service) SettingValueSets() settings.Config { return s.valueSets }
