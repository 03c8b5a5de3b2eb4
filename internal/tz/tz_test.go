package tz_test

import (
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/tz"
	"github.com/matryer/is"
)

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"America/Montreal", "America/Toronto"},
		{"Asia/Calcutta", "Asia/Kolkata"},
		{"Europe/Kiev", "Europe/Kyiv"},
		{"US/Eastern", "America/New_York"},
		{"UTC", "Etc/UTC"}, // a backward link, as in Zulip
		{"Europe/Berlin", "Europe/Berlin"},
		{"Etc/GMT+5", "Etc/GMT+5"},
		{"", ""},
		{"Nowhere/Else", ""},
		{"Local", ""},
		{"localtime", ""},
		{"posix/Europe/Berlin", ""},
		{"../../etc/passwd", ""},
		{"/etc/localtime", ""},
		{"Europe/Berlin/", ""},
		{"Europe/Bérlin", ""},
		{strings.Repeat("A/", 40), ""},
	}
	for _, tt := range tests {
		is := is.New(t)
		is.Equal(tz.Canonical(tt.in), tt.want) // canonical IANA name, "" when unknown
		is.Equal(tz.Canonical(tt.in), tt.want) // the cached answer is the same
	}
}

func TestCanonicalIsIdempotent(t *testing.T) {
	is := is.New(t)
	for _, name := range []string{"America/Montreal", "US/Pacific", "Asia/Saigon", "Europe/Belfast", "GB", "Japan"} {
		c := tz.Canonical(name)
		is.True(c != "")             // every link resolves
		is.Equal(tz.Canonical(c), c) // a canonical name maps to itself
	}
}
