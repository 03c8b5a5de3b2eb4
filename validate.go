package chatcore

import (
	"cmp"
	"context"
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

// maxEmailBatchingPeriod is Zulip's upper bound on
// email_notifications_batching_period_seconds: one week.
const maxEmailBatchingPeriod = 7 * 24 * 60 * 60

// settingValueSets are the named value sets of enumerated settings, registered
// as validator aliases (used in SettingsUpdate's validate tags).
var settingValueSets = []struct{ alias, tags string }{
	{"mark_read_policies", "oneof=1 2 3"},
	{"channel_default_views", "oneof=1 2 3 4"},
	{"color_schemes", "oneof=1 2 3"},
	{"demote_streams_policies", "oneof=1 2 3"},
	{"user_list_styles", "oneof=1 2 3"},
	{"unreads_count_policies", "oneof=1 2 3"},
	{"desktop_icon_counts", "oneof=1 2 3 4"},
	{"realm_name_policies", "oneof=1 2 3"},
	{"topic_visibility_policies", "oneof=1 2 3 4"},
	{"email_visibilities", "oneof=1 2 3 4 5"},
	{"home_views", "oneof=recent inbox all_messages"},
	{"emojisets", "oneof=google twitter text"},
	{"animate_previews", "oneof=always on_hover never"},
	{"resolved_topic_policies", "oneof=always except_followed never"},
}

// validatorCtxKey carries the *settingsConfig custom validations check against.
type validatorCtxKey struct{}

func configFrom(ctx context.Context) *settingsConfig {
	if cfg, ok := ctx.Value(validatorCtxKey{}).(*settingsConfig); ok {
		return cfg
	}
	return zulipSettingsConfig()
}

// settingsValidator is the one validator of the package. Registration is not
// safe for concurrent use, so everything is registered here, once.
var settingsValidator = sync.OnceValue(func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	for _, set := range settingValueSets {
		v.RegisterAlias(set.alias, set.tags)
	}
	must := func(err error) {
		if err != nil {
			panic(err) // a programming error in the registrations below
		}
	}
	must(v.RegisterValidationCtx("language", func(ctx context.Context, fl validator.FieldLevel) bool {
		_, ok := configFrom(ctx).languages[fl.Field().String()]
		return ok
	}))
	must(v.RegisterValidationCtx("notification_sound", func(ctx context.Context, fl validator.FieldLevel) bool {
		s := fl.Field().String()
		_, ok := configFrom(ctx).sounds[s]
		return ok || s == "none"
	}))
	must(v.RegisterValidation("timezone", func(fl validator.FieldLevel) bool {
		return CanonicalTimezone(fl.Field().String()) != ""
	}))
	must(v.RegisterValidation("batching_period", func(fl validator.FieldLevel) bool {
		n := fl.Field().Int()
		return n > 0 && n <= maxEmailBatchingPeriod
	}))
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

// Zulip validates in two steps: the parameter parser checks value sets (and
// reports the first failure in parameter order, which is alphabetical), and
// only then does the view check the language, the sound and the batching
// period, in that order. validationPhase2 gives those three their rank.
var validationPhase2 = map[string]int{
	"default_language":                            0,
	"notification_sound":                          1,
	"email_notifications_batching_period_seconds": 2,
}

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

// validate checks u against cfg and returns the first failure of each of
// Zulip's two validation steps (see validationPhase2).
func (u *SettingsUpdate) validate(cfg *settingsConfig) (first, second error) {
	ctx := context.WithValue(context.Background(), validatorCtxKey{}, cfg)
	err := settingsValidator().StructCtx(ctx, u)
	if err == nil {
		return nil, nil
	}
	verrs, ok := errors.AsType[validator.ValidationErrors](err)
	if !ok {
		return fmt.Errorf("chatcore: validating settings: %w", err), nil
	}
	type ranked struct {
		phase, rank int
		name        string
		fe          validator.FieldError
	}
	all := make([]ranked, 0, len(verrs))
	for _, fe := range verrs {
		name := topLevelName(fe)
		r := ranked{name: name, fe: fe}
		if p, ok := validationPhase2[name]; ok {
			r.phase, r.rank = 2, p
		} else {
			r.phase = 1
		}
		all = append(all, r)
	}
	slices.SortStableFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.phase, b.phase), cmp.Compare(a.rank, b.rank), strings.Compare(a.name, b.name))
	})
	for _, r := range all {
		e := translateFieldError(r.fe)
		if r.phase == 1 && first == nil {
			first = e
		}
		if r.phase == 2 && second == nil {
			second = e
		}
	}
	return first, second
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

// fieldErrorMessages translates validator tags (aliases included) into
// Zulip's errors. Tags not listed fall back to the value-set message when they
// are a oneof, and to "Invalid <name>" otherwise.
var fieldErrorMessages = map[string]func(fe validator.FieldError) *Error{
	"language": func(validator.FieldError) *Error { return BadRequest("Invalid default_language") },
	"notification_sound": func(fe validator.FieldError) *Error {
		return BadRequestf("Invalid notification sound '%v'", fe.Value())
	},
	"batching_period": func(fe validator.FieldError) *Error {
		return BadRequestf("Invalid email batching period: %v seconds", fe.Value())
	},
	"timezone": func(validator.FieldError) *Error {
		return BadRequest("Invalid timezone: Value error, Not a recognized time zone")
	},
	"resolved_topic_policies": func(validator.FieldError) *Error {
		return BadRequest("Invalid resolved_topic_notice_auto_read_policy")
	},
	"min":               tooSmall,
	"gte":               tooSmall,
	"gt":                tooSmall,
	"max":               tooLarge,
	"lte":               tooLarge,
	"lt":                tooLarge,
	"user_or_group_ids": func(validator.FieldError) *Error { return BadRequest("Either user_ids or group_ids must be provided.") },
	"too_many_ids": func(fe validator.FieldError) *Error {
		return BadRequestf("target_users[%q] is too long (limit: %d items)", fe.Field(), MaxBulkTargetIDs)
	},
	"required": func(fe validator.FieldError) *Error {
		if parent := topLevelName(fe); parent != fe.Field() {
			return BadRequestf("%s[%q] field is missing: Field required", parent, fe.Field())
		}
		return MissingArgument(fe.Field())
	},
}

func tooSmall(fe validator.FieldError) *Error { return BadRequestf("%s is too small", fe.Field()) }
func tooLarge(fe validator.FieldError) *Error { return BadRequestf("%s is too large", fe.Field()) }

// translateFieldError turns one validator failure into Zulip's error.
func translateFieldError(fe validator.FieldError) *Error {
	if msg, ok := fieldErrorMessages[fe.Tag()]; ok {
		return msg(fe)
	}
	if fe.ActualTag() == "oneof" {
		return BadRequestf("Invalid %s: Value error, Not in the list of possible values", fe.Field())
	}
	return BadRequestf("Invalid %s", fe.Field()) // a tag without a translation: still a clear 400
}

// CanonicalTimezone returns the canonical IANA name of the time zone name
// (a backward-compatibility link such as "America/Montreal" becomes
// "America/Toronto"), or "" when name is not a time zone chatcore recognises.
// The IANA database is embedded (time/tzdata), so the answer does not depend
// on the machine. CanonicalTimezone is safe for concurrent use.
func CanonicalTimezone(name string) string { return tz.Canonical(name) }
