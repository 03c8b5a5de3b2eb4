package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatcore/chatcore/internal/dbarg"
)

// floorRounds is how many alternated rounds the floor comparison runs per
// request; it reports their median.
const floorRounds = 3

// floorRequest is one request the floor comparison measures.
type floorRequest struct {
	name string
	// form returns the form client sends in its k-th request (k counts from
	// 0 for each client and round).
	method, path string
	form         func(client, i int) url.Values
	// floorPath is where the floor server serves the request, when it
	// serves it as a variant of its own (see floorServer) rather than at
	// path.
	floorPath string
	// sends is true when each successful request adds a message.
	sends bool
	// queues is true when the request reads the clients' event queues
	// (deleted after its rounds).
	queues bool
	// postgresOnly is true for a request compared on PostgreSQL only.
	postgresOnly bool
}

// pathOn returns the request's path on the floor server (floor) or the
// real one.
func (r floorRequest) pathOn(floor bool) string {
	if floor && r.floorPath != "" {
		return r.floorPath
	}
	return r.path
}

// floorRequests returns the requests of the comparison on PostgreSQL
// (postgres) or SQLite; queues holds each client's event queue (registered
// on the real server, read by both) for the event poll, which goes first:
// nothing has happened since the queues were registered, so both servers
// answer an empty list (later requests append to the log).
func floorRequests(queues []string, postgres bool) []floorRequest {
	poll := floorRequest{
		name: "GET /events (dont_block, nothing new)", method: "GET", path: "/api/v1/events", queues: true,
		form: func(client, _ int) url.Values {
			return url.Values{"queue_id": {queues[client]}, "last_event_id": {"-1"}, "dont_block": {"true"}}
		}}
	reqs := append([]floorRequest{poll}, fixedFloorRequests...)
	return slices.DeleteFunc(reqs, func(r floorRequest) bool { return r.postgresOnly && !postgres })
}

// sendForm is the form of a channel message with short Markdown.
func sendForm(client, k int) url.Values {
	return url.Values{"type": {"stream"}, "to": {"load"}, "topic": {"floor " + strconv.Itoa(k%topics)},
		"content": {fmt.Sprintf("Hello **world**, from client %d: request *%d*.", client, k)}}
}

// fixedFloorRequests are the requests that need no set-up.
var fixedFloorRequests = []floorRequest{
	{name: "PATCH /settings enter_sends=true", method: "PATCH", path: "/api/v1/settings",
		form: func(int, int) url.Values { return url.Values{"enter_sends": {"true"}} }},
	// chatcore writes nothing when a setting keeps its value, the floor
	// always runs its UPDATE; this variant makes every request a change.
	{name: "PATCH /settings enter_sends toggled", method: "PATCH", path: "/api/v1/settings",
		form: func(_, k int) url.Values { return url.Values{"enter_sends": {strconv.FormatBool(k%2 == 0)}} }},
	// Each client stars and unstars the message reminders point at in turn,
	// so every request changes a flag.
	{name: "POST /messages/flags starred toggled", method: "POST", path: "/api/v1/messages/flags",
		form: func(_, k int) url.Values {
			op := "add"
			if k%2 == 1 {
				op = "remove"
			}
			return url.Values{"messages": {"[" + strconv.Itoa(anchorMessage) + "]"}, "op": {op}, "flag": {"starred"}}
		}},
	{name: "POST /messages (channel, Markdown)", method: "POST", path: "/api/v1/messages", sends: true, form: sendForm},
	// The same send against a floor that also keeps chatcore's event log
	// guarantee: it appends the message's event in the insert's transaction
	// (see postgresFloor.insertMessage). The ratio of this row to the one
	// above is what the guarantee costs the floor itself. On SQLite the one
	// writer orders the log without a lock, and chatcore meets the plain
	// floor there.
	{name: "POST /messages vs a floor logging its event", method: "POST", path: "/api/v1/messages",
		floorPath: floorLoggedSendPath, sends: true, postgresOnly: true, form: sendForm},
	// The same against a floor that logs the event without ordering the
	// log (see unorderedEventLog): not a correct server, but the ratio of
	// its rate to the plain floor's bounds what any server that logs its
	// event in the send's transaction could reach on this database.
	{name: "POST /messages vs a floor logging its event unordered", method: "POST", path: "/api/v1/messages",
		floorPath: floorUnorderedSendPath, sends: true, postgresOnly: true, form: sendForm},
}

// hammerResult is what one round against one server saw.
type hammerResult struct {
	elapsed    time.Duration
	ok         int         // 200 answers with "result": "success"
	statuses   map[int]int // every status, 0 for a transport error
	unexpected []string    // the first few unexpected answers
}

func (h hammerResult) rate() float64 { return float64(h.ok) / h.elapsed.Seconds() }

// hammer sends n requests of req to base+path from clients concurrent
// clients (the users of the generated organization) and counts the answers.
func hammer(ctx context.Context, hc *http.Client, base, path string, req floorRequest, clients, n int) hammerResult {
	var next atomic.Int64
	var mu sync.Mutex
	res := hammerResult{statuses: map[int]int{}}
	record := func(status int, ok bool, detail string) {
		mu.Lock()
		defer mu.Unlock()
		res.statuses[status]++
		if ok {
			res.ok++
		} else if len(res.unexpected) < 5 {
			res.unexpected = append(res.unexpected, fmt.Sprintf("%s: %d %s", req.name, status, tail(detail, 200)))
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		auth := basic(firstClientID + c)
		wg.Go(func() {
			for k := 0; ctx.Err() == nil && next.Add(1) <= int64(n); k++ {
				target, params := base+path, req.form(c, k).Encode()
				if req.method == http.MethodGet { // parameters in the query string, as clients send them
					target, params = target+"?"+params, ""
				}
				r, err := http.NewRequestWithContext(ctx, req.method, target, strings.NewReader(params))
				if err != nil {
					record(0, false, err.Error())
					continue
				}
				r.Header.Set("Authorization", auth)
				r.Header.Set("User-Agent", "chatcore-loadtest/1")
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				resp, err := hc.Do(r)
				if err != nil {
					record(0, false, err.Error())
					continue
				}
				raw, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				var body struct{ Result string }
				if err == nil {
					err = json.Unmarshal(raw, &body)
				}
				record(resp.StatusCode, err == nil && resp.StatusCode == http.StatusOK && body.Result == "success", string(raw))
			}
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

// runFloor runs the floor comparison: for each request, floorRounds rounds,
// each sending cfg.requests requests from cfg.clients clients to the real
// server, to the floor server on the same database and to the ceiling server
// (no store, see ceilingServer; not for the floor's variants) in turn (which
// goes first rotates). It prints the requests/s of each round, the medians
// and their ratios, the CPU time per request where it can be read (see
// cpuMeter), and returns the problems found: any answer other than a
// successful 200, or a message count in the load channel other than the
// sends.
func runFloor(ctx context.Context, srv *server, cfg config, stdout io.Writer) ([]string, error) {
	fl, err := startFloor(ctx, cfg, max(4, cfg.clients))
	if err != nil {
		return nil, err
	}
	ceiling, err := startCeiling(cfg.clients)
	if err != nil {
		return nil, errors.Join(err, fl.close(ctx))
	}
	defer ceiling.close(ctx)
	transport := &http.Transport{MaxIdleConnsPerHost: cfg.clients + 2, IdleConnTimeout: time.Minute}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: 2 * time.Minute}

	before, err := fl.db.loadChannelCount(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "floor comparison: %d clients, %d requests per round, %d alternated rounds, same database (%s)\n",
		cfg.clients, cfg.requests, floorRounds, cfg.kind())
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(stdout, "load average before: %s", load)
	}
	var problems []string
	sent := 0
	type row struct {
		req                      floorRequest
		chatcore, floor, ceiling []float64
		// the CPU time of each round (see cpuMeter)
		chatcoreCPU, floorCPU, ceilingCPU []cpuTimes
	}
	backend, err := fl.db.serverProcess(ctx)
	if err != nil {
		return nil, errors.Join(err, fl.close(ctx))
	}
	meter := newCPUMeter(backend)
	// Whether every round's CPU time was read, and the database server's
	// with it.
	measured, withDatabase := true, meter.postmaster != 0
	queues, err := registerQueues(ctx, hc, srv.base, cfg.clients)
	if err != nil {
		return nil, errors.Join(err, fl.close(ctx))
	}
	reqs := slices.DeleteFunc(floorRequests(queues, dbarg.IsPostgres(cfg.db)), func(r floorRequest) bool { return !strings.Contains(r.name, cfg.only) })
	if !slices.ContainsFunc(reqs, func(r floorRequest) bool { return r.queues }) {
		// No request left polls them (-only), and unpolled queues keep the
		// log from being pruned.
		if err := deleteQueues(ctx, hc, srv.base, queues); err != nil {
			return nil, errors.Join(err, fl.close(ctx))
		}
	}
	var rows []row
	for _, req := range reqs {
		r := row{req: req}
		// An untimed warm-up per server opens the clients' connections and
		// the pools' connections and fills the statement caches, so the first
		// timed round does not pay for them.
		bases := []string{srv.base, fl.base}
		if req.floorPath == "" {
			bases = append(bases, ceiling.base)
		}
		for _, base := range bases {
			h := hammer(ctx, hc, base, req.pathOn(base == fl.base), req, cfg.clients, warmup(cfg))
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if h.ok != warmup(cfg) {
				problems = append(problems, fmt.Sprintf("%s, warm-up of %s: %d of %d requests succeeded",
					req.name, base, h.ok, warmup(cfg)))
				problems = append(problems, h.unexpected...)
			}
			if req.sends && base != ceiling.base { // the ceiling stores nothing
				sent += h.ok
			}
		}
		for round := range floorRounds {
			type target struct {
				name string
				base string
				into *[]float64
				cpu  *[]cpuTimes
			}
			servers := []target{{"chatcore", srv.base, &r.chatcore, &r.chatcoreCPU}, {"floor", fl.base, &r.floor, &r.floorCPU}}
			if req.floorPath == "" {
				servers = append(servers, target{"ceiling", ceiling.base, &r.ceiling, &r.ceilingCPU})
			}
			// Each round another server goes first.
			k := round % len(servers)
			servers = append(servers[k:], servers[:k]...)
			for _, s := range servers {
				start := meter.read()
				h := hammer(ctx, hc, s.base, req.pathOn(s.base == fl.base), req, cfg.clients, cfg.requests)
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				used := start.since(meter.read())
				*s.into = append(*s.into, h.rate())
				fmt.Fprintf(stdout, "  round %d %-8s %-43s %8.0f req/s  statuses: %s%s\n",
					round+1, s.name, req.name, h.rate(), statusLine(h.statuses), cpuLine(used, cfg.requests))
				*s.cpu = append(*s.cpu, used)
				measured, withDatabase = measured && used.ok, withDatabase && used.hasDatabase
				if h.ok != cfg.requests {
					problems = append(problems, fmt.Sprintf("%s, %s round %d: %d of %d requests succeeded",
						req.name, s.name, round+1, h.ok, cfg.requests))
					problems = append(problems, h.unexpected...)
				}
				if req.sends && s.base != ceiling.base {
					sent += h.ok
				}
			}
		}
		rows = append(rows, r)
		if req.queues {
			// Live queues that nobody polls keep the log from being pruned,
			// which the later requests would pay for.
			if err := deleteQueues(ctx, hc, srv.base, queues); err != nil {
				return nil, errors.Join(err, fl.close(ctx))
			}
		}
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(stdout, "load average after: %s", load)
	}
	fmt.Fprintf(stdout, "\n| request | chatcore req/s (median) | floor req/s (median) | ratio | ceiling req/s (median) | chatcore / ceiling |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		c, f := median(r.chatcore), median(r.floor)
		ceil := "– | –" // the floor's variants are not served by the ceiling
		if len(r.ceiling) > 0 {
			ceil = fmt.Sprintf("%.0f | %.2f", median(r.ceiling), c/median(r.ceiling))
		}
		fmt.Fprintf(stdout, "| `%s` | %.0f | %.0f | %.2f | %s |\n", r.req.name, c, f, c/f, ceil)
	}
	// A floor variant (floorPath) against the plain floor of its request,
	// when both ran: what the variant's extra work costs the floor itself.
	plain := map[string]row{}
	for _, r := range rows {
		if _, seen := plain[r.req.path]; !seen && r.req.floorPath == "" {
			plain[r.req.path] = r
		}
	}
	header := "\n| floor variant | its req/s (median) | plain floor req/s (median) | ratio |\n|---|---|---|---|\n"
	for _, r := range rows {
		if p, ok := plain[r.req.path]; ok && r.req.floorPath != "" {
			fmt.Fprint(stdout, header)
			header = ""
			v, f := median(r.floor), median(p.floor)
			fmt.Fprintf(stdout, "| `%s` against `%s` | %.0f | %.0f | %.2f |\n", r.req.name, p.req.name, v, f, v/f)
		}
	}
	if measured && len(rows) > 0 {
		what := "this process"
		if withDatabase {
			what += " and the database server"
		}
		perRequest := func(rounds []cpuTimes) float64 {
			ms := make([]float64, len(rounds))
			for i, r := range rounds {
				process, database := r.perRequest(cfg.requests)
				ms[i] = process
				if withDatabase {
					ms[i] += database
				}
			}
			return median(ms)
		}
		fmt.Fprintf(stdout, "\nCPU time per request (%s; the load's clients included), medians:\n\n"+
			"| request | chatcore CPU ms/req | floor CPU ms/req | floor / chatcore | ceiling CPU ms/req | ceiling / chatcore |\n|---|---|---|---|---|---|\n", what)
		// ratio is "–" for a round too short for the clock tick of the CPU
		// times.
		ratio := func(x, c float64) string {
			if c > 0 && x > 0 {
				return fmt.Sprintf("%.2f", x/c)
			}
			return "–"
		}
		for _, r := range rows {
			c, f := perRequest(r.chatcoreCPU), perRequest(r.floorCPU)
			ceil := "– | –"
			if len(r.ceilingCPU) > 0 {
				x := perRequest(r.ceilingCPU)
				ceil = fmt.Sprintf("%.3f | %s", x, ratio(x, c))
			}
			fmt.Fprintf(stdout, "| `%s` | %.3f | %.3f | %s | %s |\n", r.req.name, c, f, ratio(f, c), ceil)
		}
	}

	after, err := fl.db.loadChannelCount(ctx)
	if err == nil && after-before != sent {
		problems = append(problems, fmt.Sprintf("the load channel gained %d messages, %d were sent", after-before, sent))
	}
	return problems, errors.Join(err, fl.close(ctx))
}

// registerQueues registers an event queue for message events for each
// client on the real server and returns their ids.
func registerQueues(ctx context.Context, hc *http.Client, base string, clients int) ([]string, error) {
	queues := make([]string, clients)
	for c := range queues {
		form := url.Values{"event_types": {`["message"]`}}
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/register", strings.NewReader(form.Encode()))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", basic(firstClientID+c))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := hc.Do(r)
		if err != nil {
			return nil, err
		}
		var body struct {
			Result  string `json:"result"`
			QueueID string `json:"queue_id"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || body.Result != "success" || body.QueueID == "" {
			return nil, fmt.Errorf("registering client %d's event queue: status %d, %v", c, resp.StatusCode, err)
		}
		queues[c] = body.QueueID
	}
	return queues, nil
}

// deleteQueues deletes the clients' event queues on the real server.
func deleteQueues(ctx context.Context, hc *http.Client, base string, queues []string) error {
	for c, q := range queues {
		r, err := http.NewRequestWithContext(ctx, http.MethodDelete, base+"/api/v1/events?queue_id="+url.QueryEscape(q), nil)
		if err != nil {
			return err
		}
		r.Header.Set("Authorization", basic(firstClientID+c))
		resp, err := hc.Do(r)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("deleting client %d's event queue: status %d", c, resp.StatusCode)
		}
	}
	return nil
}

// warmup returns the number of untimed requests each server gets before the
// rounds of a request: a few per client.
func warmup(cfg config) int { return 4 * cfg.clients }

// median returns the median of xs (the mean of the middle two for an even
// count), or 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cpuLine describes the CPU time a round of n requests used, or is empty
// when it could not be read.
func cpuLine(used cpuTimes, n int) string {
	if !used.ok {
		return ""
	}
	process, database := used.perRequest(n)
	if !used.hasDatabase {
		return fmt.Sprintf("  cpu %.3f ms/req", process)
	}
	return fmt.Sprintf("  cpu %.3f ms/req (process %.3f, database %.3f)", process+database, process, database)
}
