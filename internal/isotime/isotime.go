// Package isotime reads and writes ISO 8601 times in the forms Zulip's Python
// server accepts and produces.
package isotime

import (
	"fmt"
	"strings"
	"time"
)

// layouts are the forms Parse accepts after the date: a time to the minute,
// second or fraction of a second, with a "T" or a space before it, and an
// optional UTC offset ("Z", "+05:30").
var layouts = func() []string {
	var out []string
	for _, sep := range []string{"T", " "} {
		for _, clock := range []string{"15:04", "15:04:05", "15:04:05.999999999"} {
			for _, zone := range []string{"", "Z07:00"} {
				out = append(out, "2006-01-02"+sep+clock+zone)
			}
		}
	}
	return out
}()

// Parse parses an ISO 8601 date ("2005-04-18", midnight UTC) or date and
// time ("2005-04-18T12:34:56Z"), ignoring surrounding white space; a time
// without a UTC offset is UTC. It reports false for anything else.
func Parse(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, true
	}
	for _, layout := range layouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Format formats t in UTC as Python's datetime.isoformat does for an aware
// UTC datetime: "2006-01-02T15:04:05+00:00", with microseconds
// (".000123") only when they are not zero.
func Format(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s + "+00:00"
}
