package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
)

// longPoller keeps GET /events waiting on one queue over HTTP and reports
// each answer with events.
type longPoller struct {
	e     *env
	auth  *cred
	queue string
	last  int64
}

// run polls until ctx ends, sending the time of each answer with events.
func (p *longPoller) run(ctx context.Context, answered chan<- time.Time) {
	for ctx.Err() == nil {
		q := url.Values{"queue_id": {p.queue}, "last_event_id": {fmt.Sprint(p.last)}}
		req, _ := http.NewRequestWithContext(ctx, "GET", p.e.srv.URL+"/api/v1/events?"+q.Encode(), nil)
		req.Header.Set("Authorization", p.auth.basic())
		res, err := p.e.srv.Client().Do(req)
		if err != nil {
			return
		}
		at := time.Now()
		var body struct {
			Events []struct {
				ID int64 `json:"id"`
			} `json:"events"`
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		io.Copy(io.Discard, res.Body) //nolint:errcheck // drained for reuse
		res.Body.Close()
		if err != nil {
			return
		}
		for _, ev := range body.Events {
			p.last = max(p.last, ev.ID)
		}
		if len(body.Events) > 0 && answered != nil {
			select {
			case answered <- at:
			case <-ctx.Done():
				return
			}
		}
	}
}

// httpQueue registers a message queue for c over HTTP.
func httpQueue(b *testing.B, e *env, c *cred) *longPoller {
	res := e.do(b, request{method: "POST", path: "/register", auth: c, enc: urlEncoded,
		params: params("event_types", `["message"]`, "fetch_event_types", `[]`)})
	if res.status != 200 {
		b.Fatalf("register: %s", res.raw)
	}
	return &longPoller{e: e, auth: c, queue: res.body["queue_id"].(string), last: -1}
}

// BenchmarkHTTPWakeLatency measures, over HTTP with 1,000 connected long
// polls (999 of a user the messages do not reach), the time from the commit
// of a direct message to the arrival of the recipient's GET /events answer.
func BenchmarkHTTPWakeLatency(b *testing.B) {
	e := newEnv(b, httpadapter.Options{})
	e.srv.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = 2000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for range 999 {
		p := httpQueue(b, e, &guest)
		wg.Go(func() { p.run(ctx, nil) })
	}
	target := httpQueue(b, e, &member)
	answered := make(chan time.Time)
	wg.Go(func() { target.run(ctx, answered) })
	var mu sync.Mutex
	var committed time.Time
	stop := e.w.Svc.OnEventsCommitted(func([]chatcore.EventNotice) { mu.Lock(); committed = time.Now(); mu.Unlock() })
	defer stop()
	time.Sleep(300 * time.Millisecond)
	me := e.do(b, request{method: "GET", path: "/users/me", auth: &member})
	to := fmt.Sprintf("[%d]", num(b, me.body["user_id"]))
	owner := e.do(b, request{method: "GET", path: "/users/me", auth: &owner})
	sender := chatcore.UserID(num(b, owner.body["user_id"]))
	var lat []time.Duration
	for b.Loop() {
		if _, err := e.w.Svc.SendMessage(ctx, sender, chatcore.SendMessageRequest{Type: "private", To: &to, Content: "ping"}); err != nil {
			b.Fatal(err)
		}
		at := <-answered
		mu.Lock()
		lat = append(lat, at.Sub(committed))
		mu.Unlock()
	}
	b.StopTimer()
	cancel()
	wg.Wait()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds()), "p99-µs")
}

// BenchmarkSendWithPollingQueues measures POST /messages to a channel with
// 0 or 100 queues of a subscriber long-polling it (each re-polling as soon
// as it is answered): the cost events add to a send.
func BenchmarkSendWithPollingQueues(b *testing.B) {
	for _, n := range []int{0, 100} {
		b.Run(fmt.Sprintf("queues=%d", n), func(b *testing.B) {
			e := newEnv(b, httpadapter.Options{})
			e.srv.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = 200
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			for range n {
				p := httpQueue(b, e, &member)
				wg.Go(func() { p.run(ctx, nil) })
			}
			time.Sleep(200 * time.Millisecond)
			form := url.Values{"type": {"stream"}, "to": {"general"}, "topic": {"bench"}, "content": {"hello"}}.Encode()
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/messages", strings.NewReader(form))
				req.Header.Set("Authorization", owner.basic())
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				res, err := e.srv.Client().Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, res.Body) //nolint:errcheck // drained
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatalf("status %d", res.StatusCode)
				}
			}
			b.StopTimer()
			cancel()
			wg.Wait()
		})
	}
}
