package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// TestGenericPlans: the statements that PostgreSQL would otherwise plan
// anew at every execution (a flag update, the read of a user's messages, a
// deletion batch, a channel's audience, the event append) run on their
// generic plans, and the transaction's plan setting is back to its default
// after each.
func TestGenericPlans(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	st, _ := tracedStore(t, postgres.WithMaxConns(1), postgres.WithoutNotify()) // one session: its prepared statements
	w := chattest.New(t, chattest.OnStore(st))
	realm := w.AddRealm(t, "plans")
	ann := w.AddUser(t, realm, "Ann", store.RoleAdministrator)
	ch := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*store.User{ann}})
	const runs = 8            // PostgreSQL makes custom plans for the first five executions at least
	var ids []store.MessageID // starred one by one
	for i := range 2 * runs {
		topic := []string{"kept", "deleted"}[i%2] // the second deleted one by one
		id, err := w.Svc.SendMessage(ctx, ann.ID, chatcore.SendMessageRequest{Type: "stream", To: new("general"), Topic: &topic, Content: fmt.Sprint(i)})
		is.NoErr(err)
		if i%2 == 0 {
			ids = append(ids, id)
		}
	}
	for i := range runs {
		err := st.Update(ctx, func(tx store.Tx) error {
			um, err := tx.UserMessages(ctx, ann.ID, ids[i:i+1])
			if err != nil {
				return err
			}
			is.True(len(um) == 1 && um[0].Received) // read
			changed, err := tx.UpdateUserMessageFlags(ctx, ann.ID, ids[i:i+1], store.FlagStarred, true)
			is.Equal(changed, ids[i:i+1]) // starred
			if err != nil {
				return err
			}
			key := store.TopicKey("deleted")
			deleted, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: realm.ID, StreamID: ch.ID, TopicKey: &key}, 1)
			is.Equal(len(deleted), 1) // the newest message of the topic
			if err != nil {
				return err
			}
			err = tx.AppendEvents(ctx, []store.LoggedEvent{{RealmID: realm.ID, UserIDs: []store.UserID{ann.ID}, Data: []byte(`{"type":"test"}`)}})
			if err != nil {
				return err
			}
			if _, _, err := tx.StreamAudience(ctx, ch.ID, ids[i]); err != nil { // unannounced
				return err
			}
			_, err = tx.UnreadMessages(ctx, ann.ID, 10) // a statement after them, planned as PostgreSQL chooses
			return err
		})
		is.NoErr(err)
	}
	rows, err := st.Pool().Query(ctx, "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
	is.NoErr(err)
	defer rows.Close() // also when an assertion below fails: the store's Close waits for the connection
	seen := 0
	for rows.Next() {
		var stmt string
		var generic, custom int64
		is.NoErr(rows.Scan(&stmt, &generic, &custom))
		switch {
		case strings.Contains(stmt, "WHERE m.id = ANY($2)") && strings.HasPrefix(stmt, "SELECT"):
			is.Equal(custom, int64(0))       // never a custom plan
			is.Equal(generic, int64(2*runs)) // a generic one every time: the read, and the unread messages' flags
			seen++
		case strings.Contains(stmt, "WHERE m.id = ANY($2)") || strings.HasPrefix(stmt, "DELETE FROM messages"):
			is.Equal(custom, int64(0))     // never a custom plan
			is.Equal(generic, int64(runs)) // a generic one every time
			seen++
		case strings.Contains(stmt, "coalesce(first_visible_message_id, 0) ORDER BY user_id"):
			is.Equal(custom, int64(0))     // the channel's audience: never a custom plan
			is.Equal(generic, int64(runs)) // a generic one every time
			seen++
		case strings.HasPrefix(stmt, "WITH l AS MATERIALIZED"):
			is.Equal(custom, int64(0))      // the event append: never a custom plan
			is.True(generic >= int64(runs)) // (the sends above appended too)
			seen++
		case strings.Contains(stmt, "UNION ALL SELECT f.message_id AS id") && strings.Contains(stmt, "f.flags & 1 = 0"):
			is.True(custom >= 5) // the unread messages: the setting was back to its default
			seen++
		}
	}
	is.NoErr(rows.Err())
	is.Equal(seen, 6) // the user messages read, the flag update, the deletion, the audience, the append, the unread messages
}
