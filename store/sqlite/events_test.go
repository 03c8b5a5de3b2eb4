package sqlite_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore"
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
	entry := func(users ...chatcore.UserID) chatcore.LoggedEvent {
		return chatcore.LoggedEvent{RealmID: 1, UserIDs: users, Data: []byte(`{"type":"x"}`)}
	}
	var ids []int64
	appendEntries := func(events ...chatcore.LoggedEvent) {
		update(t, s, func(ctx context.Context, tx chatcore.Tx) error {
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
		update(t, s, func(ctx context.Context, tx chatcore.Tx) error {
			_, err := tx.PruneEvents(ctx, through, 100)
			return err
		})
	}
	prune(ids[2])
	is.Equal(count("event_audiences"), 2)      // {4} is gone with its only entry; {1,2,3} is still named
	is.Equal(count("event_audience_users"), 5) // user 4's row with it
	var got []chatcore.LoggedEvent
	update(t, s, func(ctx context.Context, tx chatcore.Tx) (err error) {
		got, err = tx.EventsFor(ctx, chatcore.EventLogQuery{RealmID: 1, UserID: 3})
		return err
	})
	is.Equal(len(got), 1)       // user 3's remaining entry
	is.Equal(got[0].ID, ids[3]) // through the shared audience
	prune(ids[5])
	is.Equal(count("event_audiences"), 0) // every audience went with its last entry
	is.Equal(count("event_audience_users"), 0)
}
