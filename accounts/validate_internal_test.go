package accounts

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/settings"
	"github.com/go-playground/validator/v10"
	"github.com/matryer/is"
)

func TestEverySettingDefaultPassesItsOwnRules(t *testing.T) {
	for _, r := range settings.Table {
		t.Run(r.Name, func(t *testing.T) {
			is := is.New(t)
			raw, err := json.Marshal(map[string]any{r.Name: r.Default})
			is.NoErr(err) // default encodes
			var u SettingsUpdate
			is.NoErr(json.Unmarshal(raw, &u))    // default decodes into the update field
			is.Equal(len(u.settingChanges()), 1) // the update sets exactly this setting
			err = u.Validate()
			if r.In == settings.TimeZones {
				is.True(err != nil) // "" means no time zone chosen: a default no one can set
				return
			}
			is.NoErr(err) // Zulip's default is an allowed value
		})
	}
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
	is.Equal(e.Code, chatcore.CodeBadRequest) // a clear 400
	is.Equal(e.Msg, "Invalid name")           // naming the parameter
}
