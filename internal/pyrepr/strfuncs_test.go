package pyrepr

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitLines checks Python's str.splitlines boundaries: \r\n as one,
// the rarer separators, no last empty line.
func TestSplitLines(t *testing.T) {
	got := SplitLines("a\r\nb\u2028c\x1cd\n\ne\n")
	if want := []string{"a", "b", "c", "d", "", "e"}; !slices.Equal(got, want) {
		t.Errorf("SplitLines = %q, want %q", got, want)
	}
}

// TestWriteJSONString checks json.dumps' ensure_ascii escapes, surrogate
// pairs above the BMP included.
func TestWriteJSONString(t *testing.T) {
	var b strings.Builder
	WriteJSONString(&b, "é\"\\\n<&>😀\x01")
	if got, want := b.String(), `"\u00e9\"\\\n<&>\ud83d\ude00\u0001"`; got != want {
		t.Errorf("WriteJSONString = %s, want %s", got, want)
	}
}
