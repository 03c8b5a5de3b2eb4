package httpadapter

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/chatcore/chatcore"
	"golang.org/x/time/rate"
)

// RateLimit configures per-user rate limiting: each authenticated user may make
// Requests requests per Per, refilled continuously (a token bucket of Requests
// tokens). Zulip's default is 200 requests per minute.
type RateLimit struct {
	Requests int
	Per      time.Duration
}

// limiters hands out one token bucket per user.
type limiters struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu    sync.Mutex
	users map[chatcore.UserID]*rate.Limiter
}

func newLimiters(rl RateLimit, now func() time.Time) *limiters {
	return &limiters{
		limit: rate.Limit(float64(rl.Requests) / rl.Per.Seconds()),
		burst: rl.Requests,
		now:   now,
		users: make(map[chatcore.UserID]*rate.Limiter),
	}
}

func (l *limiters) get(id chatcore.UserID) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.users[id]
	if !ok {
		lim = rate.NewLimiter(l.limit, l.burst)
		l.users[id] = lim
	}
	return lim
}

// allow takes one token for the user and sets Zulip's X-RateLimit-* headers.
// When the bucket is empty it returns the RATE_LIMIT_HIT error, whose
// retry-after the envelope writer also puts in the Retry-After header.
func (l *limiters) allow(w http.ResponseWriter, id chatcore.UserID) error {
	lim := l.get(id)
	now := l.now()
	res := lim.ReserveN(now, 1)
	delay := res.DelayFrom(now)
	if delay > 0 {
		res.CancelAt(now)
	}
	tokens := lim.TokensAt(now)
	remaining := max(int(math.Floor(tokens)), 0)
	// Seconds until the bucket is full again.
	toFull := (float64(l.burst) - tokens) / float64(l.limit)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(l.burst))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(now.Add(time.Duration(toFull*float64(time.Second))).Unix(), 10))
	if delay <= 0 {
		return nil
	}
	return &chatcore.Error{
		Code: chatcore.CodeRateLimitHit,
		Kind: chatcore.KindRateLimited,
		Msg:  "API usage exceeded rate limit",
		// Zulip sends fractional seconds, but its OpenAPI schema declares an
		// integer: whole seconds, rounded up, satisfy both readings.
		Data: map[string]any{"retry-after": max(int(math.Ceil(delay.Seconds())), 1)},
	}
}
