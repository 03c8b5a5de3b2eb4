// Package plantest keeps the hot calls of chatcore's SQL stores on indexes,
// the way Zulip's query-count tests keep its queries: each hot call (a GET
// /messages variant, a /register, a topic list, a flag update, ...) runs for
// real, through the area packages and the Service, on an organisation of
// realistic shape (see [Generate]); every statement the store runs for it is
// recorded with its arguments, and its query plan (EXPLAIN with the same
// arguments) must not read a big table (see [BigTables]) from end to end,
// nor sort all of a big table's matching rows to keep a few (see
// [Findings]), and no statement may run again and again, as a read in
// batches does (see [MaxRepeats]).
// A store's test supplies what differs between the databases: how
// statements are recorded and how a plan is read (see [Harness]).
package plantest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/store"
)

// BigTables are the tables whose rows grow with the organisation's
// history: a plan that reads one of them from end to end grows with it.
var BigTables = []string{"messages", "user_message_flags", "reactions", "event_log", "scheduled_messages"}

// Statement is one statement a store ran, with its arguments.
type Statement struct {
	SQL  string
	Args []any
	// Generic says the statement ran on its generic plan (PostgreSQL's
	// plan_cache_mode = force_generic_plan), the plan to check then.
	Generic bool
}

// Harness is a SQL store under test.
type Harness struct {
	// Store is the empty store [Generate] fills.
	Store store.Store
	// Exec runs a statement on Store's database outside its transactions.
	Exec    func(ctx context.Context, sql string) error
	Dialect Dialect
	// Traced returns the store the calls run on, once the data is there
	// (Store, or the same database opened again so that its caches start
	// empty), which shows every statement it runs (explainable or not) to
	// rec.
	Traced func(t *testing.T, rec *Recorder) store.Store
	// Explain returns the findings of s's plan (see [PostgresPlan],
	// [SQLitePlan]) and the plan, for the failure message.
	Explain func(ctx context.Context, s Statement) (f Findings, plan string, err error)
}

// MaxRepeats bounds how often a call may run one statement (its text with
// the numbers in it, such as an inlined LIMIT, taken as the same): a call
// that reads in batches until it has found enough (filtering rows outside
// the store) runs its read again and again, more often as the history
// grows. The recorder stops a call that runs a statement once more (its
// context is cancelled), so that one walking a long history still ends in
// a moment.
const MaxRepeats = 4

// Recorder collects the statements one call runs. It is safe for
// concurrent use.
type Recorder struct {
	mu      sync.Mutex
	on      bool
	stmts   []Statement
	repeats map[string]int
	walked  string
	stop    func()
}

// numbers are the numbers in a statement's text.
var numbers = regexp.MustCompile(`\b[0-9]+\b`)

// Add records s when a call is being recorded and s is [Explainable].
func (r *Recorder) Add(s Statement) {
	if !Explainable(s.SQL) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.on {
		return
	}
	r.stmts = append(r.stmts, s)
	shape := numbers.ReplaceAllString(s.SQL, "N")
	if r.repeats[shape]++; r.repeats[shape] == MaxRepeats+1 && r.walked == "" {
		r.walked = s.SQL
		r.stop()
	}
}

// record runs fn and returns the statements recorded meanwhile and the
// first statement run more than MaxRepeats times ("" for none), when stop
// was called.
func (r *Recorder) record(fn func(), stop func()) ([]Statement, string) {
	r.mu.Lock()
	r.on, r.stmts, r.repeats, r.walked, r.stop = true, nil, map[string]int{}, "", stop
	r.mu.Unlock()
	fn()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.stmts, r.walked
}

// Env is what a hot call runs with.
type Env struct {
	W   *chattest.World
	Org *Org
}

// Call is one hot call.
type Call struct {
	Name string
	Run  func(ctx context.Context, e *Env) error
}

// get runs GET /messages for the viewer with the anchor, the counts and
// the narrow terms (operator, JSON operand pairs).
func get(anchor string, before, after int, terms ...string) func(ctx context.Context, e *Env) error {
	return func(ctx context.Context, e *Env) error {
		req := messages.Request{Anchor: &anchor, NumBefore: &before, NumAfter: &after}
		for i := 0; i < len(terms); i += 2 {
			req.Narrow = append(req.Narrow, messages.NarrowTerm{Operator: terms[i], Operand: json.RawMessage(terms[i+1])})
		}
		res, err := messages.Get(ctx, e.W.Svc, e.Org.Viewer, req)
		if err == nil && len(res.Messages) == 0 {
			err = fmt.Errorf("no messages: the call found nothing to check")
		}
		return err
	}
}

// quote returns s as a JSON string.
func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// Calls are the hot calls, in the order they run (the writes last).
var Calls = []Call{
	{"GET /messages newest 100", get("newest", 100, 0)},
	{"GET /messages anchor=oldest", get("oldest", 0, 100)},
	{"GET /messages is:unread first_unread", get("first_unread", 0, 100, "is", `"unread"`)},
	{"GET /messages sender", func(ctx context.Context, e *Env) error {
		return get("newest", 50, 0, "sender", quote(e.Org.Hot.Email))(ctx, e)
	}},
	{"GET /messages channel+topic", func(ctx context.Context, e *Env) error {
		return get("newest", 100, 0, "channel", quote(e.Org.Streams[0].Name), "topic", `"topic 3"`)(ctx, e)
	}},
	{"GET /messages dm", func(ctx context.Context, e *Env) error {
		return get("newest", 50, 0, "dm", fmt.Sprintf("[%d]", e.Org.Admin))(ctx, e)
	}},
	{"GET /messages -is:unread", func(ctx context.Context, e *Env) error {
		anchor, before, after := "newest", 100, 0
		res, err := messages.Get(ctx, e.W.Svc, e.Org.Viewer, messages.Request{Anchor: &anchor, NumBefore: &before, NumAfter: &after,
			Narrow: []messages.NarrowTerm{{Operator: "is", Operand: json.RawMessage(`"unread"`), Negated: true}}})
		if err == nil && len(res.Messages) == 0 {
			err = fmt.Errorf("no messages: the call found nothing to check")
		}
		return err
	}},
	{"GET /messages is:starred", get("newest", 100, 0, "is", `"starred"`)},
	{"GET /messages is:mentioned", get("newest", 100, 0, "is", `"mentioned"`)},
	{"GET /messages has:link", get("newest", 100, 0, "has", `"link"`)},
	{"GET /messages in:home", get("newest", 100, 0, "in", `"home"`)},
	{"GET /messages is:muted", get("newest", 100, 0, "is", `"muted"`)},
	{"GET /messages is:followed", get("newest", 100, 0, "is", `"followed"`)},
	// Full-text search: a word of nine messages in ten, and one of a single
	// message of the big channel ("message 99999" in the CI shape).
	{"GET /messages search common word", get("newest", 100, 0, "search", `"messages"`)},
	{"GET /messages search rare word", get("newest", 100, 0, "search", `"99999"`)},
	{"GET /messages channel search", func(ctx context.Context, e *Env) error {
		return get("newest", 100, 0, "channel", quote(e.Org.Streams[0].Name), "search", `"message"`)(ctx, e)
	}},
	{"POST /register message", func(ctx context.Context, e *Env) error {
		_, err := eventqueue.Register(ctx, e.W.Svc, e.Org.Viewer, eventqueue.RegisterRequest{
			Sections: []string{"message"}, Queue: &eventqueue.QueueOptions{EventTypes: []string{"message"}}})
		return err
	}},
	{"POST /register all", func(ctx context.Context, e *Env) error {
		_, err := eventqueue.Register(ctx, e.W.Svc, e.Org.Viewer, eventqueue.RegisterRequest{Queue: &eventqueue.QueueOptions{}})
		return err
	}},
	{"GET /users/me/{id}/topics", func(ctx context.Context, e *Env) error {
		topics, err := channels.Topics(ctx, e.W.Svc, e.Org.Viewer, e.Org.Streams[0].ID, false)
		if err == nil && len(topics) != 40 {
			err = fmt.Errorf("%d topics, want 40", len(topics))
		}
		return err
	}},
	{"UnreadMessages", func(ctx context.Context, e *Env) error {
		return e.W.Store.View(ctx, func(tx store.Tx) error {
			_, err := tx.UnreadMessages(ctx, e.Org.Viewer, messages.MaxUnreadMessages)
			return err
		})
	}},
	{"FlaggedMessageIDs starred", func(ctx context.Context, e *Env) error {
		return e.W.Store.View(ctx, func(tx store.Tx) error {
			_, err := tx.FlaggedMessageIDs(ctx, e.Org.Viewer, store.FlagStarred)
			return err
		})
	}},
	{"ScheduledMessages due", func(ctx context.Context, e *Env) error {
		return e.W.Store.View(ctx, func(tx store.Tx) error {
			due, err := tx.ScheduledMessages(ctx, store.ScheduledFilter{Delivered: new(false), Failed: new(false), DueBy: e.Org.Now})
			if err == nil && len(due) != scheduledRows/400 {
				err = fmt.Errorf("%d due, want %d", len(due), scheduledRows/400)
			}
			return err
		})
	}},
	{"POST /messages/flags read 5000", func(ctx context.Context, e *Env) error {
		_, err := messages.UpdateFlags(ctx, e.W.Svc, e.Org.Viewer, messages.UpdateFlagsRequest{Messages: e.Org.Unread, Op: "add", Flag: "read"})
		return err
	}},
	{"DELETE topic", func(ctx context.Context, e *Env) error {
		res, err := channels.DeleteTopic(ctx, e.W.Svc, e.Org.Admin, e.Org.DeleteStream.ID, e.Org.DeleteTopic)
		if err == nil && !res.Complete {
			err = fmt.Errorf("the topic's deletion did not complete")
		}
		return err
	}},
}

// Known are the calls (by name) known to fail each check today, which a
// store's test lists so that it passes until they are fixed: Scans read a
// big table from end to end, Sorts sort every matching row of one before a
// LIMIT, Walks run one statement more than MaxRepeats times.
type Known struct {
	Scans, Sorts, Walks map[string]bool
}

// result is what one call's statements did: the big tables they scanned and
// sorted whole, the statements that did (report), and the statement the
// call ran more than MaxRepeats times ("" for none).
type result struct {
	scans, sorts []string
	report       string
	walked       string
}

// Run generates the organisation on h's store and runs every call of
// [Calls] on it. It fails naming each call whose statements read a big
// table from end to end or sort every matching row of one before a LIMIT
// (with the statements and their plans), and each call that runs one
// statement more than MaxRepeats times, unless known lists the call for
// that check; a listed call that passes the check fails too, so that the
// lists only shrink. A call that fails outright fails the test. With -v it
// logs every statement's plan. Run skips in a race build: the race detector
// does not change a plan, and it makes generating and reading the history
// (all of it in Go on SQLite) take minutes; .ci/run runs it without.
func Run(t *testing.T, h Harness, shape Shape, known Known) {
	if raceEnabled {
		t.Skip("query plans are checked without -race (see .ci/run)")
	}
	ctx := context.Background()
	start := time.Now()
	org := Generate(t, h.Store, h.Exec, h.Dialect, shape)
	t.Logf("generated %d users, %d channels, %d messages in %v", shape.Users, shape.Channels, shape.Messages, time.Since(start).Round(time.Millisecond))
	rec := &Recorder{}
	st := h.Traced(t, rec)
	e := &Env{W: chattest.New(t, chattest.OnStore(st), chattest.At(org.Now)), Org: org}
	for _, list := range []map[string]bool{known.Scans, known.Sorts, known.Walks} {
		for name := range list {
			if !slices.ContainsFunc(Calls, func(c Call) bool { return c.Name == name }) {
				t.Errorf("a known failure names no call: %q", name)
			}
		}
	}
	results := map[string]result{}
	for _, c := range Calls {
		var err error
		callCtx, cancel := context.WithCancel(ctx)
		start := time.Now()
		stmts, walked := rec.record(func() { err = c.Run(callCtx, e) }, cancel)
		cancel()
		t.Logf("%s: %d statements (at most %d of one shape) in %v", c.Name, len(stmts), mostRepeated(stmts), time.Since(start).Round(time.Millisecond))
		if err != nil && walked == "" {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if len(stmts) == 0 {
			t.Errorf("%s: no statement recorded", c.Name)
			continue
		}
		r := result{walked: walked}
		seen := map[string]bool{}
		for _, s := range stmts {
			key := fmt.Sprintf("%s %v %v", s.SQL, s.Args, s.Generic)
			if seen[key] {
				continue
			}
			seen[key] = true
			f, plan, err := h.Explain(ctx, s)
			if err != nil {
				t.Errorf("%s: explaining %s: %v", c.Name, s.SQL, err)
				continue
			}
			if testing.Verbose() {
				t.Logf("%s: %s\nargs: %s\n%s", c.Name, s.SQL, args(s.Args), plan)
			}
			if len(f.Scans)+len(f.Sorts) > 0 {
				r.scans = append(r.scans, f.Scans...)
				r.sorts = append(r.sorts, f.Sorts...)
				r.report += fmt.Sprintf("\n--- scans %v, sorts %v whole (generic plan: %v)\n%s\nargs: %s\nplan:\n%s\n",
					f.Scans, f.Sorts, s.Generic, s.SQL, args(s.Args), plan)
			}
		}
		slices.Sort(r.scans)
		r.scans = slices.Compact(r.scans)
		slices.Sort(r.sorts)
		r.sorts = slices.Compact(r.sorts)
		results[c.Name] = r
	}
	var scanning, sorting, walking []string
	for _, c := range Calls {
		r, ok := results[c.Name]
		if !ok {
			continue
		}
		switch {
		case len(r.scans) > 0 && !known.Scans[c.Name]:
			t.Errorf("%s: a statement reads %s from end to end:%s", c.Name, strings.Join(r.scans, ", "), r.report)
		case len(r.scans) == 0 && known.Scans[c.Name]:
			t.Logf("%s: no statement scanned a big table this time: remove it from knownSeqScans if it keeps so", c.Name)
		}
		switch {
		case len(r.sorts) > 0 && !known.Sorts[c.Name]:
			t.Errorf("%s: a statement sorts every matching row of %s before its LIMIT:%s", c.Name, strings.Join(r.sorts, ", "), r.report)
		case len(r.sorts) == 0 && known.Sorts[c.Name]:
			t.Logf("%s: no statement sorted a big table's matches whole this time: remove it from knownFullSorts if it keeps so", c.Name)
		}
		switch {
		case r.walked != "" && !known.Walks[c.Name]:
			t.Errorf("%s: runs this statement more than %d times (reads in batches, filtering outside the store):\n%s", c.Name, MaxRepeats, r.walked)
		case r.walked == "" && known.Walks[c.Name]:
			t.Logf("%s: ran no statement more than %d times this time: remove it from knownBatchWalks if it keeps so", c.Name, MaxRepeats)
		}
		if len(r.scans) > 0 {
			scanning = append(scanning, fmt.Sprintf("%q, // %s", c.Name, strings.Join(r.scans, ", ")))
		}
		if len(r.sorts) > 0 {
			sorting = append(sorting, fmt.Sprintf("%q, // %s", c.Name, strings.Join(r.sorts, ", ")))
		}
		if r.walked != "" {
			walking = append(walking, fmt.Sprintf("%q,", c.Name))
		}
	}
	t.Logf("of %d calls: %d scan a big table, %d sort a big table's matches whole, %d run a statement more than %d times\nscans:\n\t%s\nsorts:\n\t%s\nwalks:\n\t%s",
		len(Calls), len(scanning), len(sorting), len(walking), MaxRepeats,
		strings.Join(scanning, "\n\t"), strings.Join(sorting, "\n\t"), strings.Join(walking, "\n\t"))
}

// mostRepeated returns how many statements of stmts the most frequent
// shape (see MaxRepeats) has.
func mostRepeated(stmts []Statement) int {
	n := map[string]int{}
	most := 0
	for _, s := range stmts {
		shape := numbers.ReplaceAllString(s.SQL, "N")
		n[shape]++
		most = max(most, n[shape])
	}
	return most
}

// args prints statement arguments, long ones shortened.
func args(a []any) string {
	var parts []string
	for _, v := range a {
		s := fmt.Sprintf("%v", v)
		if len(s) > 80 {
			s = s[:77] + "..."
		}
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Explainable reports whether query is a statement EXPLAIN takes (a read
// or a write, not a transaction or session command).
func Explainable(query string) bool {
	q := strings.ToUpper(strings.TrimLeft(query, " \t\n("))
	for _, p := range []string{"SELECT", "WITH", "INSERT", "UPDATE", "DELETE"} {
		if strings.HasPrefix(q, p) {
			return true
		}
	}
	return false
}

// Findings are the big tables a statement's plan reads badly: Scans from
// end to end (a sequential scan, or a walk of the primary key index with no
// bound, filtering out most rows it meets), Sorts whole (every row matching
// an index search sorted before a LIMIT keeps a few, where an index in the
// wanted order would stop at the LIMIT).
type Findings struct {
	Scans, Sorts []string
}

// PostgresPlan returns the findings of a plan of EXPLAIN (FORMAT JSON): a
// Seq Scan of a big table or an index scan of its primary key without an
// Index Cond expected to keep few of the rows it visits (tableRows gives
// the big tables' sizes, pg_class.reltuples; a table it lacks is not
// judged so), and a Sort under a Limit whose input reads a big table other
// than through its primary key (a list of ids) without a Limit of its own
// in between.
func PostgresPlan(plan []byte, tableRows map[string]float64) (Findings, error) {
	var doc []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &doc); err != nil {
		return Findings{}, err
	}
	scans, sorts := map[string]bool{}, map[string]bool{}
	// sorted notes the big tables n's subtree reads, up to the next Limit.
	var sorted func(n *planNode)
	sorted = func(n *planNode) {
		if n.NodeType == "Limit" {
			return
		}
		if slices.Contains(BigTables, n.Relation) && !n.byPrimaryKey() {
			sorts[n.Relation] = true
		}
		for i := range n.Plans {
			sorted(&n.Plans[i])
		}
	}
	var walk func(n *planNode, limited bool)
	walk = func(n *planNode, limited bool) {
		if slices.Contains(BigTables, n.Relation) && (n.NodeType == "Seq Scan" || n.walksPrimaryKey(tableRows[n.Relation])) {
			scans[n.Relation] = true
		}
		if n.NodeType == "Sort" && limited {
			for i := range n.Plans {
				sorted(&n.Plans[i])
			}
		}
		limited = n.NodeType == "Limit" || (limited && n.NodeType != "Sort")
		for i := range n.Plans {
			walk(&n.Plans[i], limited)
		}
	}
	for i := range doc {
		walk(&doc[i].Plan, false)
	}
	return Findings{Scans: slices.Sorted(maps.Keys(scans)), Sorts: slices.Sorted(maps.Keys(sorts))}, nil
}

// planNode is a node of PostgreSQL's JSON plan.
type planNode struct {
	NodeType string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Index    string     `json:"Index Name"`
	Cond     string     `json:"Index Cond"`
	Rows     float64    `json:"Plan Rows"`
	Plans    []planNode `json:"Plans"`
}

// sparseWalk is how many rows of its table a walk of a primary key index
// (see walksPrimaryKey) may visit per row it is expected to keep: a walk
// for a condition most rows meet (the big channel's messages, a common
// word) stops a few rows past its Limit; one for a topic of a few hundred
// messages visits the table to find each.
const sparseWalk = 20

// walksPrimaryKey reports whether n reads its table, of tableRows rows,
// through its primary key index with no bound on it, expecting to keep
// fewer than one row in sparseWalk: the table in id order, as far as a
// Limit above needs, which for a selective filter is the whole history.
func (n *planNode) walksPrimaryKey(tableRows float64) bool {
	return (n.NodeType == "Index Scan" || n.NodeType == "Index Only Scan") && strings.HasSuffix(n.Index, "_pkey") && n.Cond == "" &&
		tableRows > sparseWalk*max(n.Rows, 1)
}

// byPrimaryKey reports whether n reads its table through its primary key
// index alone (directly, or through bitmap index scans).
func (n *planNode) byPrimaryKey() bool {
	if n.Index != "" {
		return strings.HasSuffix(n.Index, "_pkey")
	}
	if n.NodeType != "Bitmap Heap Scan" || len(n.Plans) == 0 {
		return false
	}
	var all func(n *planNode) bool
	all = func(n *planNode) bool {
		if n.NodeType == "Bitmap Index Scan" {
			return strings.HasSuffix(n.Index, "_pkey")
		}
		for i := range n.Plans {
			if !all(&n.Plans[i]) {
				return false
			}
		}
		return len(n.Plans) > 0
	}
	return all(n)
}

// tableRef finds a big table in a FROM, JOIN, UPDATE, INTO or DELETE
// clause, with its alias when it has one.
var tableRef = regexp.MustCompile(`(?i)\b(` + strings.Join(BigTables, "|") + `)\b(?:\s+(?:AS\s+)?([A-Za-z_][A-Za-z0-9_]*))?`)

// notAlias are the words that may follow a table name without being its
// alias.
var notAlias = map[string]bool{
	"WHERE": true, "JOIN": true, "ON": true, "USING": true, "LEFT": true, "INNER": true, "CROSS": true,
	"SET": true, "VALUES": true, "ORDER": true, "GROUP": true, "LIMIT": true, "WHEN": true, "AND": true,
	"OR": true, "RETURNING": true, "INDEXED": true, "NOT": true, "SELECT": true, "UNION": true, "EXCEPT": true,
	"INTERSECT": true, "DEFAULT": true, "AS": true, "THEN": true, "ELSE": true, "END": true, "FROM": true,
	"NATURAL": true, "OUTER": true, "HAVING": true, "WINDOW": true, "IS": true, "IN": true,
}

// SQLitePlan returns the findings of the EXPLAIN QUERY PLAN detail lines
// of query: a "SCAN <table or alias>" of a big table without an index
// ("USING INDEX", "USING COVERING INDEX", "USING INTEGER PRIMARY KEY"),
// and, in a query with a LIMIT whose plan sorts for its ORDER BY ("USE
// TEMP B-TREE FOR ORDER BY"), a SEARCH of a big table other than by its
// primary key. Aliases are read from query; a name that is the alias of a
// big table anywhere in it counts as that table.
func SQLitePlan(query string, details []string) Findings {
	names := map[string]string{}
	for _, m := range tableRef.FindAllStringSubmatch(query, -1) {
		table := strings.ToLower(m[1])
		names[table] = table
		if m[2] != "" && !notAlias[strings.ToUpper(m[2])] {
			names[m[2]] = table
		}
	}
	sorting := limit.MatchString(query) && slices.ContainsFunc(details, func(d string) bool {
		return strings.Contains(d, "USE TEMP B-TREE FOR ORDER BY")
	})
	scans, sorts := map[string]bool{}, map[string]bool{}
	for _, d := range details {
		if rest, ok := strings.CutPrefix(d, "SCAN "); ok && !strings.Contains(rest, " USING ") {
			name, _, _ := strings.Cut(rest, " ")
			if table, ok := names[name]; ok {
				scans[table] = true
			}
		}
		if rest, ok := strings.CutPrefix(d, "SEARCH "); ok && sorting {
			name, how, _ := strings.Cut(rest, " ")
			byKey := strings.HasPrefix(how, "USING PRIMARY KEY") || strings.HasPrefix(how, "USING INTEGER PRIMARY KEY (rowid=?)")
			if table, ok := names[name]; ok && !byKey {
				sorts[table] = true
			}
		}
	}
	return Findings{Scans: slices.Sorted(maps.Keys(scans)), Sorts: slices.Sorted(maps.Keys(sorts))}
}

// limit finds a LIMIT clause.
var limit = regexp.MustCompile(`(?i)\bLIMIT\b`)
