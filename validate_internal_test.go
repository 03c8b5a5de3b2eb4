package chatcore

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/matryer/is"
)

func TestEverySettingDefaultPassesItsOwnRules(t *testing.T) {
	for _, r := range settingsTable {
		t.Run(r.Name, func(t *testing.T) {
			is := is.New(t)
			raw, err := json.Marshal(map[string]any{r.Name: r.Default})
			is.NoErr(err) // default encodes
			var u SettingsUpdate
			is.NoErr(json.Unmarshal(raw, &u))    // default decodes into the update field
			is.Equal(len(u.settingChanges()), 1) // the update sets exactly this setting
			err = u.Validate()
			if r.In == inTimeZones {
				is.True(err != nil) // "" means no time zone chosen: a default no one can set
				return
			}
			is.NoErr(err) // Zulip's default is an allowed value
		})
	}
}

func TestOnlyNonSensitiveSettingsAreBulkEditable(t *testing.T) {
	is := is.New(t)
	// Zulip's SECURITY_SENSITIVE_USER_SETTINGS.
	sensitive := []string{"allow_private_data_export", "email_address_visibility", "enable_digest_emails",
		"enable_login_emails", "enable_marketing_emails", "presence_enabled",
		"send_private_typing_notifications", "send_read_receipts", "send_stream_typing_notifications"}
	var got, selfOnly []string
	for _, r := range settingsTable {
		switch r.Who {
		case userOnlySensitive:
			got = append(got, r.Name)
		case userOnly:
			selfOnly = append(selfOnly, r.Name)
		}
	}
	slices.Sort(got)
	is.Equal(got, sensitive)                 // the table marks exactly Zulip's security-sensitive settings
	is.Equal(selfOnly, []string{"timezone"}) // and the time zone, which bulk edits do not take
}

func TestLateChecksRunInTableOrder(t *testing.T) {
	is := is.New(t)
	var late []string
	for _, r := range settingsTable {
		if r.Late {
			late = append(late, r.Name)
		}
	}
	// Zulip's view checks the language, then the sound, then the batching period.
	is.Equal(late, []string{"default_language", "notification_sound", "email_notifications_batching_period_seconds"}) // view order
}

func TestTranslationOfUnknownTagIsStillABadRequest(t *testing.T) {
	is := is.New(t)
	type probe struct {
		Name *string `json:"name" validate:"omitnil,email"`
	}
	bad := "nope"
	verrs, ok := errors.AsType[validator.ValidationErrors](settingsValidator().Struct(probe{Name: &bad}))
	is.True(ok) // the probe fails validation
	e := translateFieldError(verrs[0])
	is.Equal(e.Code, CodeBadRequest) // a clear 400
	is.Equal(e.Msg, "Invalid name")  // naming the parameter
}
