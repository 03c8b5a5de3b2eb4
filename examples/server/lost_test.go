package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/internal/testsupport/testenv"
)

// TestTerminatedBackends runs a mixed load (sends, reads and event polls) on
// two example-server instances sharing one PostgreSQL database while another
// session terminates every backend of both instances again and again
// (pg_terminate_backend, as an operator or a failover does). The load lasts
// until eight terminations have each cut at least one backend, however fast
// the machine sends (a fixed number of sends can finish before the first
// termination). No
// request answers 500 (a transaction that lost its connection runs again on
// a fresh one; what still fails answers 503), and every acknowledged send is
// stored, once.
func TestTerminatedBackends(t *testing.T) {
	is := is.New(t)
	app := "chatcore-lost-" + rand.Text()[:8]
	db := pgtest.URL(t) // its search path names the test's schema
	if strings.Contains(db, "://") {
		db += "&application_name=" + app
	} else {
		db += " application_name=" + app // a key=value DSN
	}
	bin := buildServer(t)
	a := spawn(t, bin, "-db", db, "-db-pool", "4", "-rate-limit", "0")
	b := spawn(t, bin, "-db", db, "-db-pool", "4", "-rate-limit", "0")
	instances := []*process{a, b}

	ctx := context.Background()
	admin, err := pgx.Connect(ctx, os.Getenv(testenv.PostgresVar))
	is.NoErr(err) // a session of its own, which is not terminated
	defer admin.Close(ctx)

	// Terminations a second apart: each one a connection loss the
	// instances recover from (a new connection takes this machine a few
	// hundred milliseconds under load; terminations closer together make an
	// outage, answered 503).
	const killEvery = time.Second
	// rounds terminations that each cut a backend end the load; maxSends
	// per sender and loadLimit bound it on a machine where terminations
	// find nothing to cut.
	const (
		senders, maxSends = 4, 5000
		rounds            = 8
		loadLimit         = 2 * time.Minute
	)
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		acked    = map[string]string{} // message id → content
		attempts int
	)
	note := func(status int) {
		mu.Lock()
		statuses[status]++
		mu.Unlock()
	}
	stop := make(chan struct{})
	enough := make(chan struct{}) // closed after rounds cutting terminations
	var load, side sync.WaitGroup
	for w := range senders {
		load.Go(func() {
			p := instances[w%2]
			for i := range maxSends {
				select {
				case <-enough:
					return
				default:
				}
				mu.Lock()
				attempts++
				mu.Unlock()
				content := fmt.Sprintf("sender %d message %d", w, i)
				status, body := p.call(t, "POST", "/messages", demoOwner, demoOwnerKey, url.Values{
					"type": {"stream"}, "to": {"general"}, "topic": {"terminated"}, "content": {content}})
				note(status)
				if status == 200 {
					mu.Lock()
					acked[jsonID(body["id"])] = "<p>" + content + "</p>"
					mu.Unlock()
				}
			}
		})
	}
	// Readers and pollers on both instances until the sends are done.
	for _, p := range instances {
		side.Go(func() {
			status, body := p.call(t, "POST", "/register", demoMember, demoMemberKey, url.Values{"event_types": {`["message"]`}})
			note(status)
			if status != 200 {
				return
			}
			queue, last := body["queue_id"].(string), jsonID(body["last_event_id"])
			for {
				select {
				case <-stop:
					return
				default:
				}
				status, body := p.call(t, "GET", "/events", demoMember, demoMemberKey, url.Values{
					"queue_id": {queue}, "last_event_id": {last}, "dont_block": {"true"}})
				note(status)
				if status == 200 {
					for _, e := range body["events"].([]any) {
						last = jsonID(e.(map[string]any)["id"])
					}
				}
				status, _ = p.call(t, "GET", "/messages", demoMember, demoMemberKey, url.Values{
					"anchor": {"newest"}, "num_before": {"20"}, "num_after": {"0"}})
				note(status)
			}
		})
	}
	terminated, cutting := 0, 0 // backends cut; terminations that cut one
	var enoughOnce sync.Once
	side.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(killEvery):
			}
			var n int
			err := admin.QueryRow(ctx, "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&n)
			if err != nil {
				t.Errorf("terminating backends: %v", err)
				return
			}
			mu.Lock()
			terminated += n
			if n > 0 {
				cutting++
			}
			if cutting >= rounds {
				enoughOnce.Do(func() { close(enough) })
			}
			mu.Unlock()
		}
	})
	began := time.Now()
	limit := time.AfterFunc(loadLimit, func() { enoughOnce.Do(func() { close(enough) }) })
	load.Wait()
	limit.Stop()
	t.Logf("load took %v", time.Since(began))
	close(stop)
	side.Wait()

	t.Logf("answers by status: %v; backends terminated: %d in %d terminations; sends acknowledged: %d of %d", statuses, terminated, cutting, len(acked), attempts)
	is.True(cutting >= rounds) // the backends were terminated, again and again
	is.Equal(statuses[500], 0) // and no request answered 500
	for status := range statuses {
		is.True(status == 200 || status == 503) // only successes and retryable answers
	}
	is.True(len(acked) > attempts/2) // most sends got through

	// Every acknowledged send is stored, once, as both instances see it.
	for id, content := range acked {
		for _, p := range instances {
			status, body := p.call(t, "GET", "/messages/"+id, demoOwner, demoOwnerKey, nil)
			is.Equal(status, 200) // the acknowledged message is there
			is.Equal(body["message"].(map[string]any)["content"], content)
		}
	}
	// The whole topic, newest first, a page of 1,000 at a time.
	seen := map[string]int{}
	for anchor := "newest"; ; {
		status, body := a.call(t, "GET", "/messages", demoOwner, demoOwnerKey, url.Values{
			"anchor": {anchor}, "include_anchor": {"false"}, "num_before": {"1000"}, "num_after": {"0"},
			"narrow": {`[{"operator":"topic","operand":"terminated"}]`}})
		is.Equal(status, 200)
		page := body["messages"].([]any)
		for _, m := range page {
			seen[m.(map[string]any)["content"].(string)]++
		}
		if body["found_oldest"] == true || len(page) == 0 {
			break
		}
		anchor = jsonID(page[0].(map[string]any)["id"])
	}
	for content, n := range seen {
		if n != 1 {
			t.Errorf("%q stored %d times", content, n)
		}
	}
	for _, content := range acked {
		is.Equal(seen[content], 1) // each acknowledged send once
	}
}
