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
		is.True(l.Take(1, now).Allowed) // the minute allows two
	}
	r := l.Take(1, now)
	is.True(!r.Allowed)              // the third within the minute is refused
	is.Equal(r.Wait, 30*time.Second) // one more every 30 s
	is.True(l.Take(2, now).Allowed)  // users are counted separately

	l.Forget(1)
	is.True(l.Take(1, now).Allowed) // Forget forgets the history

	is.Equal(newUserLimiter(nil), (*userLimiter)(nil))                                                  // no rules: no limiter
	is.Equal(newUserLimiter([]RateRule{{Window: 0, Max: 3}, {Window: time.Hour}}), (*userLimiter)(nil)) // invalid rules are dropped
	var off *userLimiter
	is.True(off.Take(1, now).Allowed) // a nil limiter allows everything
	off.Forget(1)
}
