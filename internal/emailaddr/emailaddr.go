// Package emailaddr checks the syntax of e-mail addresses as Django's
// validate_email, which Zulip uses, does.
package emailaddr

import (
	"net/netip"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Valid reports whether addr is a bare e-mail address that
// Django's validate_email (which Zulip uses) accepts: a dot-atom or quoted
// local part, "@", and a domain that is "localhost", a bracketed IP literal,
// or dot-separated labels of letters, digits and inner hyphens (at most 63
// characters each) ending in a top-level label of at least two characters.
// Non-ASCII letters and digits count as letters, standing in for Django's
// IDNA encoding of international domains.
func Valid(addr string) bool {
	if addr == "" || len(addr) > 254 || !utf8.ValidString(addr) {
		return false
	}
	i := strings.LastIndexByte(addr, '@')
	if i < 0 {
		return false
	}
	local, domain := addr[:i], addr[i+1:]
	if !localPart.MatchString(local) {
		return false
	}
	if domain == "localhost" {
		return true
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		ip, err := netip.ParseAddr(strings.TrimPrefix(domain[1:len(domain)-1], "IPv6:"))
		return err == nil && ip.Zone() == "" &&
			ip.Is4() == !strings.HasPrefix(domain, "[IPv6:")
	}
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return false
	}
	for i, l := range labels {
		if !domainLabel(l, i == len(labels)-1) {
			return false
		}
	}
	return true
}

// localPart matches the local parts Django accepts: a dot-atom, or a
// quoted string of printable ASCII with backslash escapes.
var localPart = regexp.MustCompile("(?i)^(?:[-!#$%&'*+/=?^_`{}|~0-9a-z]+(?:\\.[-!#$%&'*+/=?^_`{}|~0-9a-z]+)*" +
	`|"(?:[\x01-\x08\x0b\x0c\x0e-\x1f!#-\[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*")$`)

// domainLabel reports whether l is a host name label (RFC 1035 as Django
// applies it): 1-63 letters, digits or hyphens, not starting or ending with a
// hyphen. The top-level label needs at least two characters and may start
// with a hyphen (as Django's pattern allows, for IDNA "xn--" forms).
func domainLabel(l string, top bool) bool {
	n := utf8.RuneCountInString(l)
	if n == 0 || n > 63 || (top && n < 2) || strings.HasSuffix(l, "-") ||
		(!top && strings.HasPrefix(l, "-")) {
		return false
	}
	for _, r := range l {
		if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
