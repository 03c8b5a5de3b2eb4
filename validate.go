package chatcore

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/chatcore/chatcore/internal/tz"
	"github.com/go-playground/validator/v10"
)

// settingsConfig is the settings-specific configuration of a [Service]
// (embedded in it): the accepted languages and notification sounds and the
// password policy. Its maps are never modified after construction, so a
// config may be shared.
type settingsConfig struct {
	// languages maps accepted default_language codes to language names.
	languages map[string]string
	// sounds holds the accepted notification sounds; "none" is always accepted.
	sounds             map[string]struct{}
	minPasswordLength  int
	minPasswordGuesses float64
}

// defaultSettingsConfig returns Zulip's languages and sounds and password policy.
func defaultSettingsConfig() settingsConfig {
	return *zulipSettingsConfig()
}

var zulipSettingsConfig = sync.OnceValue(func() *settingsConfig {
	return &settingsConfig{
		languages:          zulipLanguages,
		sounds:             soundSet(zulipNotificationSounds),
		minPasswordLength:  defaultPasswordMinLength,
		minPasswordGuesses: defaultPasswordMinGuesses,
	}
})

func soundSet(names []string) map[string]struct{} {
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}

// WithLanguages replaces the language codes default_language accepts (default:
// Zulip's set, which includes "en" and "de"). Codes Zulip knows keep its
// language name in events; others use the code as their name. The slice is
// copied.
func WithLanguages(codes []string) Option {
	m := make(map[string]string, len(codes))
	for _, c := range codes {
		name, ok := zulipLanguages[c]
		if !ok {
			name = c
		}
		m[c] = name
	}
	return func(s *Service) { s.languages = m }
}

// WithNotificationSounds replaces the notification sounds notification_sound
// accepts (default: Zulip's sounds, such as "zulip", "ding" and "chime"). The
// value "none" is always accepted. The slice is copied.
func WithNotificationSounds(names []string) Option {
	m := soundSet(names)
	return func(s *Service) { s.sounds = m }
}

// languageName returns the name of an accepted language code.
func (cfg *settingsConfig) languageName(code string) string {
	if name, ok := cfg.languages[code]; ok {
		return name
	}
	return code
}

// allows reports whether v belongs to the configured set.
func (cfg *settingsConfig) allows(set settingSet, v string) bool {
	switch set {
	case inLanguages:
		_, ok := cfg.languages[v]
		return ok
	case inSounds:
		_, ok := cfg.sounds[v]
		return ok || v == "none"
	case inTimeZones:
		return CanonicalTimezone(v) != ""
	}
	return true
}

// settingsValidator is the one validator of the package. It checks the rules
// declared once in struct tags: the value sets and bounds of the settings
// (generated from settingsTable) and the shape of TargetUsers. Registration
// is not safe for concurrent use, so everything is registered here, once.
var settingsValidator = sync.OnceValue(func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	v.RegisterStructValidation(func(sl validator.StructLevel) {
		t := sl.Current().Interface().(TargetUsers)
		if len(t.UserIDs) == 0 && len(t.GroupIDs) == 0 {
			sl.ReportError(t.UserIDs, "user_ids", "UserIDs", "user_or_group_ids", "")
		}
		if len(t.UserIDs) > MaxBulkTargetIDs {
			sl.ReportError(t.UserIDs, "user_ids", "UserIDs", "too_many_ids", "")
		}
		if len(t.GroupIDs) > MaxBulkTargetIDs {
			sl.ReportError(t.GroupIDs, "group_ids", "GroupIDs", "too_many_ids", "")
		}
	}, TargetUsers{})
	return v
})

// Validate checks every field of u against Zulip's value sets and bounds, the
// languages and sounds using Zulip's default sets, and returns the first
// failure as an [*Error] (BAD_REQUEST) with Zulip's exact message, for example
// "Invalid color_scheme: Value error, Not in the list of possible values". It
// checks values only: rules that need stored data (passwords, names, e-mail
// addresses, permissions) are checked by [Service.UpdateSettings], which also
// checks languages and sounds against the Service's configured sets.
// Validate is safe for concurrent use.
func (u *SettingsUpdate) Validate() error {
	first, second := u.validate(zulipSettingsConfig())
	if first != nil {
		return first
	}
	return second
}

// settingFailure is one refused request parameter.
type settingFailure struct {
	name string
	late bool // checked by Zulip's view (settingRow.Late)
	rank int  // table position of a late setting
	err  *Error
}

// ValidateSettings checks u as [Service.UpdateSettings] does before it looks
// at the acting user: the field rules (time zones included), then the values
// that must be among the Service's configured languages and notification
// sounds. It returns the first refusal, a BAD_REQUEST [*Error] with Zulip's
// message, or nil; any other error is a failure of the validator itself.
func (s *Service) ValidateSettings(u *SettingsUpdate) error {
	first, second := u.validate(&s.settingsConfig)
	if first != nil {
		return first
	}
	return second
}

// validate checks u against the struct-tag rules and the sets of cfg, and
// returns the first failure of each of Zulip's two validation steps: its
// parameter parser reports the first failure in parameter order (which is
// alphabetical); only then does its view check the late settings (language,
// sound, batching period), in table order.
func (u *SettingsUpdate) validate(cfg *settingsConfig) (first, second error) {
	var fails []settingFailure
	add := func(name string, e *Error) {
		f := settingFailure{name: name, err: e}
		if i := settingIndex(name); i >= 0 && settingsTable[i].Late {
			f.late, f.rank = true, i
		}
		fails = append(fails, f)
	}
	if err := settingsValidator().Struct(u); err != nil {
		verrs, ok := errors.AsType[validator.ValidationErrors](err)
		if !ok {
			return fmt.Errorf("chatcore: validating settings: %w", err), nil
		}
		for _, fe := range verrs {
			add(topLevelName(fe), translateFieldError(fe))
		}
	}
	for _, c := range u.settingChanges() {
		r := c.row()
		if r.In != inAny && !cfg.allows(r.In, c.value.(string)) {
			add(c.name, r.refused("", c.value))
		}
	}
	slices.SortStableFunc(fails, func(a, b settingFailure) int {
		if a.late != b.late {
			if a.late {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.rank, b.rank), strings.Compare(a.name, b.name))
	})
	for _, f := range fails {
		if !f.late && first == nil {
			first = f.err
		}
		if f.late && second == nil {
			second = f.err
		}
	}
	return first, second
}

// refused returns Zulip's error for a refused value of the setting; rule is
// the validator tag that failed ("" for a configured set).
func (r *settingRow) refused(rule string, value any) *Error {
	switch r.Error {
	case errInvalid:
		return BadRequestf("Invalid %s", r.Name)
	case errBatchingPeriod:
		return BadRequestf("Invalid email batching period: %v seconds", value)
	case errSound:
		return BadRequestf("Invalid notification sound '%v'", value)
	case errTimezone:
		return BadRequest("Invalid timezone: Value error, Not a recognized time zone")
	case errRule:
		switch rule {
		case "min":
			return BadRequestf("%s is too small", r.Name)
		case "max":
			return BadRequestf("%s is too large", r.Name)
		case "oneof":
			return BadRequestf("Invalid %s: Value error, Not in the list of possible values", r.Name)
		}
	}
	return BadRequestf("Invalid %s", r.Name) // a rule without a text of its own: still a clear 400
}

// topLevelName returns the wire name of the request parameter fe belongs to
// ("target_users" for its nested fields).
func topLevelName(fe validator.FieldError) string {
	ns := fe.Namespace() // "SettingsUpdate.target_users.user_ids"
	_, rest, ok := strings.Cut(ns, ".")
	if !ok {
		return fe.Field()
	}
	name, _, _ := strings.Cut(rest, ".")
	return name
}

// fieldErrorMessages translates the validator tags of fields that are not
// settings (target_users) into Zulip's errors.
var fieldErrorMessages = map[string]func(fe validator.FieldError) *Error{
	"user_or_group_ids": func(validator.FieldError) *Error { return BadRequest("Either user_ids or group_ids must be provided.") },
	"too_many_ids": func(fe validator.FieldError) *Error {
		return errTooLong(fmt.Sprintf("target_users[%q]", fe.Field()), MaxBulkTargetIDs)
	},
	"required": func(fe validator.FieldError) *Error {
		if parent := topLevelName(fe); parent != fe.Field() {
			return BadRequestf("%s[%q] field is missing: Field required", parent, fe.Field())
		}
		return MissingArgument(fe.Field())
	},
}

// translateFieldError turns one validator failure into Zulip's error: a
// setting's through its table row, anything else through fieldErrorMessages.
func translateFieldError(fe validator.FieldError) *Error {
	if topLevelName(fe) == fe.Field() {
		if i := settingIndex(fe.Field()); i >= 0 {
			return settingsTable[i].refused(fe.Tag(), fe.Value())
		}
	}
	if msg, ok := fieldErrorMessages[fe.Tag()]; ok {
		return msg(fe)
	}
	return BadRequestf("Invalid %s", fe.Field()) // a tag without a translation: still a clear 400
}

// CanonicalTimezone returns the canonical IANA name of the time zone name
// (a backward-compatibility link such as "America/Montreal" becomes
// "America/Toronto"), or "" when name is not a time zone chatcore recognises.
// The IANA database is embedded (time/tzdata), so the answer does not depend
// on the machine. CanonicalTimezone is safe for concurrent use.
func CanonicalTimezone(name string) string { return tz.Canonical(name) }
