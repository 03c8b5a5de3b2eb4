package emoji_test

import (
	"testing"

	"github.com/chatcore/chatcore/internal/emoji"
	"github.com/matryer/is"
)

func TestLookups(t *testing.T) {
	is := is.New(t)
	for _, c := range []struct{ name, code string }{
		{"+1", "1f44d"}, {"thumbs_up", "1f44d"}, {"like", "1f44d"},
		{"smile", "1f642"}, {"octopus", "1f419"}, {"heart", "2764"},
		{"hash", "0023-20e3"}, {"flag_canada", "1f1e8-1f1e6"},
	} {
		code, ok := emoji.Code(c.name)
		is.True(ok)            // a name Zulip knows
		is.Equal(code, c.code) // its code
	}
	for _, c := range []struct{ code, name string }{
		{"1f44d", "+1"}, {"1f642", "smile"}, {"263a", "smiling_face"}, {"1f604", "big_smile"},
	} {
		name, ok := emoji.Name(c.code)
		is.True(ok)            // a code Zulip knows
		is.Equal(name, c.name) // its canonical name
	}
	_, ok := emoji.Code("no_such_emoji")
	is.True(!ok) // unknown name
	_, ok = emoji.Code("")
	is.True(!ok) // empty name
	_, ok = emoji.Name("1f44d-1f3fb")
	is.True(!ok) // skin tones are not in Zulip's map
	is.Equal(emoji.Len(), 1826)
}

func TestEveryNameLeadsToItsCanonicalName(t *testing.T) {
	is := is.New(t)
	code, _ := emoji.Code("thumbs_up")
	name, _ := emoji.Name(code)
	is.Equal(name, "+1")
}
