package chatcore

import (
	"testing"
	"time"

	"github.com/matryer/is"
)

// The limiter's machinery is tested in internal/ratelimit; this checks the
// root's adaptation of RateRule to it.
func TestUserLimiterRules(t *testing.T) {
	is := is.New(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newUserLimiter([]RateRule{{Window: time.Minute, Max: 2}, {Window: time.Hour, Max: 3}})
	for range 2 {
		_, ok := l.take(1, now)
		is.True(ok) // the minute allows two
	}
	wait, ok := l.take(1, now)
	is.True(!ok)                   // the third within the minute is refused
	is.Equal(wait, 30*time.Second) // one more every 30 s
	_, ok = l.take(2, now)
	is.True(ok) // users are counted separately

	l.clear(1)
	_, ok = l.take(1, now)
	is.True(ok) // clear forgets the history

	is.Equal(newUserLimiter(nil), (*userLimiter)(nil))                                                  // no rules: no limiter
	is.Equal(newUserLimiter([]RateRule{{Window: 0, Max: 3}, {Window: time.Hour}}), (*userLimiter)(nil)) // invalid rules are dropped
	var off *userLimiter
	_, ok = off.take(1, now)
	is.True(ok) // a nil limiter allows everything
	off.clear(1)
}
