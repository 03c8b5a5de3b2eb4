package isotime_test

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/isotime"
)

// TestParse checks the accepted forms and that the rest is refused.
func TestParse(t *testing.T) {
	utc := func(h, m, s, ns int) time.Time { return time.Date(2005, 4, 18, h, m, s, ns, time.UTC) }
	for _, tt := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2005-04-18", utc(0, 0, 0, 0), true},
		{" 2005-04-18 ", utc(0, 0, 0, 0), true},
		{"2005-04-18T12:34", utc(12, 34, 0, 0), true},
		{"2005-04-18 12:34:56", utc(12, 34, 56, 0), true},
		{"2005-04-18T12:34:56Z", utc(12, 34, 56, 0), true},
		{"2005-04-18T12:34:56.5", utc(12, 34, 56, 5e8), true},
		{"2005-04-18T14:34:56+02:00", utc(12, 34, 56, 0), true},
		{"2005-04-18T12", time.Time{}, false},
		{"18/04/2005", time.Time{}, false},
		{"", time.Time{}, false},
	} {
		t.Run(tt.in, func(t *testing.T) {
			is := is.New(t)
			got, ok := isotime.Parse(tt.in)
			is.Equal(ok, tt.ok)         // accepted or refused
			is.True(got.Equal(tt.want)) // the instant named
		})
	}
}

// TestFormat checks Python's isoformat: microseconds only when non-zero,
// always in UTC with "+00:00".
func TestFormat(t *testing.T) {
	is := is.New(t)
	cet := time.FixedZone("CET", 3600)
	is.Equal(isotime.Format(time.Date(2024, 1, 2, 4, 5, 6, 0, cet)), "2024-01-02T03:05:06+00:00")                     // converted to UTC
	is.Equal(isotime.Format(time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.UTC)), "2024-01-02T03:04:05.123456+00:00") // microseconds, truncated
	is.Equal(isotime.Format(time.Date(2024, 1, 2, 3, 4, 5, 999, time.UTC)), "2024-01-02T03:04:05+00:00")              // under a microsecond: none
}
