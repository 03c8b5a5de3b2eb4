package chatcore

import (
	"time"

	"github.com/chatcore/chatcore/internal/ratelimit"
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

// maxLimitedUsers bounds how many users a userLimiter tracks at once;
// beyond it the limiter forgets refilled users first, then an eighth at random
// (see [ratelimit.Limiter]).
const maxLimitedUsers = 10000

// WithPasswordAttemptLimit sets how many password checks of a settings
// password change one user may make (Zulip's authenticate_by_username domain;
// default 5 per 30 minutes). A correct old password clears the user's
// history. Beyond the limit, accounts.UpdateSettings answers BAD_REQUEST
// "You're making too many attempts! Try again in <n> seconds." without
// checking the password. No rules (or rules with a non-positive Window or
// Max) disable the limit.
func WithPasswordAttemptLimit(rules ...RateRule) Option {
	l := newUserLimiter(rules)
	return func(s *Service) { s.passwordAttempts = l }
}

// TakePasswordAttempt counts one password check by user against the
// failed-attempt limit ([WithPasswordAttemptLimit]) and reports whether it
// may go ahead; when not, wait is how long until it may.
func (s *Service) TakePasswordAttempt(user UserID) (wait time.Duration, ok bool) {
	r := s.passwordAttempts.Take(user, s.clock.Now())
	return r.Wait, r.Allowed
}

// ForgetPasswordAttempts clears user's history of password checks, as a
// correct password does.
func (s *Service) ForgetPasswordAttempts(user UserID) { s.passwordAttempts.Forget(user) }

// WithEmailChangeLimit sets how many e-mail change requests one user may make
// (Zulip's email_change_by_user domain; default 2 per hour and 5 per day).
// Beyond the limit, accounts.UpdateSettings answers RATE_LIMIT_HIT (kind
// [KindRateLimited]) "API usage exceeded rate limit" with [Error.RetryAfter]
// set to the wait. No rules (or rules with a non-positive Window or Max)
// disable the limit.
func WithEmailChangeLimit(rules ...RateRule) Option {
	l := newUserLimiter(rules)
	return func(s *Service) { s.emailChanges = l }
}

// TakeEmailChange counts one e-mail change request by user against the limit
// of [WithEmailChangeLimit], inside the update fx belongs to, and reports
// whether it may go ahead; when not, wait is how long until it may. A
// retried transaction of the same update gets the first answer and counts
// nothing more.
func (s *Service) TakeEmailChange(fx *Effects, user UserID) (wait time.Duration, ok bool) {
	return fx.take(s.emailChanges, user, s.clock.Now())
}

// userLimiter applies a set of [RateRule]s to each user separately, tracking
// at most maxLimitedUsers users (forgetting users whose buckets have refilled
// changes nothing; reaching the random eviction needs more than
// maxLimitedUsers accounts acting at once). A nil *userLimiter allows
// everything. Safe for concurrent use.
type userLimiter = ratelimit.Limiter[UserID]

// newUserLimiter returns a limiter for the valid rules among rules (positive
// Window and Max), or nil when there is none.
func newUserLimiter(rules []RateRule) *userLimiter {
	rs := make([]ratelimit.Rule, len(rules))
	for i, r := range rules {
		rs[i] = ratelimit.Rule{Window: r.Window, Max: r.Max}
	}
	return ratelimit.New[UserID](maxLimitedUsers, rs...)
}
