package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// An operation a client performs, with its share of the requests.
type op int

const (
	opSend      op = iota // POST /messages to a topic of the load channel
	opRead                // GET /messages, newest of the load channel
	opSettings            // PATCH /settings, own settings
	opRemind              // POST /reminders about the anchor message
	opReminders           // GET /reminders
	opDelete              // POST /streams/{id}/delete_topic, by the administrator
	numOps
)

var opNames = [numOps]string{"send message", "read messages", "update settings", "create reminder", "list reminders", "delete topic"}

// opWeights are the relative frequencies of the operations (out of 100).
var opWeights = [numOps]int{opSend: 40, opRead: 10, opSettings: 15, opRemind: 5, opReminders: 25, opDelete: 5}

// topics is how many topics the clients send to and delete.
const topics = 8

// settingsValues are the settings a client last set successfully.
type settingsValues struct {
	colorScheme, fontSize int
	enterSends            bool
}

// results is what the clients saw.
type results struct {
	elapsed  time.Duration
	statuses map[int]int
	ops      [numOps]*opStats
	// sent holds the ids of the messages sent successfully.
	sent []int64
	// settings holds each client's last successful settings.
	settings map[int]settingsValues
	// reminders counts each client's successfully created reminders.
	reminders map[int]int
	// busy counts responses mentioning SQLITE_BUSY or "database is locked".
	busy int
	// unexpected keeps the first unexpected responses, for the report;
	// unexpectedN counts them all.
	unexpected  []string
	unexpectedN int
	// transport counts requests that got no response at all.
	transport int
	// Filled in by verify: messages present in the load channel at the end,
	// messages reported deleted, and delete_message events.
	present, deleted, deleteEvents int
}

// opStats are the statuses and latencies of one operation.
type opStats struct {
	statuses map[int]int
	latency  []time.Duration
}

// client is one concurrent client: a user of its own.
type client struct {
	user  int
	auth  string
	rng   *rand.Rand
	base  string
	http  *http.Client
	admin string
	rate  bool
	res   results
}

func basic(id int) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(email(id)+":"+apiKey(id)))
}

// drive runs cfg.requests requests from cfg.clients concurrent clients and
// returns what they saw.
func drive(ctx context.Context, srv *server, cfg config) (*results, error) {
	transport := &http.Transport{MaxIdleConnsPerHost: cfg.clients + 2, IdleConnTimeout: time.Minute}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: 2 * time.Minute}

	var next atomic.Int64
	clients := make([]*client, cfg.clients)
	for i := range clients {
		id := firstClientID + i
		clients[i] = &client{
			user: id, auth: basic(id), base: srv.base, http: hc, admin: basic(adminID),
			rng:  rand.New(rand.NewPCG(uint64(cfg.seed), uint64(i))),
			rate: cfg.rate > 0,
			res:  newResults(),
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			for ctx.Err() == nil && next.Add(1) <= int64(cfg.requests) {
				c.step(ctx)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := newResults()
	total.elapsed = time.Since(start)
	for _, c := range clients {
		total.merge(&c.res)
	}
	return &total, nil
}

func newResults() results {
	r := results{statuses: map[int]int{}, settings: map[int]settingsValues{}, reminders: map[int]int{}}
	for i := range r.ops {
		r.ops[i] = &opStats{statuses: map[int]int{}}
	}
	return r
}

// merge adds a client's results to r.
func (r *results) merge(c *results) {
	for s, n := range c.statuses {
		r.statuses[s] += n
	}
	for i, o := range c.ops {
		for s, n := range o.statuses {
			r.ops[i].statuses[s] += n
		}
		r.ops[i].latency = append(r.ops[i].latency, o.latency...)
	}
	r.sent = append(r.sent, c.sent...)
	for id, v := range c.settings {
		r.settings[id] = v
	}
	for id, n := range c.reminders {
		r.reminders[id] += n
	}
	r.busy += c.busy
	r.transport += c.transport
	r.unexpectedN += c.unexpectedN
	for _, u := range c.unexpected {
		if len(r.unexpected) < 10 {
			r.unexpected = append(r.unexpected, u)
		}
	}
}

// pick chooses an operation by opWeights.
func (c *client) pick() op {
	n := c.rng.IntN(100)
	for o := range numOps {
		if n < opWeights[o] {
			return o
		}
		n -= opWeights[o]
	}
	return opReminders
}

// step performs one random operation and records its outcome.
func (c *client) step(ctx context.Context) {
	o := c.pick()
	topic := "t" + strconv.Itoa(c.rng.IntN(topics))
	auth := c.auth
	var method, path string
	form := url.Values{}
	var onSuccess func(body map[string]any)
	switch o {
	case opSend:
		method, path = "POST", "/api/v1/messages"
		form.Set("type", "stream")
		form.Set("to", strconv.Itoa(loadChannel))
		form.Set("topic", topic)
		form.Set("content", fmt.Sprintf("load from %d: %d", c.user, c.rng.Int64()))
		onSuccess = func(body map[string]any) {
			if id, ok := body["id"].(json.Number); ok {
				if n, err := id.Int64(); err == nil {
					c.res.sent = append(c.res.sent, n)
				}
			}
		}
	case opRead:
		method, path = "GET", "/api/v1/messages?"+url.Values{
			"anchor": {"newest"}, "num_before": {"20"}, "num_after": {"0"},
			"narrow": {fmt.Sprintf(`[{"operator":"channel","operand":%d}]`, loadChannel)},
		}.Encode()
	case opSettings:
		v := settingsValues{colorScheme: 1 + c.rng.IntN(3), fontSize: 12 + c.rng.IntN(9), enterSends: c.rng.IntN(2) == 1}
		method, path = "PATCH", "/api/v1/settings"
		form.Set("color_scheme", strconv.Itoa(v.colorScheme))
		form.Set("web_font_size_px", strconv.Itoa(v.fontSize))
		form.Set("enter_sends", strconv.FormatBool(v.enterSends))
		onSuccess = func(map[string]any) { c.res.settings[c.user] = v }
	case opRemind:
		method, path = "POST", "/api/v1/reminders"
		form.Set("message_id", strconv.Itoa(anchorMessage))
		form.Set("scheduled_delivery_timestamp", strconv.FormatInt(time.Now().Add(24*time.Hour).Unix(), 10))
		form.Set("note", "load test")
		onSuccess = func(map[string]any) { c.res.reminders[c.user]++ }
	case opReminders:
		method, path = "GET", "/api/v1/reminders"
	case opDelete:
		method, path = "POST", fmt.Sprintf("/api/v1/streams/%d/delete_topic", loadChannel)
		form.Set("topic_name", topic)
		auth = c.admin
		onSuccess = func(body map[string]any) {
			if body["complete"] != true {
				c.unexpected(o, 200, "complete is not true")
			}
		}
	}

	var body io.Reader
	if len(form) > 0 {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		c.res.transport++
		return
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("User-Agent", "chatcore-loadtest/1")
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	t0 := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			c.res.transport++
			c.unexpected(o, 0, err.Error())
		}
		return
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	lat := time.Since(t0)
	if err != nil {
		c.res.transport++
		c.unexpected(o, resp.StatusCode, err.Error())
		return
	}
	stats := c.res.ops[o]
	stats.latency = append(stats.latency, lat)
	stats.statuses[resp.StatusCode]++
	c.res.statuses[resp.StatusCode]++
	for _, m := range busyMarkers {
		if strings.Contains(string(raw), m) {
			c.res.busy++
			break
		}
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		var parsed map[string]any
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		if err := dec.Decode(&parsed); err != nil || parsed["result"] != "success" {
			c.unexpected(o, resp.StatusCode, string(raw))
			return
		}
		if onSuccess != nil {
			onSuccess(parsed)
		}
	case resp.StatusCode == http.StatusTooManyRequests && c.rate:
		// Expected with -rate-limit: the request did nothing.
	default:
		c.unexpected(o, resp.StatusCode, string(raw))
	}
}

// unexpected records an unexpected response for the report.
func (c *client) unexpected(o op, status int, detail string) {
	c.res.unexpectedN++
	if len(c.res.unexpected) < 10 {
		c.res.unexpected = append(c.res.unexpected, fmt.Sprintf("%s: %d %s", opNames[o], status, tail(detail, 300)))
	}
}
