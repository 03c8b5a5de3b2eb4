package httpadapter_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// TestRateLimitOrder checks where the per-user limit sits, as in Zulip's
// authenticated_rest_api_view: after authentication (a request that does not
// authenticate spends nobody's budget and carries no X-RateLimit-* headers)
// and before the role check and the view (a refused request still counts).
func TestRateLimitOrder(t *testing.T) {
	is := is.New(t)
	now := time.Unix(1_800_000_000, 0)
	e := newEnv(t, httpadapter.Options{
		RateLimit: &httpadapter.RateLimit{Requests: 2, Per: time.Minute},
		Now:       func() time.Time { return now },
	})
	wrongKey := cred{member.email, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}
	for range 5 {
		for _, c := range []*cred{&wrongKey, &gone, nil} {
			res := e.do(t, request{method: "GET", path: "/users/me", auth: c})
			is.Equal(res.status, 401)                         // not authenticated
			is.Equal(res.header.Get("X-RateLimit-Limit"), "") // no per-user budget without a user
		}
	}

	// A member on an administrators' route is refused, and the refusal counts.
	res := e.do(t, request{method: "DELETE", path: "/realm/filters/4001", auth: &member})
	wantError(t, res, 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
	is.Equal(res.header.Get("X-RateLimit-Limit"), "2")     // the budget
	is.Equal(res.header.Get("X-RateLimit-Remaining"), "1") // the refusal took a token

	// A parameter error counts too and carries the headers.
	res = e.do(t, request{method: "GET", path: "/messages", auth: &member, params: params("num_before", "x")})
	wantError(t, res, 400, "BAD_REQUEST", "num_before is not valid JSON")
	is.Equal(res.header.Get("X-RateLimit-Remaining"), "0") // the last token

	// Now even the role check is not reached: the limit comes first.
	res = e.do(t, request{method: "DELETE", path: "/realm/filters/4001", auth: &member})
	wantError(t, res, 429, "RATE_LIMIT_HIT", "API usage exceeded rate limit")
	is.Equal(res.header.Get("Retry-After"), "30")                                                     // one token every 30 s
	is.Equal(num(t, res.body["retry-after"]), int64(30))                                              // the same in the body
	is.Equal(res.header.Get("X-RateLimit-Limit"), "2")                                                // the budget
	is.Equal(res.header.Get("X-RateLimit-Remaining"), "0")                                            // nothing left
	is.Equal(res.header.Get("X-RateLimit-Reset"), strconv.FormatInt(now.Add(time.Minute).Unix(), 10)) // full again in a minute
	checkSpec(t, "DELETE", "/realm/filters/{filter_id}", res)

	// The failed logins above spent none of the member's budget: after one
	// refill period there is exactly one token.
	now = now.Add(30 * time.Second)
	wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &member}))
	res = e.do(t, request{method: "GET", path: "/users/me", auth: &member})
	is.Equal(res.status, 429) // one token came back, and it is spent
}

// TestRateLimitConcurrent fires many requests of one user at once: the token
// bucket lets exactly its size through, and every refusal is well formed.
func TestRateLimitConcurrent(t *testing.T) {
	is := is.New(t)
	const budget, requests = 10, 60
	e := newEnv(t, httpadapter.Options{RateLimit: &httpadapter.RateLimit{Requests: budget, Per: time.Hour}})
	results := make([]*response, requests)
	var wg sync.WaitGroup
	for i := range requests {
		wg.Go(func() {
			req, err := http.NewRequestWithContext(t.Context(), "GET", e.srv.URL+"/api/v1/reminders", nil)
			if err != nil {
				return
			}
			req.Header.Set("Authorization", member.basic())
			results[i] = e.send(t, req)
		})
	}
	wg.Wait()
	ok, limited := 0, 0
	for _, res := range results {
		is.True(res != nil) // every request was answered
		switch res.status {
		case 200:
			ok++
		case 429:
			limited++
			is.Equal(res.body["code"], "RATE_LIMIT_HIT")                                                    // Zulip's code
			is.Equal(res.header.Get("Retry-After"), strconv.FormatInt(num(t, res.body["retry-after"]), 10)) // header and body agree
			is.True(num(t, res.body["retry-after"]) >= 1)                                                   // a positive wait
		default:
			t.Fatalf("unexpected status %d: %s", res.status, res.raw)
		}
	}
	is.Equal(ok, budget)                                                              // exactly the bucket's size got through
	is.Equal(limited, requests-budget)                                                // the rest were refused
	wantSuccess(t, e.do(t, request{method: "GET", path: "/reminders", auth: &admin})) // another user is unaffected
}
