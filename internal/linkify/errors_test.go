package linkify_test

import (
	"errors"
	"regexp"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/linkify"
)

// TestErrorText checks RE2's wording of pattern compile errors.
func TestErrorText(t *testing.T) {
	for _, tt := range []struct{ pattern, want string }{
		{"(foo", "missing ): (foo"},
		{"#(?P<id>[0-9]+)????", "bad repetition operator: ????"},
		{"[a", "missing ]: [a"},
		{`a\`, `trailing \`},
		{"a)", "unexpected ): a)"},
		{`\8`, `invalid escape sequence: \8`},
	} {
		t.Run(tt.pattern, func(t *testing.T) {
			is := is.New(t)
			_, err := regexp.Compile(tt.pattern)
			is.True(err != nil)                       // the pattern does not compile
			is.Equal(linkify.ErrorText(err), tt.want) // worded as RE2 does
		})
	}
	is := is.New(t)
	is.Equal(linkify.ErrorText(errors.New("other")), "other") // any other error as it is
}
