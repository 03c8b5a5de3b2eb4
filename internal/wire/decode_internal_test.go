package wire

import (
	"testing"

	"github.com/matryer/is"
)

func TestJSONDepth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`true`, 0},
		{`[1, [2]]`, 2},
		{`{"a": {"b": [1]}}`, 3},
		{`"[[[["`, 0},
		{`["\"[[", {"x": "]]]"}]`, 2},
		{`]]]]`, 0},
	}
	for _, tt := range tests {
		is := is.New(t)
		is.Equal(jsonDepth(tt.in), tt.want) // nesting outside strings
	}
}
