package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestEventLogPlans checks that SQLite runs the event log's hot statements
// through the indexes they were written for: a poll that keeps up reads the
// entries after its bound by id, one far behind walks the user's audiences
// by index, a public entry's group is read by id, and pruning reads only the
// pruned range. A plan that scans a whole table or index fails.
func TestEventLogPlans(t *testing.T) {
	is := is.New(t)
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "plan.db"))
	is.NoErr(err) // store opens
	t.Cleanup(func() { s.Close() })
	plan := func(query string, args ...any) string {
		rows, err := s.writer.Query("EXPLAIN QUERY PLAN "+query, args...)
		is.NoErr(err) // explained
		defer rows.Close()
		var lines []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			is.NoErr(rows.Scan(&id, &parent, &unused, &detail))
			lines = append(lines, detail)
		}
		is.NoErr(rows.Err())
		return strings.Join(lines, "\n")
	}
	for _, c := range []struct {
		name, query string
		want        []string
	}{
		{"scan", eventsByScan + " ORDER BY 1 LIMIT 100", []string{
			"SEARCH e USING INTEGER PRIMARY KEY (rowid>?)",
			"SEARCH g USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
		{"audiences", eventsByAudience + " ORDER BY 1 LIMIT 100", []string{
			"SEARCH a USING PRIMARY KEY (user_id=?)",
			"SEARCH e USING INDEX event_log_audience (audience_id=? AND id>?)",
			"SEARCH g USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
		{"prune", prunedAudiencesSQL, []string{
			"SEARCH e USING INTEGER PRIMARY KEY (rowid<?)",
			"SEARCH l USING COVERING INDEX event_log_audience (audience_id=? AND id>?)"}},
	} {
		got := plan(c.query, 1, 2, 3, 1, 100)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: plan lacks %q:\n%s", c.name, w, got)
			}
		}
		for _, line := range strings.Split(got, "\n") {
			if strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN (subquery") {
				t.Errorf("%s: plan scans a table or index whole: %q", c.name, line)
			}
		}
	}
}
