package ratelimit_test

import (
	"testing"
	"time"

	"github.com/chatcore/chatcore/internal/ratelimit"
	"github.com/matryer/is"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestLimiterRules(t *testing.T) {
	is := is.New(t)
	now := t0
	l := ratelimit.New[int](100, ratelimit.Rule{Window: time.Minute, Max: 2}, ratelimit.Rule{Window: time.Hour, Max: 3})
	for range 2 {
		is.True(l.Take(1, now).Allowed) // the minute allows two
	}
	r := l.Take(1, now)
	is.True(!r.Allowed)                                 // the third within the minute is refused
	is.Equal(r.Wait, 30*time.Second)                    // one more every 30 s
	is.True(l.Take(1, now.Add(30*time.Second)).Allowed) // refilled: the hour still had room
	r = l.Take(1, now.Add(2*time.Minute))
	is.True(!r.Allowed)                            // the hour's three are spent
	is.Equal(r.Wait, 20*time.Minute-2*time.Minute) // the hour refills one every 20 min
	is.True(l.Take(2, now).Allowed)                // keys are counted separately

	l.Forget(1)
	is.True(l.Take(1, now.Add(2*time.Minute)).Allowed) // Forget drops the history
}

func TestLimiterInvalidRulesAndNil(t *testing.T) {
	is := is.New(t)
	is.Equal(ratelimit.New[int](10), (*ratelimit.Limiter[int])(nil)) // no rules: no limiter
	is.Equal(ratelimit.New[int](10, ratelimit.Rule{Window: 0, Max: 3}, ratelimit.Rule{Window: time.Hour}),
		(*ratelimit.Limiter[int])(nil)) // invalid rules are dropped
	var off *ratelimit.Limiter[string]
	is.True(off.Take("a", t0).Allowed)            // a nil limiter allows everything
	is.Equal(off.Wait("a", t0), time.Duration(0)) // and never makes anyone wait
	off.Forget("a")
	is.Equal(off.Len(), 0) // and tracks nothing
}

func TestLimiterResultCounters(t *testing.T) {
	is := is.New(t)
	l := ratelimit.New[string](10, ratelimit.Rule{Window: time.Minute, Max: 4})
	r := l.Take("a", t0)
	is.Equal(r.Remaining, 3)           // three left after the first
	is.Equal(r.Refill, 15*time.Second) // one token comes back every 15 s
	l.Take("a", t0)
	l.Take("a", t0)
	r = l.Take("a", t0)
	is.Equal(r.Remaining, 0)        // the bucket is empty
	is.Equal(r.Refill, time.Minute) // full again in a minute
	r = l.Take("a", t0)
	is.True(!r.Allowed)             // refused
	is.Equal(r.Remaining, 0)        // a refusal spends nothing and leaves nothing
	is.Equal(r.Refill, time.Minute) // nor changes the refill
}

func TestLimiterReserveUndo(t *testing.T) {
	is := is.New(t)
	l := ratelimit.New[string](10, ratelimit.Rule{Window: time.Minute, Max: 2})
	r, undo := l.Reserve("a", t0)
	is.True(r.Allowed)       // the first of two
	is.Equal(r.Remaining, 1) // spent while undecided
	undo()
	undo()                                      // a second undo gives nothing more back
	is.Equal(l.Wait("a", t0), time.Duration(0)) // given back
	l.Take("a", t0)
	r, undo = l.Reserve("a", t0)
	is.True(r.Allowed)                                 // the second token
	is.True(!l.Take("a", t0).Allowed)                  // both spent: others are refused meanwhile
	undo()                                             // the reservation did not count
	is.True(l.Take("a", t0.Add(time.Second)).Allowed)  // so one is left, later too
	is.True(!l.Take("a", t0.Add(time.Second)).Allowed) // and only one
	r, undo = l.Reserve("a", t0.Add(time.Second))
	is.True(!r.Allowed) // refused
	undo()              // undoing a refusal gives nothing
	is.True(!l.Take("a", t0.Add(time.Second)).Allowed)
	var nl *ratelimit.Limiter[string]
	r, undo = nl.Reserve("a", t0)
	is.True(r.Allowed) // a nil limiter allows everything
	undo()
}

func TestLimiterWaitPeeks(t *testing.T) {
	is := is.New(t)
	l := ratelimit.New[string](10, ratelimit.Rule{Window: time.Minute, Max: 2})
	is.Equal(l.Wait("a", t0), time.Duration(0)) // an unknown key may go ahead
	is.Equal(l.Len(), 0)                        // and peeking does not track it
	l.Take("a", t0)
	is.Equal(l.Wait("a", t0), time.Duration(0)) // one token left
	l.Take("a", t0)
	is.Equal(l.Wait("a", t0), 30*time.Second)                     // empty: one back in 30 s
	is.Equal(l.Wait("a", t0.Add(10*time.Second)), 20*time.Second) // the wait shrinks with time
	is.Equal(l.Wait("a", t0), 30*time.Second)                     // peeking spent nothing
	is.Equal(l.Wait("b", t0), time.Duration(0))                   // other keys are unaffected
}

func TestLimiterIsBounded(t *testing.T) {
	is := is.New(t)
	l := ratelimit.New[int](16, ratelimit.Rule{Window: time.Hour, Max: 2})
	for id := 1; id <= 16; id++ {
		is.True(l.Take(id, t0).Allowed) // first request of each key
	}
	is.Equal(l.Len(), 16) // sixteen keys tracked

	// Nobody has refilled: arbitrary keys make room, down to 7/8 of the
	// bound, and the limiter never grows past it.
	for id := 17; id <= 100; id++ {
		is.True(l.Take(id, t0).Allowed) // a new key is always let in
		is.True(l.Len() <= 16)          // never more than the bound
	}
	is.True(l.Take(100, t0).Allowed)  // key 100's second request: still tracked, one token left
	is.True(!l.Take(100, t0).Allowed) // the third is refused: recent keys keep their history

	// Two hours later everyone has refilled: all idle entries go at once.
	is.True(l.Take(500, t0.Add(2*time.Hour)).Allowed) // let in
	is.Equal(l.Len(), 1)                              // only the new key is left
}

func BenchmarkLimiterTake(b *testing.B) {
	l := ratelimit.New[int](10000, ratelimit.Rule{Window: time.Hour, Max: 2}, ratelimit.Rule{Window: 24 * time.Hour, Max: 5})
	b.ReportAllocs()
	id := 0
	for b.Loop() {
		id++
		l.Take(id%20000, t0)
	}
}

func TestSeconds(t *testing.T) {
	for _, tt := range []struct {
		wait time.Duration
		want int
	}{
		{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {1001 * time.Millisecond, 2}, {30 * time.Minute, 1800},
	} {
		is := is.New(t)
		is.Equal(ratelimit.Seconds(tt.wait), tt.want) // whole seconds, rounded up, at least one
	}
}
