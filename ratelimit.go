package chatcore

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateRule allows at most Max operations per Window: one of Zulip's
// (seconds, count) rate-limiting rules. chatcore enforces a rule as a token
// bucket holding Max tokens that refills at Max per Window, so a burst of Max
// is allowed at once and then one more every Window/Max.
type RateRule struct {
	Window time.Duration
	Max    int
}

// Zulip's default rules (zproject/default_settings.py, DEFAULT_RATE_LIMITING_RULES).
var (
	// authenticate_by_username: 5 failed login attempts within 30 minutes.
	defaultPasswordAttemptRules = []RateRule{{Window: 30 * time.Minute, Max: 5}}
	// email_change_by_user: 2 requests per hour and 5 per day.
	defaultEmailChangeRules = []RateRule{{Window: time.Hour, Max: 2}, {Window: 24 * time.Hour, Max: 5}}
)

// maxLimitedUsers bounds how many users a userLimiter tracks at once.
const maxLimitedUsers = 10000

// WithPasswordAttemptLimit sets how many password checks of a settings
// password change one user may make (Zulip's authenticate_by_username domain;
// default 5 per 30 minutes). A correct old password clears the user's
// history. Beyond the limit, [Service.UpdateSettings] answers BAD_REQUEST
// "You're making too many attempts! Try again in <n> seconds." without
// checking the password. No rules (or rules with a non-positive Window or
// Max) disable the limit.
func WithPasswordAttemptLimit(rules ...RateRule) Option {
	l := newUserLimiter(rules)
	return func(s *Service) { s.passwordAttempts = l }
}

// WithEmailChangeLimit sets how many e-mail change requests one user may make
// (Zulip's email_change_by_user domain; default 2 per hour and 5 per day).
// Beyond the limit, [Service.UpdateSettings] answers RATE_LIMIT_HIT (kind
// [KindRateLimited]) "API usage exceeded rate limit" with Data["retry-after"]
// in whole seconds. No rules (or rules with a non-positive Window or Max)
// disable the limit.
func WithEmailChangeLimit(rules ...RateRule) Option {
	l := newUserLimiter(rules)
	return func(s *Service) { s.emailChanges = l }
}

// userLimiter applies a set of [RateRule]s to each user separately. It keeps
// at most maxLimitedUsers users: when full, it forgets users whose buckets
// have refilled (forgetting them changes nothing), and if that is not enough,
// an eighth of the users at random, whose limits then start afresh (reaching
// that needs more than maxLimitedUsers accounts acting at once). A nil
// *userLimiter allows everything. Safe for concurrent use.
type userLimiter struct {
	rules []RateRule
	max   int

	mu    sync.Mutex
	users map[UserID][]*rate.Limiter
}

// newUserLimiter returns a limiter for the valid rules among rules, or nil
// when there is none.
func newUserLimiter(rules []RateRule) *userLimiter {
	var valid []RateRule
	for _, r := range rules {
		if r.Window > 0 && r.Max > 0 {
			valid = append(valid, r)
		}
	}
	if len(valid) == 0 {
		return nil
	}
	return &userLimiter{rules: valid, max: maxLimitedUsers, users: make(map[UserID][]*rate.Limiter)}
}

// take spends one operation of user at now. When a rule has no room left it
// spends nothing and reports false with the wait until every rule has room.
func (l *userLimiter) take(user UserID, now time.Time) (time.Duration, bool) {
	if l == nil {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lims, ok := l.users[user]
	if !ok {
		if len(l.users) >= l.max {
			l.evict(now)
		}
		lims = make([]*rate.Limiter, len(l.rules))
		for i, r := range l.rules {
			lims[i] = rate.NewLimiter(rate.Limit(float64(r.Max)/r.Window.Seconds()), r.Max)
		}
		l.users[user] = lims
	}
	var wait time.Duration
	res := make([]*rate.Reservation, len(lims))
	for i, lim := range lims {
		res[i] = lim.ReserveN(now, 1)
		wait = max(wait, res[i].DelayFrom(now))
	}
	if wait <= 0 {
		return 0, true
	}
	for _, r := range res {
		r.CancelAt(now)
	}
	return wait, false
}

// clear forgets user's history (a successful login clears Zulip's failed attempts).
func (l *userLimiter) clear(user UserID) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.users, user)
}

// evict makes room for one more user. Called with l.mu held. It forgets
// every user whose buckets have refilled; if that frees nothing, it forgets
// arbitrary users (map order) down to seven eighths of the bound, so the
// sweep's cost is spread over many later insertions.
func (l *userLimiter) evict(now time.Time) {
	for id, lims := range l.users {
		if refilled(lims, now) {
			delete(l.users, id)
		}
	}
	for id := range l.users {
		if len(l.users) < l.max-l.max/8 {
			break
		}
		delete(l.users, id)
	}
}

// refilled reports whether every bucket in lims is full at now: forgetting
// such a user changes nothing.
func refilled(lims []*rate.Limiter, now time.Time) bool {
	for _, lim := range lims {
		if lim.TokensAt(now) < float64(lim.Burst()) {
			return false
		}
	}
	return true
}

// size returns how many users l tracks.
func (l *userLimiter) size() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.users)
}

// retryAfterSeconds rounds a wait up to whole seconds, at least one.
func retryAfterSeconds(wait time.Duration) int {
	return max(int(math.Ceil(wait.Seconds())), 1)
}
