package chatcore_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/chattest"
)

// TestTopicKey pins which topics share a key: full Unicode case folding and
// canonical equivalence, but no compatibility normalisation.
func TestTopicKey(t *testing.T) {
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
			ka, kb := chatcore.TopicKey(tt.a), chatcore.TopicKey(tt.b)
			is.Equal(ka == kb, tt.same)         // whether the two topics share a key
			is.Equal(chatcore.TopicKey(ka), ka) // a key is its own key
			is.Equal(chatcore.TopicKey(kb), kb) // a key is its own key
		})
	}
}

// TestTopicKeyIdempotent checks TopicKey(TopicKey(s)) == TopicKey(s) for
// every character of the first two planes, alone and after a capital, and for
// the FuzzTopicName seed that showed FoldKey's Cherokee bug.
func TestTopicKeyIdempotent(t *testing.T) {
	is := is.New(t)
	seed := "00000000000000000000000000000000ꮵ" // testdata/fuzz/FuzzTopicName/9567c9f5796b1cc8
	key := chatcore.TopicKey(seed)
	is.Equal(chatcore.TopicKey(key), key)                                 // the fuzz seed's key is stable
	is.Equal(key, chatcore.TopicKey("00000000000000000000000000000000Ꮵ")) // both Cherokee cases share a key
	bad := 0
	for r := rune(0); r <= 0x1FFFF; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		for _, s := range []string{string(r), "A" + string(r), string(r) + "\u0301", string(r) + "\u0345"} {
			k := chatcore.TopicKey(s)
			if chatcore.TopicKey(k) != k || !utf8.ValidString(k) {
				bad++
				t.Logf("TopicKey(%q) = %q, TopicKey of that = %q", s, k, chatcore.TopicKey(k))
			}
		}
	}
	is.Equal(bad, 0) // TopicKey is idempotent and keeps UTF-8 valid on every tested string
}

// TestTopicMatchingUsesTopicKey checks that narrows and DeleteTopic match
// topics by TopicKey on both stores: case-insensitively, never by
// compatibility normalisation.
func TestTopicMatchingUsesTopicKey(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Unicode", Subscribers: []*chatcore.User{c.Member, c.Admin}})
		sent := map[string]chatcore.MessageID{}
		for _, topic := range []string{"x²", "ﬁx", "ｆｏｏ", "Straße", "ΟΔΟΣ", "café"} {
			sent[topic] = w.Post(t, st, topic, c.Member, "about "+topic)
		}
		narrow := func(t *testing.T, topic string) []chatcore.MessageID {
			t.Helper()
			is := is.New(t)
			operand, err := json.Marshal(topic)
			is.NoErr(err) // a topic marshals
			res, err := w.Svc.Messages(t.Context(), c.Member.ID, chatcore.MessagesRequest{
				Anchor: new("newest"), NumBefore: new(100),
				Narrow: []chatcore.NarrowTerm{
					{Operator: "channel", Operand: json.RawMessage(strconv.FormatInt(int64(st.ID), 10))},
					{Operator: "topic", Operand: operand},
				},
			})
			is.NoErr(err) // the narrow is valid
			var ids []chatcore.MessageID
			for _, m := range res.Messages {
				ids = append(ids, m.ID)
			}
			return ids
		}
		for _, tt := range []struct {
			query string
			want  []chatcore.MessageID
		}{
			{"x2", nil},
			{"X²", []chatcore.MessageID{sent["x²"]}},
			{"foo", nil},
			{"ＦＯＯ", []chatcore.MessageID{sent["ｆｏｏ"]}},
			{"STRASSE", []chatcore.MessageID{sent["Straße"]}},
			{"οδος", []chatcore.MessageID{sent["ΟΔΟΣ"]}},
			{"FIX", []chatcore.MessageID{sent["ﬁx"]}},
			{"cafe\u0301", []chatcore.MessageID{sent["café"]}},
		} {
			t.Run("narrow "+tt.query, func(t *testing.T) {
				is := is.New(t)
				is.Equal(narrow(t, tt.query), tt.want) // the topic narrow selects exactly these messages
			})
		}
		t.Run("DeleteTopic", func(t *testing.T) {
			is := is.New(t)
			for _, topic := range []string{"x2", "foo"} {
				res, err := w.Svc.DeleteTopic(t.Context(), c.Admin.ID, st.ID, topic)
				is.NoErr(err)         // deleting a topic without messages succeeds
				is.True(res.Complete) // and is complete
			}
			is.Equal(narrow(t, "x²"), []chatcore.MessageID{sent["x²"]})   // "x2" did not delete "x²"
			is.Equal(narrow(t, "ｆｏｏ"), []chatcore.MessageID{sent["ｆｏｏ"]}) // "foo" did not delete "ｆｏｏ"
			_, err := w.Svc.DeleteTopic(t.Context(), c.Admin.ID, st.ID, "STRASSE")
			is.NoErr(err)                                               // deleting by another case succeeds
			is.Equal(len(narrow(t, "Straße")), 0)                       // "STRASSE" deleted "Straße"
			is.Equal(narrow(t, "x²"), []chatcore.MessageID{sent["x²"]}) // other topics stay
		})
	})
}

// FuzzKeysIdempotent checks that FoldKey and TopicKey are idempotent and keep
// valid UTF-8 valid, for any input including invalid UTF-8.
//
//	go test -run '^$' -fuzz '^FuzzKeysIdempotent$' -fuzztime 60s .
func FuzzKeysIdempotent(f *testing.F) {
	for _, s := range []string{
		"Straße", "ΟΔΟΣ", "ﬁx", "x²", "ｆｏｏ", "ǅ", "ǰ", "ᾈ", "İ",
		"00000000000000000000000000000000ꮵ", // testdata/fuzz/FuzzTopicName/9567c9f5796b1cc8
		"\xf6ǅ",                             // invalid UTF-8 before a compatibility character
		"\xffΣ\u0345\u0301", "a\u0345\u0301",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range []struct {
			name string
			key  func(string) string
		}{{"FoldKey", chatcore.FoldKey}, {"TopicKey", chatcore.TopicKey}} {
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

// BenchmarkTopicKey measures the key of a typical mixed-case topic; stores
// compute it on every message they create.
func BenchmarkTopicKey(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = chatcore.TopicKey("Release planning für Straße 42")
	}
}
