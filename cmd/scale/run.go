package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/store"
)

// server is the HTTP adapter running in-process over a generated database.
type server struct {
	base  string
	st    closingStore
	errs  *errorLog
	close func()
}

// errorLog counts the server's error log lines and keeps the first ones.
type errorLog struct {
	mu    sync.Mutex
	n     int
	first []string
}

func (l *errorLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// A request the runner gave up on (its timeout) is cancelled: the
	// server logs that, and it is no failure of the server.
	if line := string(p); strings.Contains(line, "level=ERROR") && !strings.Contains(line, "context canceled") {
		l.n++
		if len(l.first) < 5 {
			l.first = append(l.first, strings.TrimSpace(string(p)))
		}
	}
	return len(p), nil
}

// startServer starts the adapter over st on 127.0.0.1 port 0, as
// examples/server wires it (no rate limit, no outgoing webhooks).
func startServer(st closingStore) (*server, error) {
	errs := &errorLog{}
	logger := slog.New(slog.NewTextHandler(errs, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	svc := chatcore.New(st, chatcore.WithLogger(logger), chatcore.WithExternalURL(base))
	hs := httpadapter.NewServer(httpadapter.New(svc, httpadapter.Options{Logger: logger}), logger)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	return &server{base: base, st: st, errs: errs, close: func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			hs.Close()
		}
		<-served
		_ = svc.Shutdown(ctx)
	}}, nil
}

// client calls the server as one user.
type client struct {
	base string
	http *http.Client
	auth string
}

func newClient(base string, m *model, user store.UserID, timeout time.Duration) *client {
	u := m.user(user)
	return &client{base: base, http: &http.Client{Timeout: timeout},
		auth: "Basic " + base64.StdEncoding.EncodeToString([]byte(u.email+":"+u.key))}
}

// errTimeout is a request that took longer than the per-request timeout.
var errTimeout = errors.New("timeout")

// call makes one request and returns the decoded JSON body of a 200.
func (c *client) call(ctx context.Context, method, path string, params url.Values) (map[string]any, error) {
	out, _, err := c.timedCall(ctx, method, path, params)
	return out, err
}

// timedCall is call that also returns how long the request took from
// sending it to the last byte of its answer: decoding the JSON into maps,
// which is the client's work and takes longer than the server's for large
// answers, is not counted.
func (c *client) timedCall(ctx context.Context, method, path string, params url.Values) (map[string]any, time.Duration, error) {
	var body io.Reader
	target := c.base + "/api/v1" + path
	if method == http.MethodGet || method == http.MethodDelete {
		if len(params) > 0 {
			target += "?" + params.Encode()
		}
	} else {
		body = strings.NewReader(params.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	req.Header.Set("Authorization", c.auth)
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.http.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, 0, errTimeout
		}
		return nil, 0, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	took := time.Since(start)
	if err != nil {
		return nil, 0, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("%s %s: status %d: %.300s", method, path, res.StatusCode, data)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, 0, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return out, took, nil
}

// queuedEvents is how many events the GET /events request finds queued.
// A variable so that the smoke test can queue fewer.
var queuedEvents = 1000

// request is one row of the table.
type request struct {
	name   string
	user   store.UserID
	method string
	path   string
	params func(run int) url.Values
	// ids extracts the answer's ids to compare with raw's (sorted).
	ids func(map[string]any) []int64
	raw *rawQuery
	// before runs (untimed) before each timed run; after after it.
	before, after func(ctx context.Context, c *client, res map[string]any) error
	write         bool
}

// result is what the runner measured of one request.
type result struct {
	p50, p90, raw time.Duration
	// store is the p50 of the store's part of a GET /messages read (see
	// captureQueries), when hasStore.
	store    time.Duration
	timeout  bool
	hasRaw   bool
	hasStore bool
	err      error
}

// messageIDs reads the ids of a GET /messages answer, sorted.
func messageIDs(res map[string]any) []int64 {
	var out []int64
	ms, _ := res["messages"].([]any)
	for _, m := range ms {
		if mm, ok := m.(map[string]any); ok {
			out = append(out, int64(mm["id"].(float64)))
		}
	}
	slices.Sort(out)
	return out
}

func narrowJSON(terms ...[2]any) string {
	var list []map[string]any
	for _, t := range terms {
		list = append(list, map[string]any{"operator": t[0], "operand": t[1]})
	}
	b, _ := json.Marshal(list)
	return string(b)
}

func vals(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

func fixed(v url.Values) func(int) url.Values { return func(int) url.Values { return v } }

func idList(ids []int64) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// deleteQueue drops the queue a /register made (untimed), so that queues do
// not pile up over the runs.
func deleteQueue(ctx context.Context, c *client, res map[string]any) error {
	q, _ := res["queue_id"].(string)
	if q == "" {
		return nil
	}
	_, err := c.call(ctx, http.MethodDelete, "/events", vals("queue_id", q))
	return err
}

// requests returns the table's requests for the model; raw reads ids it
// needs from the database.
func requests(ctx context.Context, m *model, rdb *rawDB, recipientOf func(conv int) store.RecipientID) ([]request, error) {
	typ, unread := m.typical, m.unread
	big := &m.channels[0]
	partners := []string{}
	for _, u := range m.convs[m.typicalConv].members {
		if u != typ {
			partners = append(partners, strconv.FormatInt(int64(u), 10))
		}
	}
	dmTo := "[" + strings.Join(partners, ",") + "]"
	var dmOperand []int64
	for _, p := range partners {
		n, _ := strconv.ParseInt(p, 10, 64)
		dmOperand = append(dmOperand, n)
	}
	maxID := func(res map[string]any) []int64 {
		f, _ := res["max_message_id"].(float64)
		return []int64{int64(f)}
	}
	get := func(anchor string, before, after int, narrow string) url.Values {
		v := vals("anchor", anchor, "num_before", strconv.Itoa(before), "num_after", strconv.Itoa(after), "apply_markdown", "true")
		if narrow != "" {
			v.Set("narrow", narrow)
		}
		return v
	}
	rq := func(q rawQuery) *rawQuery { return &q }
	regMsg := fixed(vals("event_types", `["message"]`))
	regAll := fixed(url.Values{})
	topicsIDs := func(res map[string]any) []int64 {
		var out []int64
		ts, _ := res["topics"].([]any)
		for _, t := range ts {
			out = append(out, int64(t.(map[string]any)["max_id"].(float64)))
		}
		slices.Sort(out)
		return out
	}

	typRs, err := rdb.userRecipients(ctx, typ)
	if err != nil {
		return nil, fmt.Errorf("raw: the typical user's recipients: %w", err)
	}
	unreadRs, err := rdb.userRecipients(ctx, unread)
	if err != nil {
		return nil, fmt.Errorf("raw: the unread user's recipients: %w", err)
	}
	// The ids the flag writes change: the typical user's newest received
	// messages.
	newest, err := rdb.query(ctx, rawReceived(typRs, nil, true, 5000))
	if err != nil {
		return nil, fmt.Errorf("raw: the typical user's newest messages: %w", err)
	}
	flag100, flag5000 := idList(newest[:min(100, len(newest))]), idList(newest)
	toggle := func(ids, flag string) func(int) url.Values {
		return func(run int) url.Values {
			op := "add"
			if run%2 == 1 {
				op = "remove"
			}
			return vals("messages", ids, "op", op, "flag", flag)
		}
	}
	var queue string
	hotTopic := big.topics[0]

	rs := []request{
		{name: `POST /register event_types=["message"]`, user: typ, method: "POST", path: "/register", params: regMsg, ids: maxID, raw: rq(rawMaxReceived(typRs)), after: deleteQueue},
		{name: `  same, 50k-unread user`, user: unread, method: "POST", path: "/register", params: regMsg, ids: maxID, raw: rq(rawMaxReceived(unreadRs)), after: deleteQueue},
		{name: "POST /register (all sections)", user: typ, method: "POST", path: "/register", params: regAll, ids: maxID, raw: rq(rawMaxReceived(typRs)), after: deleteQueue},
		{name: "  same, 50k-unread user", user: unread, method: "POST", path: "/register", params: regAll, ids: maxID, raw: rq(rawMaxReceived(unreadRs)), after: deleteQueue},
		{name: "GET /messages newest 100, no narrow", user: typ, method: "GET", path: "/messages", params: fixed(get("newest", 100, 0, "")), ids: messageIDs, raw: rq(rawReceived(typRs, nil, true, 100))},
		{name: "  same, anchor=oldest num_after 100", user: typ, method: "GET", path: "/messages", params: fixed(get("oldest", 0, 100, "")), ids: messageIDs, raw: rq(rawReceived(typRs, nil, false, 100))},
		{name: "is:unread anchor=first_unread, 100 after", user: typ, method: "GET", path: "/messages", params: fixed(get("first_unread", 0, 100, narrowJSON([2]any{"is", "unread"}))), ids: messageIDs, raw: rq(rawUnread(typ, typRs, 101))},
		{name: "  same, 50k-unread user", user: unread, method: "GET", path: "/messages", params: fixed(get("first_unread", 0, 100, narrowJSON([2]any{"is", "unread"}))), ids: messageIDs, raw: rq(rawUnread(unread, unreadRs, 101))},
		{name: "sender:<busy user> newest 50", user: typ, method: "GET", path: "/messages", params: fixed(get("newest", 50, 0, narrowJSON([2]any{"sender", int64(m.busy)}))), ids: messageIDs, raw: rq(rawReceived(typRs, senderCond(m.busy), true, 50))},
		{name: "channel + topic newest 100", user: typ, method: "GET", path: "/messages", params: fixed(get("newest", 100, 0, narrowJSON([2]any{"channel", int64(big.id)}, [2]any{"topic", hotTopic}))), ids: messageIDs, raw: rq(rawTopic(big.id, hotTopic, 100))},
		{name: "DM conversation newest 50", user: typ, method: "GET", path: "/messages", params: fixed(get("newest", 50, 0, narrowJSON([2]any{"dm", dmOperand}))), ids: messageIDs, raw: rq(rawConversation(recipientOf(m.typicalConv), 50))},
		{name: "is:starred newest 100", user: typ, method: "GET", path: "/messages", params: fixed(get("newest", 100, 0, narrowJSON([2]any{"is", "starred"}))), ids: messageIDs, raw: rq(rawFlagged(typ, store.FlagStarred, 100))},
		{name: "is:mentioned newest 100", user: typ, method: "GET", path: "/messages", params: fixed(get("newest", 100, 0, narrowJSON([2]any{"is", "mentioned"}))), ids: messageIDs, raw: rq(rawFlagged(typ, store.MentionFlags, 100))},
		{name: "has:link newest 100", user: typ, method: "GET", path: "/messages", params: fixed(get("newest", 100, 0, narrowJSON([2]any{"has", "link"}))), ids: messageIDs, raw: rq(rawReceived(typRs, hasCond(store.HasLink), true, 100))},
		{name: "GET /users/me/{big}/topics", user: typ, method: "GET", path: fmt.Sprintf("/users/me/%d/topics", big.id), params: fixed(url.Values{}), ids: topicsIDs, raw: rq(rawTopics(big.id))},
		{name: "GET /events after 1k queued events", user: typ, method: "GET", path: "/events",
			params: func(int) url.Values { return vals("queue_id", queue, "last_event_id", "-1", "dont_block", "true") },
			ids: func(res map[string]any) []int64 {
				evs, _ := res["events"].([]any)
				return []int64{int64(len(evs))}
			},
			raw: nil},
		{name: "flags for 5,000 messages (read)", user: typ, method: "POST", path: "/messages/flags", params: toggle(flag5000, "read"), write: true},
		{name: "send to the big channel", user: typ, method: "POST", path: "/messages", params: func(run int) url.Values {
			return vals("type", "stream", "to", strconv.FormatInt(int64(big.id), 10), "topic", "scale run", "content", fmt.Sprintf("Run %d says hello.", run))
		}, write: true},
		{name: "send a DM", user: typ, method: "POST", path: "/messages", params: func(run int) url.Values {
			return vals("type", "direct", "to", dmTo, "content", fmt.Sprintf("Run %d says hello.", run))
		}, write: true},
		{name: "flags for 100 messages (starred)", user: typ, method: "POST", path: "/messages/flags", params: toggle(flag100, "starred"), write: true},
	}
	// GET /events: register a queue, then queue 1k events on it (starring
	// and unstarring one message) before the timed polls.
	for i := range rs {
		if rs[i].path != "/events" {
			continue
		}
		rs[i].before = func(ctx context.Context, c *client, _ map[string]any) error {
			if queue != "" {
				return nil
			}
			res, err := c.call(ctx, "POST", "/register", vals("event_types", `["update_message_flags"]`))
			if err != nil {
				return err
			}
			queue, _ = res["queue_id"].(string)
			one := idList(newest[:1])
			for k := range queuedEvents {
				op := "add"
				if k%2 == 1 {
					op = "remove"
				}
				if _, err := c.call(ctx, "POST", "/messages/flags", vals("messages", one, "op", op, "flag", "starred")); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return rs, nil
}

// query runs a raw sibling.
func (r *rawDB) query(ctx context.Context, q rawQuery) ([]int64, error) {
	s := q.sql
	if r.pg != nil {
		s = q.forPostgres()
	}
	return r.ids(ctx, s, q.args...)
}

// percentile returns the p-th percentile (0..1) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// measure times r runs times (sequentially), its store part when it has
// one (see captureQueries) and its raw sibling, and checks that the raw ids
// equal the answer's.
func measure(ctx context.Context, srv *server, m *model, rdb *rawDB, r request, runs int, timeout time.Duration) result {
	c := newClient(srv.base, m, r.user, timeout)
	var res result
	var times []time.Duration
	var first map[string]any
	for run := range runs {
		if r.before != nil {
			if err := r.before(ctx, c, nil); err != nil {
				res.err = err
				return res
			}
		}
		out, d, err := c.timedCall(ctx, r.method, r.path, r.params(run))
		if errors.Is(err, errTimeout) {
			res.timeout = true
			break
		}
		if err != nil {
			res.err = err
			return res
		}
		times = append(times, d)
		if first == nil {
			first = out
		}
		if r.after != nil {
			if err := r.after(ctx, c, out); err != nil {
				res.err = err
				return res
			}
		}
	}
	res.p50, res.p90 = percentile(times, 0.5), percentile(times, 0.9)
	if r.path == "/events" && first != nil {
		if n := r.ids(first)[0]; n < int64(queuedEvents) {
			res.err = fmt.Errorf("GET /events returned %d events, want %d or more", n, queuedEvents)
			return res
		}
	}
	if r.raw == nil {
		return res
	}
	res.hasRaw = true
	var rawTimes []time.Duration
	var rawIDs []int64
	for range runs {
		start := time.Now()
		ids, err := rdb.query(ctx, *r.raw)
		rawTimes = append(rawTimes, time.Since(start))
		if err != nil {
			res.err = fmt.Errorf("raw sibling: %w", err)
			return res
		}
		rawIDs = ids
	}
	res.raw = percentile(rawTimes, 0.5)
	if first != nil {
		slices.Sort(rawIDs)
		if got := r.ids(first); !slices.Equal(got, rawIDs) {
			res.err = fmt.Errorf("ids differ from the raw sibling's: API %s, raw %s", summary(got), summary(rawIDs))
			return res
		}
	}
	if r.hasStoreRead() {
		qs, err := captureQueries(ctx, srv.st, m, r, timeout)
		if err == nil {
			res.store, err = timeReplay(ctx, srv.st, qs, runs)
		}
		if err != nil {
			res.err = fmt.Errorf("store part: %w", err)
			return res
		}
		res.hasStore = true
	}
	return res
}

// summary shortens a list of ids for an error message.
func summary(ids []int64) string {
	if len(ids) <= 6 {
		return fmt.Sprint(ids)
	}
	return fmt.Sprintf("%d ids %v...%v", len(ids), ids[:3], ids[len(ids)-3:])
}

// heapSampler samples the heap's live objects (runtime/metrics
// /memory/classes/heap/objects:bytes) and keeps the peak.
type heapSampler struct {
	peak atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func startHeapSampler(every time.Duration) *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		s := []metrics.Sample{{Name: heapMetric}}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > h.peak.Load() {
				h.peak.Store(v)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// end stops the sampler and returns the peak in bytes.
func (h *heapSampler) end() uint64 {
	close(h.stop)
	<-h.done
	return h.peak.Load()
}

// mixedLoad runs the read requests from clients concurrent clients, in
// random order, for d; it returns how many requests answered and the first
// error.
func mixedLoad(ctx context.Context, srv *server, m *model, rs []request, clients int, d time.Duration, timeout time.Duration) (int, error) {
	var reads []request
	for _, r := range rs {
		if !r.write && r.path != "/events" {
			reads = append(reads, r)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var n atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(m.seed), uint64(i)))
			cs := map[store.UserID]*client{}
			for ctx.Err() == nil {
				r := reads[rng.IntN(len(reads))]
				c := cs[r.user]
				if c == nil {
					c = newClient(srv.base, m, r.user, timeout)
					cs[r.user] = c
				}
				out, err := c.call(ctx, r.method, r.path, r.params(0))
				if err == nil && r.after != nil {
					err = r.after(ctx, c, out)
				}
				if ctx.Err() != nil {
					return // the load's end, not the request's fault
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("%s: %w", r.name, err)
					}
					mu.Unlock()
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return int(n.Load()), firstErr
}
