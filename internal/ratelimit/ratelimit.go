// Package ratelimit applies token-bucket rules to many keys (users, client
// addresses) with a hard bound on the number of keys it tracks.
package ratelimit

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Rule allows at most Max operations per Window, enforced as a token bucket
// holding Max tokens that refills at Max per Window: a burst of Max is
// allowed at once, then one more every Window/Max.
type Rule struct {
	Window time.Duration
	Max    int
}

// valid reports whether r limits anything.
func (r Rule) valid() bool { return r.Window > 0 && r.Max > 0 }

// Result is the outcome of [Limiter.Take].
type Result struct {
	// Allowed reports whether the operation may go ahead; when it may not,
	// nothing was spent.
	Allowed bool
	// Wait is how long until every rule has room again (zero when Allowed).
	Wait time.Duration
	// Remaining is the number of whole operations left in the tightest
	// bucket after this one.
	Remaining int
	// Refill is how long until every bucket of the key is full again.
	Refill time.Duration
}

// Limiter applies a set of [Rule]s to each key separately. It tracks at most
// a fixed number of keys: when full, it forgets the keys whose buckets have
// refilled (forgetting them changes nothing) and, if that frees nothing, an
// eighth of the keys chosen arbitrarily, whose limits then start afresh. The
// sweep is linear in the number of keys but runs at most once every eighth of
// the bound's insertions, so its cost is amortised.
//
// A nil *Limiter allows everything. A Limiter is safe for concurrent use.
type Limiter[K comparable] struct {
	rules   []Rule
	maxKeys int

	mu   sync.Mutex
	keys map[K][]*rate.Limiter
}

// New returns a limiter tracking at most maxKeys keys (at least one) under
// the valid rules among rules (positive Window and Max), or nil when no rule
// is valid.
func New[K comparable](maxKeys int, rules ...Rule) *Limiter[K] {
	var valid []Rule
	for _, r := range rules {
		if r.valid() {
			valid = append(valid, r)
		}
	}
	if len(valid) == 0 {
		return nil
	}
	return &Limiter[K]{rules: valid, maxKeys: max(maxKeys, 1), keys: make(map[K][]*rate.Limiter)}
}

// Take spends one operation of key at now. When some rule has no room left it
// spends nothing and reports Allowed false with the wait until every rule has
// room.
func (l *Limiter[K]) Take(key K, now time.Time) Result {
	res, _ := l.Reserve(key, now)
	return res
}

// Reserve is [Limiter.Take] that can be undone: when the operation is
// allowed, undo gives it back, as if it had been cancelled at now (later
// operations of the key that the spent token made wait keep their place). A
// second call of undo, or undo of a refused operation or of a nil l, does
// nothing. Spending first and undoing when the operation turns out not to
// count leaves no moment in which concurrent callers see the token as still
// there.
func (l *Limiter[K]) Reserve(key K, now time.Time) (res Result, undo func()) {
	if l == nil {
		return Result{Allowed: true, Remaining: math.MaxInt}, func() {}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lims, ok := l.keys[key]
	if !ok {
		if len(l.keys) >= l.maxKeys {
			l.evict(now)
		}
		lims = make([]*rate.Limiter, len(l.rules))
		for i, r := range l.rules {
			lims[i] = rate.NewLimiter(rate.Limit(float64(r.Max)/r.Window.Seconds()), r.Max)
		}
		l.keys[key] = lims
	}
	var wait time.Duration
	rs := make([]*rate.Reservation, len(lims))
	for i, lim := range lims {
		rs[i] = lim.ReserveN(now, 1)
		wait = max(wait, rs[i].DelayFrom(now))
	}
	undo = func() {}
	if wait > 0 {
		for _, r := range rs {
			r.CancelAt(now)
		}
	} else {
		// A reservation cancelled twice would give its token back twice.
		var once sync.Once
		undo = func() {
			once.Do(func() {
				l.mu.Lock()
				defer l.mu.Unlock()
				for _, r := range rs {
					r.CancelAt(now)
				}
			})
		}
	}
	out := Result{Allowed: wait <= 0, Wait: max(wait, 0), Remaining: math.MaxInt}
	for _, lim := range lims {
		tokens := lim.TokensAt(now)
		out.Remaining = min(out.Remaining, max(int(math.Floor(tokens)), 0))
		toFull := (float64(lim.Burst()) - tokens) / float64(lim.Limit())
		out.Refill = max(out.Refill, time.Duration(toFull*float64(time.Second)))
	}
	return out, undo
}

// Wait returns how long until key may take one operation, without spending
// anything: zero when it may now. A key the limiter does not track may
// always go ahead, and Wait does not start tracking it.
func (l *Limiter[K]) Wait(key K, now time.Time) time.Duration {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var wait time.Duration
	for _, lim := range l.keys[key] {
		if missing := 1 - lim.TokensAt(now); missing > 0 {
			wait = max(wait, time.Duration(missing/float64(lim.Limit())*float64(time.Second)))
		}
	}
	return wait
}

// Forget drops key's history, so its next operation starts with full buckets.
func (l *Limiter[K]) Forget(key K) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.keys, key)
}

// Len returns how many keys l tracks.
func (l *Limiter[K]) Len() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}

// evict makes room for one more key. Called with l.mu held. It forgets every
// key whose buckets have refilled; if that is not enough, it forgets
// arbitrary keys (map order) down to seven eighths of the bound, so the
// sweep's cost is spread over many later insertions.
func (l *Limiter[K]) evict(now time.Time) {
	for k, lims := range l.keys {
		if refilled(lims, now) {
			delete(l.keys, k)
		}
	}
	for k := range l.keys {
		if len(l.keys) < l.maxKeys-l.maxKeys/8 {
			break
		}
		delete(l.keys, k)
	}
}

// refilled reports whether every bucket in lims is full at now: forgetting
// such a key changes nothing.
func refilled(lims []*rate.Limiter, now time.Time) bool {
	for _, lim := range lims {
		if lim.TokensAt(now) < float64(lim.Burst()) {
			return false
		}
	}
	return true
}

// Seconds is a wait as the Retry-After header and Zulip's "retry-after" give
// it: whole seconds, rounded up, at least one.
func Seconds(wait time.Duration) int {
	return max(int(math.Ceil(wait.Seconds())), 1)
}
