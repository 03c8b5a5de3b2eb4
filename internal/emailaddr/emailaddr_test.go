package emailaddr_test

import (
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/emailaddr"
	"github.com/matryer/is"
)

func TestValid(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"hamlet@zulip.com", true},
		{"first.last+tag@mail.example.org", true},
		{`"quoted\ local"@example.com`, true},
		{`"quoted local"@example.com`, false}, // a space must be escaped
		{"user@localhost", true},
		{"user@[192.0.2.1]", true},
		{"user@[IPv6:2001:db8::1]", true},
		{"user@bücher.de", true},
		{"", false},
		{"no-at-sign", false},
		{"user@example", false},                          // one label
		{"user@example.c", false},                        // top-level label too short
		{"user@-example.com", false},                     // label starts with a hyphen
		{"user@example-.com", false},                     // label ends with a hyphen
		{"two..dots@example.com", false},                 // empty dot-atom part
		{"user@[2001:db8::1]", false},                    // IPv6 without its tag
		{"user@[IPv6:192.0.2.1]", false},                 // IPv4 with the IPv6 tag
		{"a@" + strings.Repeat("x", 64) + ".com", false}, // label over 63 characters
		{strings.Repeat("a", 250) + "@x.com", false},     // over 254 bytes
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			is := is.New(t)
			is.Equal(emailaddr.Valid(tt.addr), tt.want) // Django's verdict
		})
	}
}
