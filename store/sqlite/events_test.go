package sqlite_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// TestEventAudiencesShared checks how log entries are addressed: entries for
// the same users share one audience, whose rows are written once, and
// pruning deletes an audience only with the last entry naming it.
func TestEventAudiencesShared(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	writer, _ := sqlite.DBs(s)
	count := func(table string) int {
		var n int
		is.NoErr(writer.QueryRow("SELECT count(*) FROM " + table).Scan(&n)) // counted
		return n
	}
	entry := func(users ...store.UserID) store.LoggedEvent {
		return store.LoggedEvent{RealmID: 1, UserIDs: users, Data: []byte(`{"type":"x"}`)}
	}
	var ids []int64
	appendEntries := func(events ...store.LoggedEvent) {
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			err := tx.AppendEvents(ctx, events)
			for _, e := range events {
				ids = append(ids, e.ID)
			}
			return err
		})
	}
	appendEntries(entry(1, 2, 3), entry(1, 2, 3), entry(4))
	appendEntries(entry(1, 2, 3), entry(1, 2), entry()) // a later message to the channel; a smaller set; a public copy alone
	is.Equal(count("event_audiences"), 3)               // {1,2,3}, {4} and {1,2}
	is.Equal(count("event_audience_users"), 6)          // each set's users once
	is.Equal(count("event_log"), 6)

	prune := func(through int64) {
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			_, err := tx.PruneEvents(ctx, through, 100)
			return err
		})
	}
	prune(ids[2])
	is.Equal(count("event_audiences"), 2)      // {4} is gone with its only entry; {1,2,3} is still named
	is.Equal(count("event_audience_users"), 5) // user 4's row with it
	var got []store.LoggedEvent
	update(t, s, func(ctx context.Context, tx store.Tx) (err error) {
		got, err = tx.EventsFor(ctx, store.EventLogQuery{RealmID: 1, UserID: 3})
		return err
	})
	is.Equal(len(got), 1)       // user 3's remaining entry
	is.Equal(got[0].ID, ids[3]) // through the shared audience
	prune(ids[5])
	is.Equal(count("event_audiences"), 0) // every audience went with its last entry
	is.Equal(count("event_audience_users"), 0)
}

// TestEventsForBothWays checks that a user's entries come out the same
// whether the query's bound is near the log's head or the user is in many
// audiences (each entry's audience is tested) or it is far behind the head
// (the user's audiences are walked): the same
// entries as the in-memory store selects, public copies and groups
// included, for bounds on both sides of the switch.
func TestEventsForBothWays(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	mem := memory.New()
	var events []store.LoggedEvent
	for i := range 600 {
		e := store.LoggedEvent{RealmID: 1, Data: fmt.Appendf(nil, `{"type":"e%d"}`, i)}
		switch i % 4 {
		case 0: // a channel message for users 1-3, also serving public queues
			e.UserIDs, e.Group, e.Public = []store.UserID{1, 2, 3}, int64(i), true
		case 1: // a direct message
			e.UserIDs = []store.UserID{2, 4}
		case 2: // a message with flags for 1, then its public copy
			e.UserIDs, e.Group = []store.UserID{1}, int64(i)
		case 3:
			e.Group, e.Public = int64(i-1), true
		}
		events = append(events, e)
	}
	for i := range 200 { // user 5 is in 200 audiences, so far behind the head its entries are scanned still
		events = append(events, store.LoggedEvent{RealmID: 1, UserIDs: []store.UserID{5, store.UserID(100 + i)},
			Data: fmt.Appendf(nil, `{"type":"f%d"}`, i)})
	}
	for _, st := range []store.Store{s, mem} {
		is.NoErr(st.Update(context.Background(), func(tx store.Tx) error {
			return tx.AppendEvents(context.Background(), slices.Clone(events))
		}))
	}
	read := func(st store.Store, q store.EventLogQuery) (names []string, n int) {
		is.NoErr(st.View(context.Background(), func(tx store.Tx) error {
			got, err := tx.EventsFor(context.Background(), q)
			for _, e := range got {
				names = append(names, string(e.Data))
			}
			if err == nil {
				n, err = tx.CountEventsFor(context.Background(), q, 1000)
			}
			return err
		}))
		return names, n
	}
	for _, after := range []int64{0, 100, 590} {
		for _, user := range []store.UserID{1, 2, 4, 5} {
			for _, public := range []bool{false, true} {
				q := store.EventLogQuery{RealmID: 1, UserID: user, After: after, Public: public}
				want, wantN := read(mem, q)
				got, gotN := read(s, q)
				is.Equal(got, want)   // the same entries as the reference
				is.Equal(gotN, wantN) // and the same count
				q.Limit = 7
				want, _ = read(mem, q)
				got, _ = read(s, q)
				is.Equal(got, want) // and the same first ones under a limit
			}
		}
	}
}

// TestEventLogPlans checks that SQLite runs the event log's hot statements
// through the indexes they were written for: a poll that keeps up reads the
// entries after its bound by id, one far behind walks the user's audiences
// by index, a public entry's group is read by id, and pruning reads only the
// pruned range. A plan that scans a whole table or index fails.
func TestEventLogPlans(t *testing.T) {
	s, _ := open(t)
	writer, _ := sqlite.DBs(s)
	for _, c := range []struct {
		name, query string
		want        []string
	}{
		{"scan", sqlite.EventsByScan + " ORDER BY 1 LIMIT 100", []string{
			"SEARCH e USING INTEGER PRIMARY KEY (rowid>?)",
			"SEARCH g USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
		{"audiences", sqlite.EventsByAudience + " ORDER BY 1 LIMIT 100", []string{
			"SEARCH a USING PRIMARY KEY (user_id=?)",
			"SEARCH e USING INDEX event_log_audience (audience_id=? AND id>?)",
			"SEARCH g USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"}},
		{"prune", sqlite.PrunedAudiencesSQL, []string{
			"SEARCH e USING INTEGER PRIMARY KEY (rowid<?)",
			"SEARCH l USING COVERING INDEX event_log_audience (audience_id=? AND id>?)"}},
	} {
		plan := planOf(t, writer, c.query, 1, 2, 3, 1)
		for _, w := range c.want {
			if !slices.Contains(plan, w) {
				t.Errorf("%s: plan lacks %q:\n%s", c.name, w, strings.Join(plan, "\n"))
			}
		}
		for _, line := range plan {
			if strings.HasPrefix(line, "SCAN ") && !strings.HasPrefix(line, "SCAN (subquery") {
				t.Errorf("%s: plan scans a table or index whole: %q", c.name, line)
			}
		}
	}
}

// TestEventAudienceOneSet checks that users given out of order or twice
// still name the audience of their set.
func TestEventAudienceOneSet(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	entries := []store.LoggedEvent{
		{RealmID: 1, UserIDs: []store.UserID{1, 2, 3}, Data: []byte(`{"type":"a"}`)},
		{RealmID: 1, UserIDs: []store.UserID{3, 1, 2, 1}, Data: []byte(`{"type":"b"}`)},
	}
	is.NoErr(s.Update(context.Background(), func(tx store.Tx) error { return tx.AppendEvents(context.Background(), entries) }))
	writer, _ := sqlite.DBs(s)
	var audiences, members int
	is.NoErr(writer.QueryRow("SELECT count(*) FROM event_audiences").Scan(&audiences))
	is.NoErr(writer.QueryRow("SELECT count(*) FROM event_audience_users").Scan(&members))
	is.Equal(audiences, 1) // one set
	is.Equal(members, 3)   // its users once each
}
