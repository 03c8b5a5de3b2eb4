package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// TestRareSearchWordsReadByMatches: a search whose words PostgreSQL's
// statistics of the messages' search documents do not list (a rare word,
// or any word before the table is analysed) orders its messages by an
// expression no index gives, so that the planner reads the search index's
// matches instead of walking the newest messages until the limit (which,
// for a word found once in a million messages, reads all of them); a word
// the statistics list is planned as PostgreSQL chooses. Both the search of
// a user's messages and the plain one of a channel give the same messages
// either way.
func TestRareSearchWordsReadByMatches(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	trips := &roundTrips{stmts: statementLog{keep: true}}
	st := pgtest.OpenUnpooled(t, postgres.WithoutNotify(), postgres.WithPoolConfig(func(c *pgxpool.Config) { // a schema never analysed
		pgtest.Fast(c)
		c.ConnConfig.Tracer = trips
	}))
	log := &trips.stmts
	w := chattest.New(t, chattest.OnStore(st))
	realm := w.AddRealm(t, "rare")
	ann := w.AddUser(t, realm, "Ann", store.RoleMember)
	ch := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*store.User{ann}})
	for i := range 300 {
		w.Post(t, ch, "ops", ann, fmt.Sprintf("deploy the release build %d", i))
	}

	search := func(word string, user store.UserID) (ids []store.MessageID, byMatches bool) {
		log.take()
		q := store.MessageQuery{RealmID: realm.ID, Newest: true, Limit: 20,
			NarrowConds: store.NarrowConds{Search: []store.SearchTerm{{Text: word, Lexemes: []string{word}}}}}
		if user != 0 {
			q.FlagUser = user
		} else {
			q.Recipients = []store.RecipientID{ch.RecipientID}
		}
		is.NoErr(st.View(ctx, func(tx store.Tx) error {
			ms, err := tx.Messages(ctx, q)
			for _, m := range ms {
				ids = append(ids, m.ID)
			}
			return err
		}))
		for _, s := range log.take() {
			if strings.Contains(s, "FROM messages") && strings.Contains(s, "id + 0") {
				byMatches = true
			}
		}
		return ids, byMatches
	}

	// Before any ANALYZE: no word is listed.
	for _, user := range []store.UserID{ann.ID, 0} {
		ids, byMatches := search("deploy", user)
		is.Equal(len(ids), 20) // the newest twenty
		is.True(byMatches)     // read from the index's matches
	}

	_, err := st.Pool().Exec(ctx, "ANALYZE messages")
	is.NoErr(err)
	rareID := w.Post(t, ch, "ops", ann, "deploy the zyzzyva build") // after: the statistics do not list it
	for _, user := range []store.UserID{ann.ID, 0} {
		ids, byMatches := search("deploy", user)
		is.Equal(len(ids), 20) // the newest twenty
		is.True(!byMatches)    // a listed word: as the planner chooses
		is.True(ids[0] > ids[19])

		ids, byMatches = search("zyzzyva", user)
		is.Equal(ids, []store.MessageID{rareID}) // the one message
		is.True(byMatches)                       // read from the index's matches
	}
}
