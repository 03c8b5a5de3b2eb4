package accounts

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/tz"
	"github.com/chatcore/chatcore/settings"
	"github.com/go-playground/validator/v10"
)

// zulipValueSets are Zulip's languages and notification sounds, which
// [SettingsUpdate.Validate] checks against.
var zulipValueSets = sync.OnceValue(settings.ZulipConfig)

// settingsValidator is the one validator of the package. It checks the rules
// declared once in struct tags: the value sets and bounds of the settings
// (generated from settings.Table) and the shape of TargetUsers. Registration
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
// failure as an [*chatcore.Error] (BAD_REQUEST) with Zulip's exact message, for example
// "Invalid color_scheme: Value error, Not in the list of possible values". It
// checks values only: rules that need stored data (passwords, names, e-mail
// addresses, permissions) are checked by [UpdateSettings], which also
// checks languages and sounds against the Service's configured sets.
// Validate is safe for concurrent use.
func (u *SettingsUpdate) Validate() error {
	sets := zulipValueSets()
	first, second := u.validate(&sets)
	if first != nil {
		return first
	}
	return second
}

// settingFailure is one refused request parameter.
type settingFailure struct {
	name string
	late bool // checked by Zulip's view (settings.Row.Late)
	rank int  // table position of a late setting
	err  *chatcore.Error
}

// ValidateSettings checks u as [UpdateSettings] does before it looks
// at the acting user: the field rules (time zones included), then the values
// that must be among the Service's configured languages and notification
// sounds. It returns the first refusal, a BAD_REQUEST [*chatcore.Error] with Zulip's
// message, or nil; any other error is a failure of the validator itself.
func ValidateSettings(svc *chatcore.Service, u *SettingsUpdate) error {
	sets := svc.SettingValueSets()
	first, second := u.validate(&sets)
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
func (u *SettingsUpdate) validate(cfg *settings.Config) (first, second error) {
	var fails []settingFailure
	add := func(name string, e *chatcore.Error) {
		f := settingFailure{name: name, err: e}
		if i := settings.Index(name); i >= 0 && settings.Table[i].Late {
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
		if c.row.In != settings.Unrestricted && !cfg.Allows(c.row.In, c.value.(string)) {
			add(c.row.Name, chatcore.BadRequest(c.row.Refusal("", c.value)))
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
var fieldErrorMessages = map[string]func(fe validator.FieldError) *chatcore.Error{
	"user_or_group_ids": func(validator.FieldError) *chatcore.Error {
		return chatcore.BadRequest("Either user_ids or group_ids must be provided.")
	},
	"too_many_ids": func(fe validator.FieldError) *chatcore.Error {
		return chatcore.TooLongError(fmt.Sprintf("target_users[%q]", fe.Field()), MaxBulkTargetIDs)
	},
	"required": func(fe validator.FieldError) *chatcore.Error {
		if parent := topLevelName(fe); parent != fe.Field() {
			return chatcore.BadRequestf("%s[%q] field is missing: Field required", parent, fe.Field())
		}
		return chatcore.MissingArgument(fe.Field())
	},
}

// translateFieldError turns one validator failure into Zulip's error: a
// setting's through its table row, anything else through fieldErrorMessages.
func translateFieldError(fe validator.FieldError) *chatcore.Error {
	if topLevelName(fe) == fe.Field() {
		if i := settings.Index(fe.Field()); i >= 0 {
			return chatcore.BadRequest(settings.Table[i].Refusal(fe.Tag(), fe.Value()))
		}
	}
	if msg, ok := fieldErrorMessages[fe.Tag()]; ok {
		return msg(fe)
	}
	return chatcore.BadRequestf("Invalid %s", fe.Field()) // a tag without a translation: still a clear 400
}

// CanonicalTimezone returns the canonical IANA name of the time zone name
// (a backward-compatibility link such as "America/Montreal" becomes
// "America/Toronto"), or "" when name is not a time zone chatcore recognises.
// The IANA database is embedded (time/tzdata), so the answer does not depend
// on the machine. CanonicalTimezone is safe for concurrent use.
func CanonicalTimezone(name string) string { return tz.Canonical(name) }
