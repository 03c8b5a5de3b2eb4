package chatcore

import (
	"testing"
	"time"

	"github.com/matryer/is"
)

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
	_, ok = l.take(1, now.Add(30*time.Second))
	is.True(ok) // refilled: the hour still had room
	wait, ok = l.take(1, now.Add(2*time.Minute))
	is.True(!ok)                                 // the hour's three are spent
	is.Equal(wait, 20*time.Minute-2*time.Minute) // the hour refills one every 20 min
	_, ok = l.take(2, now)
	is.True(ok) // users are counted separately

	l.clear(1)
	_, ok = l.take(1, now.Add(2*time.Minute))
	is.True(ok) // clear forgets the history

	is.Equal(newUserLimiter(nil), (*userLimiter)(nil))                                                  // no rules: no limiter
	is.Equal(newUserLimiter([]RateRule{{Window: 0, Max: 3}, {Window: time.Hour}}), (*userLimiter)(nil)) // invalid rules are dropped
	var off *userLimiter
	_, ok = off.take(1, now)
	is.True(ok) // a nil limiter allows everything
	off.clear(1)
}

func TestUserLimiterIsBounded(t *testing.T) {
	is := is.New(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newUserLimiter([]RateRule{{Window: time.Hour, Max: 2}})
	l.max = 16
	for id := UserID(1); id <= 16; id++ {
		_, ok := l.take(id, now)
		is.True(ok) // first request of each user
	}
	is.Equal(l.size(), 16) // sixteen users tracked

	// Nobody has refilled: arbitrary users make room, down to 7/8 of the
	// bound, and the limiter never grows past it.
	for id := UserID(17); id <= 100; id++ {
		_, ok := l.take(id, now)
		is.True(ok)             // a new user is always let in
		is.True(l.size() <= 16) // never more than the bound
	}
	_, ok := l.take(100, now)
	is.True(ok) // user 100's second request: still tracked, one token left
	_, ok = l.take(100, now)
	is.True(!ok) // the third is refused: recent users keep their history

	// Two hours later everyone has refilled: all idle entries go at once.
	_, ok = l.take(500, now.Add(2*time.Hour))
	is.True(ok)           // let in
	is.Equal(l.size(), 1) // only the new user is left
}

func BenchmarkUserLimiterTake(b *testing.B) {
	l := newUserLimiter(defaultEmailChangeRules)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	id := UserID(0)
	for b.Loop() {
		id++
		l.take(id%20000, now)
	}
}
