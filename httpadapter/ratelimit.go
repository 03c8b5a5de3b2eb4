package httpadapter

import (
	"net/http"
	"strconv"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/ratelimit"
)

// RateLimit configures per-user rate limiting: each authenticated user may make
// Requests requests per Per, refilled continuously (a token bucket of Requests
// tokens). Zulip's default is 200 requests per minute.
type RateLimit struct {
	Requests int
	Per      time.Duration
}

// maxTrackedKeys bounds how many users (or client addresses) one adapter
// limiter tracks. Beyond it the limiter forgets keys whose buckets have
// refilled, then an eighth at random, whose limits start afresh; an entry
// costs a few hundred bytes, so the bound keeps each limiter to tens of MiB.
const maxTrackedKeys = 100_000

// limiters hands out one token bucket per user.
type limiters struct {
	l     *ratelimit.Limiter[chatcore.UserID]
	burst int
	now   func() time.Time
}

func newLimiters(rl RateLimit, now func() time.Time) *limiters {
	return &limiters{
		l:     ratelimit.New[chatcore.UserID](maxTrackedKeys, ratelimit.Rule{Window: rl.Per, Max: rl.Requests}),
		burst: rl.Requests,
		now:   now,
	}
}

// allow takes one token for the user and sets Zulip's X-RateLimit-* headers.
// When the bucket is empty it returns the RATE_LIMIT_HIT error, whose
// RetryAfter the envelope writer puts in the body and the Retry-After header.
func (l *limiters) allow(w http.ResponseWriter, id chatcore.UserID) error {
	now := l.now()
	res := l.l.Take(id, now)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.burst))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(now.Add(res.Refill).Unix(), 10))
	if res.Allowed {
		return nil
	}
	return errRateLimitHit(res.Wait)
}

// errRateLimitHit is Zulip's RateLimitedError: 429 RATE_LIMIT_HIT "API
// usage exceeded rate limit", retry after wait.
func errRateLimitHit(wait time.Duration) *chatcore.Error {
	return &chatcore.Error{
		Code:       chatcore.CodeRateLimitHit,
		Kind:       chatcore.KindRateLimited,
		Msg:        "API usage exceeded rate limit",
		RetryAfter: wait,
	}
}
