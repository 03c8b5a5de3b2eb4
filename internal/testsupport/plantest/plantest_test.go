package plantest

import (
	"slices"
	"strings"
	"testing"
)

func TestSQLitePlan(t *testing.T) {
	query := `SELECT m.id FROM messages m JOIN subscriptions s ON s.stream_id = m.stream_id
		WHERE EXISTS (SELECT 1 FROM user_message_flags AS f WHERE f.message_id = m.id) AND m.id IN (SELECT max_id FROM (SELECT 1) x)`
	for _, c := range []struct {
		details []string
		want    []string
	}{
		{[]string{"SCAN m"}, []string{"messages"}},                                                      // a table scan, under its alias
		{[]string{"SCAN m", "SCAN f"}, []string{"messages", "user_message_flags"}},                      // two, one with AS
		{[]string{"SCAN s"}, nil},                                                                       // a small table
		{[]string{"SCAN x"}, nil},                                                                       // a subquery's alias
		{[]string{"SCAN m USING INDEX messages_stream"}, nil},                                           // in an index's order
		{[]string{"SCAN m USING COVERING INDEX messages_stream"}, nil},                                  // from an index alone
		{[]string{"SEARCH m USING INTEGER PRIMARY KEY (rowid<?)"}, nil},                                 // a search
		{[]string{"SCAN json_each VIRTUAL TABLE INDEX 1:", "SCAN m (~100 rows)"}, []string{"messages"}}, // with an estimate
	} {
		if got := SQLitePlan(query, c.details); !slices.Equal(got.Scans, c.want) || got.Sorts != nil {
			t.Errorf("SQLitePlan(%q) = %q, want scans %q", c.details, got, c.want)
		}
	}
	if got := SQLitePlan("SELECT count(*) FROM reactions WHERE user_id = ?", []string{"SCAN reactions"}); !slices.Equal(got.Scans, []string{"reactions"}) {
		t.Errorf("a table without an alias: %q", got)
	}

	sorted := []string{"SEARCH m USING INDEX messages_recipient (recipient_id=?)", "LIST SUBQUERY 1",
		"SEARCH f USING PRIMARY KEY (user_id=? AND message_id=?)", "USE TEMP B-TREE FOR ORDER BY"}
	limited := query + " ORDER BY m.id DESC LIMIT 100"
	if got := SQLitePlan(limited, sorted); !slices.Equal(got.Sorts, []string{"messages"}) || got.Scans != nil {
		t.Errorf("every match of an index search sorted for a LIMIT: %q", got) // the flags, by primary key, are not
	}
	if got := SQLitePlan(query, sorted); got.Sorts != nil {
		t.Errorf("a sort without a LIMIT: %q", got)
	}
	byID := []string{"SEARCH m USING INTEGER PRIMARY KEY (rowid=?)", "USE TEMP B-TREE FOR ORDER BY"}
	if got := SQLitePlan(limited, byID); got.Sorts != nil {
		t.Errorf("rows looked up by id, sorted: %q", got)
	}
}

func TestPostgresPlan(t *testing.T) {
	plan := `[{"Plan": {"Node Type": "Limit", "Plans": [
		{"Node Type": "Seq Scan", "Relation Name": "subscriptions"},
		{"Node Type": "Nested Loop", "Plans": [
			{"Node Type": "Index Scan", "Relation Name": "messages", "Index Name": "messages_stream"},
			{"Node Type": "Seq Scan", "Relation Name": "user_message_flags"}]}]}}]`
	got, err := PostgresPlan([]byte(plan), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Scans, []string{"user_message_flags"}) || got.Sorts != nil { // a nested Seq Scan of a big table, not of a small one
		t.Errorf("PostgresPlan = %q", got)
	}
	// The newest messages of a topic found by walking every message from
	// the newest, each filtered (the bound is on another index).
	sizes := map[string]float64{"messages": 100_000}
	walk := `[{"Plan": {"Node Type": "Limit", "Plans": [
		{"Node Type": "Index Scan", "Scan Direction": "Backward", "Relation Name": "messages", "Index Name": "messages_pkey",
			"Plan Rows": 2255, "Filter": "((recipient_id = 1) AND (topic_key = 'a'::text))"}]}}]`
	if got, err := PostgresPlan([]byte(walk), sizes); err != nil || !slices.Equal(got.Scans, []string{"messages"}) {
		t.Errorf("PostgresPlan(a walk of messages_pkey) = %q, %v", got, err)
	}
	// The same walk for a condition most messages meet (the big channel's)
	// stops after a few rows more than the Limit.
	dense := strings.Replace(walk, `"Plan Rows": 2255`, `"Plan Rows": 30793`, 1)
	if got, err := PostgresPlan([]byte(dense), sizes); err != nil || got.Scans != nil {
		t.Errorf("PostgresPlan(a dense walk of messages_pkey) = %q, %v", got, err)
	}
	if _, err := PostgresPlan([]byte("Seq Scan on messages"), nil); err == nil {
		t.Error("a text plan was taken for JSON")
	}

	for _, c := range []struct {
		plan string
		want []string
	}{
		{`{"Node Type": "Limit", "Plans": [{"Node Type": "Sort", "Plans": [
			{"Node Type": "Index Scan", "Relation Name": "messages", "Index Name": "messages_recipient"}]}]}`, []string{"messages"}}, // the feed's top-N sort
		{`{"Node Type": "Limit", "Plans": [{"Node Type": "Result", "Plans": [{"Node Type": "Sort", "Plans": [
			{"Node Type": "Bitmap Heap Scan", "Relation Name": "reactions", "Plans": [
				{"Node Type": "Bitmap Index Scan", "Index Name": "reactions_user_emoji"}]}]}]}]}`, []string{"reactions"}}, // through a Result, by a bitmap
		{`{"Node Type": "Limit", "Plans": [{"Node Type": "Sort", "Plans": [
			{"Node Type": "Index Scan", "Relation Name": "messages", "Index Name": "messages_pkey", "Index Cond": "(id = ANY ($1))"}]}]}`, nil}, // ids looked up, then sorted
		{`{"Node Type": "Limit", "Plans": [{"Node Type": "Sort", "Plans": [
			{"Node Type": "Bitmap Heap Scan", "Relation Name": "messages", "Plans": [
				{"Node Type": "Bitmap Index Scan", "Index Name": "messages_pkey"}]}]}]}`, nil}, // the same, by a bitmap
		{`{"Node Type": "Sort", "Plans": [
			{"Node Type": "Index Scan", "Relation Name": "messages", "Index Name": "messages_stream"}]}`, nil}, // no LIMIT: every row is wanted
		{`{"Node Type": "Limit", "Plans": [{"Node Type": "Sort", "Plans": [{"Node Type": "Append", "Plans": [
			{"Node Type": "Limit", "Plans": [{"Node Type": "Index Scan", "Relation Name": "messages", "Index Name": "messages_stream"}]}]}]}]}`, nil}, // limited arms
		{`{"Node Type": "Limit", "Plans": [
			{"Node Type": "Index Scan Backward", "Relation Name": "messages", "Index Name": "messages_stream"}]}`, nil}, // in the index's order
	} {
		got, err := PostgresPlan([]byte(`[{"Plan": `+c.plan+`}]`), sizes)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Sorts, c.want) || got.Scans != nil {
			t.Errorf("PostgresPlan(%s) = %q, want sorts %q", c.plan, got, c.want)
		}
	}
}

func TestExplainable(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT 1": true, " WITH x AS (SELECT 1) SELECT * FROM x": true, "(SELECT 1) UNION (SELECT 2)": true,
		"insert into t values (1)": true, "UPDATE t SET a = 1": true, "DELETE FROM t": true,
		"BEGIN": false, "SAVEPOINT op": false, "SET LOCAL plan_cache_mode = force_generic_plan": false,
		"LOCK TABLE chatcore_write_gate IN ROW SHARE MODE": false, "COMMIT": false,
	} {
		if got := Explainable(q); got != want {
			t.Errorf("Explainable(%q) = %v, want %v", q, got, want)
		}
	}
}
