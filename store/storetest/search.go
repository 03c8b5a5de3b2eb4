package storetest

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore/internal/fulltext"
	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// searchWorld is flagWorld's realm with messages to search: bob receives
// general from m1+1 on and the direct conversation with alice, never secret.
type searchWorld struct {
	*flagWorld
	late, pizza, link, dm, hidden store.MessageID
}

// textMessage returns a channel message with this content, rendered as one
// paragraph unless rendered is given.
func textMessage(s *store.Stream, sender store.UserID, topic, content, rendered string) *store.Message {
	m := channelMessage(s, sender, topic)
	m.Content, m.RenderedContent = content, rendered
	if rendered == "" {
		m.RenderedContent = "<p>" + content + "</p>"
	}
	return m
}

func newSearchWorld(tb testing.TB, st store.Store) *searchWorld {
	tb.Helper()
	w := &searchWorld{flagWorld: newFlagWorld(tb, st)}
	ids := send(tb, st,
		textMessage(w.general, w.alice, "lunch", "I am Running late", ""),
		textMessage(w.general, w.carol, "Pizza party", "who brings drinks?", ""),
		textMessage(w.general, w.alice, "misc", "run the tests [docs](https://example.com/pizza)",
			`<p>run the tests <a href="https://example.com/pizza">docs</a> &amp; more</p>`),
		textMessage(w.secret, w.alice, "x", "running in secret", ""))
	w.late, w.pizza, w.link, w.hidden = ids[0], ids[1], ids[2], ids[3]
	rcpt := directRecipient(tb, st, w.realm, w.alice, w.bob)
	dm := directMessage(w.realm, rcpt, w.bob, w.alice, w.bob)
	dm.Content, dm.RenderedContent = "late runs again", "<p>late runs again</p>"
	w.dm = send(tb, st, dm)[0]
	return w
}

// searchFor returns the term of a search operand.
func searchFor(operand string, negated bool) store.SearchTerm {
	p := fulltext.Parse(operand)
	return store.SearchTerm{Text: p.Text, Lexemes: p.Lexemes, Phrases: p.Phrases, Negated: negated}
}

// searchQuery returns the query of the realm's messages matching terms.
func (w *searchWorld) searchQuery(terms ...store.SearchTerm) store.MessageQuery {
	return store.MessageQuery{RealmID: w.realm, NarrowConds: store.NarrowConds{Search: terms}}
}

var searchTests = []test{
	{"search matches stemmed words in content and topic, ignoring case", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newSearchWorld(t, st)
		is.Equal(query(t, st, w.searchQuery(searchFor("runs", false))), list(w.late, w.link, w.hidden, w.dm))    // run, running, runs
		is.Equal(query(t, st, w.searchQuery(searchFor("RUNNING", false))), list(w.late, w.link, w.hidden, w.dm)) // case
		is.Equal(query(t, st, w.searchQuery(searchFor("pizzas", false))), list(w.pizza))                         // topic; not the link's address
		is.Equal(query(t, st, w.searchQuery(searchFor("docs", false))), list(w.link))                            // a link's label
		is.Equal(query(t, st, w.searchQuery(searchFor("late run", false))), list(w.late, w.dm))                  // every word
		is.Equal(query(t, st, w.searchQuery(searchFor("the", false))), []store.MessageID(nil))                   // stop words only
		is.Equal(query(t, st, w.searchQuery(searchFor("amp", false))), []store.MessageID(nil))                   // entities are not words
		q := w.searchQuery(searchFor("run", false))
		q.Newest, q.Limit = true, 2
		is.Equal(query(t, st, q), list(w.dm, w.hidden)) // newest first, limited
		q = w.searchQuery(searchFor("run", false), searchFor("drinks", false))
		is.Equal(query(t, st, q), []store.MessageID(nil)) // every term
	}},
	{"search phrases match as written", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newSearchWorld(t, st)
		is.Equal(query(t, st, w.searchQuery(searchFor(`"running late"`, false))), list(w.late))           // the phrase, not "late runs"
		is.Equal(query(t, st, w.searchQuery(searchFor(`"RUNNING LATE"`, false))), list(w.late))           // ignoring case
		is.Equal(query(t, st, w.searchQuery(searchFor(`"pizza party"`, false))), list(w.pizza))           // in the topic
		is.Equal(query(t, st, w.searchQuery(searchFor(`"late running"`, false))), []store.MessageID(nil)) // order counts
		is.Equal(query(t, st, w.searchQuery(searchFor(`"100%"`, false))), []store.MessageID(nil))         // LIKE characters are literal
	}},
	{"negated search", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newSearchWorld(t, st)
		q := w.searchQuery(searchFor("run", true))
		q.Recipients = list(w.general.RecipientID)
		is.Equal(query(t, st, q), list(w.m1, w.m2, w.m3, w.pizza)) // general's without run
		q.Search = []store.SearchTerm{searchFor(`"running late"`, true)}
		is.Equal(query(t, st, q), list(w.m1, w.m2, w.m3, w.pizza, w.link)) // not both words, not the phrase
		q.Search = []store.SearchTerm{searchFor("the", true)}
		is.Equal(len(query(t, st, q)), 6) // stop words exclude nothing
	}},
	{"search never reaches what the user did not receive", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newSearchWorld(t, st)
		q := w.searchQuery(searchFor("running", false))
		q.FlagUser = w.bob
		is.Equal(query(t, st, q), list(w.late, w.link, w.dm)) // not secret's
		q.Newest, q.Limit = true, 1
		is.Equal(query(t, st, q), list(w.dm)) // newest
		q = w.searchQuery(searchFor("running", false))
		q.FlagUser, q.NoFlags = w.bob, store.FlagRead
		is.Equal(query(t, st, q), list(w.late, w.link)) // with a flag condition (bob sent the DM: read)
	}},
	{"search of a user's messages: from each membership's first message, and those with a flag row", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newSearchWorld(t, st)
		q := w.searchQuery(searchFor("hello", false))
		q.FlagUser = w.bob
		is.Equal(query(t, st, q), list(w.m2, w.m3)) // not m1, before bob joined; not secret's
		q.FlagUser = w.carol
		is.Equal(query(t, st, q), list(w.m1, w.m2, w.m3)) // carol's from the start
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{{UserID: w.bob, MessageID: w.s, Flags: store.FlagRead},
				{UserID: w.bob, MessageID: w.m2, Flags: store.FlagStarred}}))
		})
		q.FlagUser = w.bob
		is.Equal(query(t, st, q), list(w.m2, w.m3, w.s)) // a flag row: received, once
		q.Newest, q.Limit = true, 2
		is.Equal(query(t, st, q), list(w.s, w.m3)) // newest first, limited
		q.Newest, q.Limit = false, 0
		q.Recipients = list(w.general.RecipientID)
		is.Equal(query(t, st, q), list(w.m2, w.m3)) // within the named recipients
		q.Recipients, q.AfterID, q.BeforeID = nil, w.m2, w.s
		is.Equal(query(t, st, q), list(w.m3)) // within the id bounds
		q.Search = []store.SearchTerm{searchFor("psst", false)}
		q.AfterID, q.BeforeID = 0, 0
		is.Equal(query(t, st, q), list(w.d)) // a direct conversation's
	}},
	{"edits, moves and deletes keep the index", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newSearchWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			m, err := tx.Message(ctx, w.late)
			is.NoErr(err)
			m.Content, m.RenderedContent = "on my way", "<p>on my way</p>"
			is.NoErr(tx.EditMessage(ctx, m, store.EditHistoryEntry{UserID: w.alice, Timestamp: epoch, PrevContent: "I am Running late"}))
			_, err = tx.MoveMessages(ctx, store.MessageMove{RealmID: w.realm, StreamID: w.general.ID, TopicKey: store.TopicKey("Pizza party"),
				ToStream: w.general.ID, ToRecipient: w.general.RecipientID, ToTopic: "burgers", MovedAt: epoch,
				Entry: store.EditHistoryEntry{UserID: w.alice, Timestamp: epoch, PrevTopic: ptr("Pizza party"), Topic: ptr("burgers")}}, 10)
			is.NoErr(err)
			_, err = tx.DeleteMessages(ctx, store.MessageFilter{RealmID: w.realm, IDs: list(w.link)}, 10)
			is.NoErr(err)
		})
		is.Equal(query(t, st, w.searchQuery(searchFor("late", false))), list(w.dm))              // the old content is gone
		is.Equal(query(t, st, w.searchQuery(searchFor("way", false))), list(w.late))             // the new one found
		is.Equal(query(t, st, w.searchQuery(searchFor("pizza", false))), []store.MessageID(nil)) // the old topic gone
		is.Equal(query(t, st, w.searchQuery(searchFor("burger", false))), list(w.pizza))         // the new topic found
		is.Equal(query(t, st, w.searchQuery(searchFor("docs", false))), []store.MessageID(nil))  // deleted: no ghost
		ids := createAll(t, st, store.Tx.CreateMessages, func(ms []*store.Message) []store.MessageID {
			return []store.MessageID{ms[0].ID, ms[1].ID}
		}, [][]*store.Message{{textMessage(w.general, w.bob, "bulk", "imported docs", ""), textMessage(w.general, w.bob, "bulk", "more", "")}})
		is.Equal(query(t, st, w.searchQuery(searchFor("doc", false))), list(ids[0][0])) // a bulk insert is indexed
	}},
	{"negated narrow conditions", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newSearchWorld(t, st)
		base := store.MessageQuery{RealmID: w.realm, Recipients: list(w.general.RecipientID), AfterID: w.m3}
		q := base
		q.NotIDs = list(w.late, w.link)
		is.Equal(query(t, st, q), list(w.pizza)) // not those ids
		q = base
		q.NotSenderIDs = list(w.alice)
		is.Equal(query(t, st, q), list(w.pizza)) // not alice's
		q = base
		q.NotTopicKeys = []string{store.TopicKey("LUNCH")}
		is.Equal(query(t, st, q), list(w.pizza, w.link)) // not the topic
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.AddReaction(ctx, w.pizza, store.Reaction{UserID: w.bob, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}))
		})
		q = base
		q.NoReaction = true
		is.Equal(query(t, st, q), list(w.late, w.link)) // without reactions
		q = base
		q.Recipients, q.AfterID, q.NotTopicKeys = nil, w.hidden, []string{"x"}
		is.Equal(query(t, st, q), list(w.dm)) // direct messages have no topic to exclude
	}},
}
