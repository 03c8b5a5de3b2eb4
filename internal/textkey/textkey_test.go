package textkey_test

import (
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/textkey"
)

// TestTopic pins which topics share a key: full Unicode case folding and
// canonical equivalence, but no compatibility normalisation.
func TestTopic(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b string
		same bool
	}{
		{"ascii case", "Lunch", "LUNCH", true},
		{"sharp s folds to ss", "Straße", "STRASSE", true},
		{"sharp s lower", "straße", "strasse", true},
		{"final sigma", "ΟΔΟΣ", "οδος", true},
		{"medial and final sigma", "οδοσ", "οδος", true},
		{"cherokee", "ᏣᎳᎩ", "ꮳꮃꭹ", true},
		{"composed and decomposed", "café", "cafe\u0301", true},
		{"decomposed capital", "CAFE\u0301", "café", true},
		{"ligature under full folding", "ﬁx", "fix", true},
		{"fullwidth upper and lower", "ＦＯＯ", "ｆｏｏ", true},
		{"superscript is not a digit", "x²", "x2", false},
		{"fullwidth is not ascii", "ｆｏｏ", "foo", false},
		{"roman numeral is not letters", "Ⅻ", "xii", false},
		{"circled is not plain", "ⓐ", "a", false},
		{"different words", "lunch", "launch", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			ka, kb := textkey.Topic(tt.a), textkey.Topic(tt.b)
			is.Equal(ka == kb, tt.same)     // whether the two topics share a key
			is.Equal(textkey.Topic(ka), ka) // a key is its own key
			is.Equal(textkey.Topic(kb), kb) // a key is its own key
		})
	}
}

// TestTopicIdempotent checks Topic(Topic(s)) == Topic(s) for
// every character of the first two planes, alone and after a capital, and for
// the FuzzTopicName seed that showed Name's Cherokee bug.
func TestTopicIdempotent(t *testing.T) {
	is := is.New(t)
	seed := "00000000000000000000000000000000ꮵ" // the root package's testdata/fuzz/FuzzTopicName/9567c9f5796b1cc8
	key := textkey.Topic(seed)
	is.Equal(textkey.Topic(key), key)                                 // the fuzz seed's key is stable
	is.Equal(key, textkey.Topic("00000000000000000000000000000000Ꮵ")) // both Cherokee cases share a key
	bad := 0
	for r := rune(0); r <= 0x1FFFF; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		for _, s := range []string{string(r), "A" + string(r), string(r) + "\u0301", string(r) + "\u0345"} {
			k := textkey.Topic(s)
			if textkey.Topic(k) != k || !utf8.ValidString(k) {
				bad++
				t.Logf("Topic(%q) = %q, Topic of that = %q", s, k, textkey.Topic(k))
			}
		}
	}
	is.Equal(bad, 0) // Topic is idempotent and keeps UTF-8 valid on every tested string
}

// FuzzIdempotent checks that Name and Topic are idempotent and keep
// valid UTF-8 valid, for any input including invalid UTF-8.
//
//	go test -run '^$' -fuzz '^FuzzIdempotent$' -fuzztime 60s .
func FuzzIdempotent(f *testing.F) {
	for _, s := range []string{
		"Straße", "ΟΔΟΣ", "ﬁx", "x²", "ｆｏｏ", "ǅ", "ǰ", "ᾈ", "İ",
		"00000000000000000000000000000000ꮵ", // the root package's testdata/fuzz/FuzzTopicName/9567c9f5796b1cc8
		"\xf6ǅ",                             // invalid UTF-8 before a compatibility character
		"\xffΣ\u0345\u0301", "a\u0345\u0301",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range []struct {
			name string
			key  func(string) string
		}{{"Name", textkey.Name}, {"Topic", textkey.Topic}} {
			key := k.key(s)
			if again := k.key(key); again != key {
				t.Fatalf("%s is not idempotent on %q: %q then %q", k.name, s, key, again)
			}
			if utf8.ValidString(s) && !utf8.ValidString(key) {
				t.Fatalf("%s(%q) = %q is not valid UTF-8", k.name, s, key)
			}
		}
	})
}

// BenchmarkTopic measures the key of a typical mixed-case topic; stores
// compute it on every message they create.
func BenchmarkTopic(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = textkey.Topic("Release planning für Straße 42")
	}
}

// TestNameCherokee pins what FuzzTopicName found: golang.org/x/text's Fold
// swaps the cases of Cherokee letters, so Name gave "Ꮵ" and "ꮵ" different
// keys and was not idempotent (the root package's testdata/fuzz/FuzzTopicName/9567c9f5796b1cc8).
func TestNameCherokee(t *testing.T) {
	for _, tt := range []struct{ capital, small string }{
		{"Ꭰ", "ꭰ"}, {"Ꮵ", "ꮵ"}, {"Ꮿ", "ꮿ"}, {"Ᏸ", "ᏸ"}, {"Ᏽ", "ᏽ"},
		{"ᏣᎳᎩ", "ꮳꮃꭹ"},
	} {
		t.Run(tt.capital, func(t *testing.T) {
			is := is.New(t)
			key := textkey.Name(tt.capital)
			is.Equal(textkey.Name(tt.small), key) // both cases share one key
			is.Equal(textkey.Name(key), key)      // folding a key changes nothing
		})
	}
	is := is.New(t)
	for r := rune(0); r <= 0x1FFFF; r++ {
		s := string(r)
		if k := textkey.Name(s); textkey.Name(k) != k {
			is.Equal(textkey.Name(k), k) // Name is idempotent on every character of the first two planes
		}
	}
}
