package postgres

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// Prefetch implements [store.Prefetcher]: the statements of the
// announced reads are queued to go to the server ahead of the transaction's
// next statement, in its batch (see lazyTx.enqueueKind), and the reads then
// answer once each from what came back, without a round trip of their own.
// They are the statements the reads run (a stream's with its subscribers in
// the same statement), so PostgreSQL plans each once, except an event
// queue's, which brings its realm's head (LastEventID) along. They run
// inside the transaction, so a prefetched answer is the one the read would
// have had, and a serialisable transaction's dependencies include it. A
// write forgets the answers (see writable), except a write of messages and
// the rows that hang off them, which only the user's view of messages
// (UserMessages) answers from (see writableKeepingAnswers). Announced
// new messages get their ids reserved the same way, which no write
// forgets (see CreateMessage). In a ViewSingle, which runs one statement,
// Prefetch does nothing.
func (t *tx) Prefetch(p store.Prefetch) {
	if t.tx.single || t.failed != nil {
		return
	}
	if t.fetched == nil {
		t.fetched = &fetched{}
	}
	f := t.fetched // a write may replace t.fetched before the answers arrive
	for _, id := range p.Realms {
		t.tx.enqueuePrefetch(realmWithVersionSQL, []any{id}, func(br pgx.BatchResults) error {
			r, err := readOne(br.QueryRow(), fmt.Sprintf("realm %d", id), func(row pgx.Row, r *fetchedRealm) error {
				return sqlstore.ScanRealm(row, &r.realm, &r.linkifiersVersion)
			})
			if err == nil {
				setEntry(&f.realms, id, r)
			}
			return err
		})
	}
	for _, id := range p.Streams {
		var sent *subscriberList
		if p.Subscribers {
			sent = new(t.subs.held(id))
		}
		query, args := streamSelect(sqlstore.StreamByID, []any{id}, sent)
		t.tx.enqueuePrefetch(query, args, func(br pgx.BatchResults) error {
			s, err := f.readStream(br, t.subs, sent, streamKey{}, fmt.Sprintf("stream %d", id))
			if err == nil {
				setEntry(&f.streams, id, s)
			}
			return err
		})
	}
	for _, id := range p.Audiences {
		t.tx.enqueuePrefetch(audienceSQL, []any{id}, func(br pgx.BatchResults) error {
			a, err := readAudience(br.QueryRow(), id)
			if err == nil {
				setEntry(&f.audiences, id, a)
			}
			return err
		})
	}
	if len(t.tx.deferred) > 0 {
		// Its head would miss the appends waiting for a write group's
		// COMMIT; the unannounced read fails instead (see logReadable).
		p.EventQueues = nil
	}
	for _, id := range p.EventQueues {
		t.tx.enqueuePrefetch(queueWithHeadSQL, []any{id}, func(br pgx.BatchResults) error {
			var head int64
			q, err := readOne(br.QueryRow(), fmt.Sprintf("event queue %q", id), func(row pgx.Row, q *store.EventQueue) error {
				return sqlstore.ScanEventQueue(row, q, &head)
			})
			if err == nil {
				setEntry(&f.queues, id, q)
				if q != nil {
					setEntry(&f.heads, q.RealmID, head)
				}
			}
			return err
		})
	}
	if p.NewMessages > 0 {
		t.tx.enqueuePrefetch(reserveMessageIDsSQL, []any{min(p.NewMessages, maxReservedMessageIDs)}, func(br pgx.BatchResults) error {
			rows, err := br.Query()
			if err != nil {
				return classify(err, "reserve message ids")
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[store.MessageID])
			if err != nil {
				return classify(err, "reserve message ids")
			}
			t.messageIDs = append(t.messageIDs, ids...)
			return nil
		})
	}
	if len(p.UserMessages.IDs) > 0 {
		t.prefetchUserMessages(p.UserMessages)
	}
	for _, realm := range p.RealmStreams {
		prefetchRows(t, &f.realmStreams, realm, "streams", scanStreamRow, sqlstore.RealmStreamsSQL, realm)
	}
	for _, user := range p.UserSubscriptions {
		prefetchRows(t, &f.userSubscriptions, user, "subscriptions", scanSubscriptionRow, sqlstore.UserSubscriptionsSQL, user)
	}
	for _, user := range p.Muters {
		prefetchRows(t, &f.muters, user, "muters", scanIDRow[store.UserID], sqlstore.MutersSQL, user)
	}
	for _, realm := range p.AlertWordRealms {
		prefetchRows(t, &f.alertWords, realm, "realm alert words", func(r pgx.Rows, w *store.AlertWord) error {
			return sqlstore.ScanAlertWord(r, w)
		}, sqlstore.RealmAlertWordsSQL, realm)
	}
	for _, realm := range p.RealmEmojiRealms {
		prefetchRows(t, &f.realmEmojis, realm, "realm emoji", func(r pgx.Rows, e *store.RealmEmoji) error {
			return sqlstore.ScanRealmEmoji(r, e)
		}, sqlstore.RealmEmojisSQL, int64(realm))
	}
	if p.ChannelGroupSettings {
		for _, id := range p.Streams {
			prefetchRows(t, &f.channelSettings, id, "channel group settings", func(r pgx.Rows, s *store.GroupSetting) error {
				return sqlstore.ScanGroupSetting(r, s)
			}, sqlstore.ChannelGroupSettingsSQL(dialect.ByteOrder), int64(id))
		}
		for _, n := range p.StreamNames {
			t.prefetchChannelSettingsByName(f, n)
		}
	}
	for _, k := range p.TopicPolicies {
		if k.StreamID == 0 {
			t.prefetchTopicPoliciesByName(f, k)
			continue
		}
		prefetchRows(t, &f.topicPolicies, k, "topic user topics", func(r pgx.Rows, ut *store.UserTopic) error {
			return sqlstore.ScanUserTopic(r, ut)
		}, sqlstore.TopicUserTopicsSQL, k.StreamID, k.TopicKey)
	}
	for _, user := range p.DirectRecipients {
		prefetchRows(t, &f.directRecipients, user, "direct recipients", scanIDRow[store.RecipientID], sqlstore.DirectRecipientsSQL, user)
	}
	for _, n := range p.StreamNames {
		k := streamKey{n.RealmID, store.FoldKey(n.Name)}
		var sent *subscriberList
		if p.Subscribers {
			sent = new(t.subs.heldByName(k))
		}
		query, args := streamSelect(sqlstore.StreamByName, []any{k.realm, k.name}, sent)
		t.tx.enqueuePrefetch(query, args, func(br pgx.BatchResults) error {
			s, err := f.readStream(br, t.subs, sent, k, fmt.Sprintf("stream %q", n.Name))
			if err == nil {
				setEntry(&f.names, k, s)
			}
			return err
		})
	}
}

// prefetchRows queues an announced read of rows, each scanned with scan,
// whose answer goes to (*m)[k] (see readRows).
func prefetchRows[K comparable, T any](t *tx, m *map[K][]T, k K, what string, scan func(pgx.Rows, *T) error, query string, args ...any) {
	t.tx.enqueuePrefetch(query, args, func(br pgx.BatchResults) error {
		out, err := readRows(br, what, scan)
		if err == nil {
			setEntry(m, k, out)
		}
		return err
	})
}

// reserveMessageIDsSQL takes $1 ids from the messages' identity sequence,
// as many inserts without an id would. Ids reserved and never used are a
// gap, as the ids of a rolled back insert are.
var reserveMessageIDsSQL = "SELECT nextval('" + idSequence("messages") + "') FROM generate_series(1, $1)"

// maxReservedMessageIDs bounds the ids one announcement reserves.
const maxReservedMessageIDs = 100

// reservedMessageID takes the next id reserved for a new message (see
// Prefetch); ok is false when none is left.
func (t *tx) reservedMessageID() (id store.MessageID, ok bool) {
	if len(t.messageIDs) == 0 {
		return 0, false
	}
	id, t.messageIDs = t.messageIDs[0], t.messageIDs[1:]
	return id, true
}

// streamSelect is the statement of a stream read whose conditions are
// where (sqlstore.StreamByID or StreamByName) with their arguments args,
// and, when sent is not nil, the stream's active subscribers unless the
// stream's version of them is sent's (see subscribersCols), which becomes
// the statement's last argument.
func streamSelect(where string, args []any, sent *subscriberList) (string, []any) {
	if sent == nil {
		return "SELECT " + sqlstore.StreamCols + where, args
	}
	args = append(args, sent.version)
	return "SELECT " + sqlstore.StreamCols + ", " + subscribersCols("$"+strconv.Itoa(len(args))) + where, args
}

// readStream reads the answer of a prefetching stream statement: the
// stream, nil when there is none, and, when it read the stream's
// subscribers (sent: the list of subs it sent the version of, see
// subscribersCols; k: the stream's name when read by name), its active
// subscribers, which it keeps for ActiveSubscriberIDs.
func (f *fetched) readStream(br pgx.BatchResults, subs *subscriberCache, sent *subscriberList, k streamKey, what string) (*store.Stream, error) {
	var ids []store.UserID
	var version int64
	s, err := readOne(br.QueryRow(), what, func(row pgx.Row, s *store.Stream) error {
		if sent != nil {
			return sqlstore.ScanStream(row, s, &version, &ids)
		}
		return sqlstore.ScanStream(row, s)
	})
	if s == nil || err != nil {
		return nil, err
	}
	if sent != nil {
		ids = subs.answer(s.ID, k, *sent, version, ids)
		if len(ids) == 0 {
			ids = nil // as ActiveSubscriberIDs answers
		}
		setEntry(&f.subscribers, s.ID, ids)
	}
	return s, nil
}

// readOne reads a row that may be missing with scan: nil when there is no
// row.
func readOne[T any](r pgx.Row, what string, scan func(pgx.Row, *T) error) (*T, error) {
	v := new(T)
	err := scan(r, v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, classify(err, what)
	}
	return v, nil
}

// setEntry sets m[k] to v, making the map first when it is nil.
func setEntry[K comparable, V any](m *map[K]V, k K, v V) {
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
}

// fetched holds the answers of announced reads until each is read once; an
// entry with a nil value answers that there is no such row.
type fetched struct {
	realms      map[store.RealmID]*fetchedRealm
	streams     map[store.StreamID]*store.Stream
	names       map[streamKey]*store.Stream
	subscribers map[store.StreamID][]store.UserID
	audiences   map[store.StreamID]*audience
	queues      map[string]*store.EventQueue
	heads       map[store.RealmID]int64 // LastEventID of a fetched queue's realm
	// realmStreams, userSubscriptions and directRecipients answer
	// Streams, Subscriptions for stream 0, and DirectRecipients.
	realmStreams      map[store.RealmID][]store.Stream
	userSubscriptions map[store.UserID][]store.Subscription
	directRecipients  map[store.UserID][]store.RecipientID
	// muters, alertWords, topicPolicies and channelSettings answer MutersOf,
	// RealmAlertWords, TopicUserTopics and ChannelGroupSettings.
	muters          map[store.UserID][]store.UserID
	alertWords      map[store.RealmID][]store.AlertWord
	topicPolicies   map[store.StreamTopic][]store.UserTopic
	channelSettings map[store.StreamID][]store.GroupSetting
	// realmEmojis answers RealmEmojis.
	realmEmojis map[store.RealmID][]store.RealmEmoji
}

// fetchedRealm is a realm with its linkifier version, as Realm reads them.
type fetchedRealm struct {
	realm             store.Realm
	linkifiersVersion int64
}

// streamKey is a stream's realm and folded name, as StreamByName finds it.
type streamKey struct {
	realm store.RealmID
	name  string
}

// noAnswers is the answers of a transaction that has none: its maps are
// nil, so take finds nothing in them and changes nothing.
var noAnswers fetched

// answers returns the announced reads' answers to take from (see take):
// none before anything is announced or fetched, and none once a statement
// has failed (the reads then fail as they would have).
func (t *tx) answers() *fetched {
	if t.failed != nil || t.fetched == nil {
		return &noAnswers
	}
	return t.fetched
}

// take returns and forgets m's entry for k, the answer of one announced
// read; ok is false when there is no such answer (the read then goes to the
// server).
func take[K comparable, V any](m map[K]V, k K) (v V, ok bool) {
	if v, ok = m[k]; ok {
		delete(m, k)
	}
	return v, ok
}
