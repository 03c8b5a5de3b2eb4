package chatcore_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// TestContainsAlertWord: Zulip's word boundaries of alert words.
func TestContainsAlertWord(t *testing.T) {
	is := is.New(t)
	for _, c := range []struct {
		content, word string
		want          bool
	}{
		{"pizza", "pizza", true},                  // the whole message
		{"Who wants PIZZA?", "pizza", true},       // any case, then "?"
		{"(pizza)", "pizza", true},                // in parentheses
		{"**pizza**", "pizza", true},              // in bold
		{"> pizza\nyes", "pizza", true},           // quoted, then a new line
		{"pizzas", "pizza", false},                // a longer word
		{"a pizzeria pizza!", "pizza", true},      // a later match counts
		{"xpizza", "pizza", true},                 // Zulip accepts a word at the second character
		{"xxpizza", "pizza", false},               // but not further in
		{"pizza-party", "pizza", false},           // "-" is no boundary
		{"I like c++ a lot", "c++", true},         // words with punctuation
		{"straße bahn", "STRASSE", false},         // lower-casing, not folding
		{"tschüss, Straße", "straße", true},       // multibyte words
		{"", "pizza", false},                      // empty content
		{"pizza", "", false},                      // an empty word matches nothing
		{"email@pizza.test", "pizza", false},      // "@" is no boundary
		{"see `pizza` here", "pizza", true},       // code spans are no exception
		{"[pizza](http://x.test)", "pizza", true}, // a link text
	} {
		is.Equal(chatcore.ContainsAlertWord(c.content, c.word), c.want) // content, word
	}
}
