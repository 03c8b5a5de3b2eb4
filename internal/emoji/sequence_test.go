package emoji

import (
	"testing"

	"github.com/matryer/is"
)

func TestSequenceLen(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"a😀", 0},
		{"😀b", len("😀")},
		{"👍🏽!", len("👍🏽")},       // with a modifier
		{"❤️x", len("❤️")},       // with the presentation selector
		{"1️⃣2", len("1️⃣")},     // keycap
		{"👨‍👩‍👧 ", len("👨‍👩‍👧")}, // ZWJ sequence
		{"😀\u200dx", len("😀")},   // a ZWJ that joins nothing ends the sequence
		{"🇩🇪🇫", len("🇩🇪")},       // regional indicator pair
		{"🏴\U000E0067\U000E0062\U000E007F", len("🏴\U000E0067\U000E0062\U000E007F")}, // tag sequence
		{"🏴\U000E0067x", len("🏴")}, // an unterminated tag sequence is no suffix
		{"#", 1},                   // '#' is an Emoji character
	} {
		is.New(t).Equal(SequenceLen(tc.in), tc.want) // match length of tc.in
	}
}

func TestFromSequence(t *testing.T) {
	is := is.New(t)
	code, name, ok := FromSequence("😀")
	is.True(ok)
	is.Equal(code, "1f600")
	is.Equal(name, "grinning")
	_, _, ok = FromSequence("❤") // text presentation by default
	is.True(!ok)
	code, name, ok = FromSequence("❤️") // the selector asks for emoji presentation
	is.True(ok)
	is.Equal(code, "2764")
	is.Equal(name, "heart")
	_, _, ok = FromSequence("1") // a digit is text
	is.True(!ok)
	_, _, ok = FromSequence("1\u20e3") // a keycap without the selector is text
	is.True(!ok)
	code, _, ok = FromSequence("1\ufe0f\u20e3")
	is.True(ok)
	is.Equal(code, "0031-20e3")
	_, _, ok = FromSequence("👍🏽") // Zulip has no name for skin tones
	is.True(!ok)
	code, name, ok = FromSequence("👁\u200d🗨") // found by its unqualified code
	is.True(ok)
	is.Equal(code, "1f441-200d-1f5e8")
	is.Equal(name, "eye_in_speech_bubble")
	is.Equal(Unqualified("1f441-fe0f-200d-1f5e8-fe0f"), "1f441-200d-1f5e8")
}
