package chatcore

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/matryer/is"
)

func TestEveryValueSetAliasIsUsed(t *testing.T) {
	is := is.New(t)
	used := map[string]bool{}
	ut := reflect.TypeFor[SettingsUpdate]()
	for field := range ut.Fields() {
		for tag := range strings.SplitSeq(field.Tag.Get("validate"), ",") {
			used[tag] = true
		}
	}
	for _, set := range settingValueSets {
		is.True(used[set.alias]) // no dead value set
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
	is.Equal(e.Code, CodeBadRequest) // a clear 400
	is.Equal(e.Msg, "Invalid name")  // naming the parameter
}
