// Package searchbench benchmarks full-text search on a store next to a raw
// sibling statement: an organisation of n messages in 20 channels, a viewer
// in 10 of them, where one word ("update") is in half the messages and
// another ("zyzzyva") in one message only; and the cost of sending and
// editing a message, which the index adds to.
package searchbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/store"
)

// Words of the benchmark: Common is in every other message, Rare in one.
const (
	Common = "update"
	Rare   = "zyzzyva"
)

// Org is the generated organisation.
type Org struct {
	Realm  store.RealmID
	Viewer store.UserID
	Sender store.UserID
	// Streams are the channels; the viewer is in the first ten, and
	// ViewerRecipients are their recipients.
	Streams          []*store.Stream
	ViewerRecipients []store.RecipientID
}

var vocabulary = strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima
	mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu deploy build
	review merge branch commit release ticket meeting lunch coffee report budget design server client`)

// Generate creates the organisation with n messages, in batches through
// CreateMessages.
func Generate(tb testing.TB, st store.Store, n int) *Org {
	tb.Helper()
	ctx := context.Background()
	o := &Org{}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err := st.Update(ctx, func(tx store.Tx) error {
		r := &store.Realm{StringID: "bench", Name: "Bench", DateCreated: now}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		o.Realm = r.ID
		for i, email := range []string{"viewer@bench.test", "sender@bench.test"} {
			u := &store.User{RealmID: r.ID, Email: email, FullName: email, Role: store.RoleMember, IsActive: true,
				APIKeyHash: "hash:" + email, AvatarSource: "G", DateJoined: now, Settings: store.DefaultSettings()}
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			if i == 0 {
				o.Viewer = u.ID
			} else {
				o.Sender = u.ID
			}
		}
		for c := range 20 {
			s := &store.Stream{RealmID: r.ID, Name: fmt.Sprintf("channel %d", c), HistoryPublicToSubscribers: true, DateCreated: now}
			if err := tx.CreateStream(ctx, s); err != nil {
				return err
			}
			o.Streams = append(o.Streams, s)
			if err := tx.PutSubscription(ctx, store.Subscription{StreamID: s.ID, UserID: o.Sender, Active: true}); err != nil {
				return err
			}
			if c < 10 {
				if err := tx.PutSubscription(ctx, store.Subscription{StreamID: s.ID, UserID: o.Viewer, Active: true}); err != nil {
					return err
				}
				o.ViewerRecipients = append(o.ViewerRecipients, s.RecipientID)
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const batch = 2000
	for start := 0; start < n; start += batch {
		ms := make([]*store.Message, 0, batch)
		for i := start; i < min(n, start+batch); i++ {
			words := make([]string, 8)
			for j := range words {
				words[j] = vocabulary[rng.IntN(len(vocabulary))]
			}
			if rng.IntN(2) == 0 {
				words[3] = Common + "s"
			}
			if i == n/2 {
				words[5] = Rare
			}
			text := strings.Join(words, " ")
			s := o.Streams[i%len(o.Streams)]
			ms = append(ms, &store.Message{RealmID: o.Realm, SenderID: o.Sender, Type: store.MessageTypeStream,
				RecipientID: s.RecipientID, StreamID: s.ID, Topic: fmt.Sprintf("topic %d", i%50),
				Content: text, RenderedContent: "<p>" + text + "</p>", Client: "bench", SentAt: now.Add(time.Duration(i) * time.Second)})
		}
		if err := st.Update(ctx, func(tx store.Tx) error { return tx.CreateMessages(ctx, ms) }); err != nil {
			tb.Fatal(err)
		}
	}
	return o
}

// Raw is a store's raw sibling: the ids of the newest limit messages to
// one of recipients whose index entry holds word, in one statement.
type Raw func(ctx context.Context, word string, recipients []store.RecipientID, limit int) ([]int64, error)

// Run runs the benchmarks of search on the organisation: for the common
// and the rare word, GET /messages' search (messages.Get, newest 100, with
// the views), the store's read of it (Messages with the query messages.Get
// issues) and the raw sibling.
func Run(b *testing.B, st store.Store, o *Org, raw Raw) {
	ctx := context.Background()
	svc := chatcore.New(st)
	for _, word := range []string{Common, Rare} {
		lex := []string{word}
		if word == Common {
			lex = []string{"updat"}
		}
		b.Run("search "+word+"/get", func(b *testing.B) {
			for b.Loop() {
				res, err := messages.Get(ctx, svc, o.Viewer, messages.Request{Anchor: ptr("newest"), NumBefore: ptr(100), NumAfter: ptr(0),
					Narrow: []messages.NarrowTerm{messages.SearchTerm(word)}})
				if err != nil || len(res.Messages) == 0 {
					b.Fatalf("search %q: %d messages, %v", word, len(res.Messages), err)
				}
			}
		})
		q := store.MessageQuery{RealmID: o.Realm, Recipients: o.ViewerRecipients, FlagUser: o.Viewer, Newest: true, Limit: 101,
			NarrowConds: store.NarrowConds{Search: []store.SearchTerm{{Text: word, Lexemes: lex}}}}
		b.Run("search "+word+"/store", func(b *testing.B) {
			for b.Loop() {
				if err := st.View(ctx, func(tx store.Tx) error {
					ms, err := tx.Messages(ctx, q)
					if err == nil && len(ms) == 0 {
						err = fmt.Errorf("no messages")
					}
					return err
				}); err != nil {
					b.Fatalf("store read %q: %v", word, err)
				}
			}
		})
		b.Run("search "+word+"/raw", func(b *testing.B) {
			for b.Loop() {
				ids, err := raw(ctx, lex[0], o.ViewerRecipients, 101)
				if err != nil || len(ids) == 0 {
					b.Fatalf("raw %q: %d ids, %v", word, len(ids), err)
				}
			}
		})
	}
}

// Indexer is a store whose full-text index is filled after commit;
// IndexSearch returns once it holds every message written.
type Indexer interface {
	IndexSearch(ctx context.Context) error
}

// CompareWrites sends one message through the Service (SendMessage: the
// whole send, rendering and events included), then stores one message and
// edits an older one, one of the organisation's (CreateMessage,
// EditMessage: the store's part alone), alternately on a (with the index)
// and b (an identical organisation without it), runs times each, so that
// the load of the machine weighs on both alike, and reports the medians
// and the means (ns) and their ratios as metrics of the benchmark. A store
// that indexes after commit (Indexer) does part of that work in the
// background, which the means include where it delayed a write; the
// total of each side, its writes and then the wait until its index holds
// them all, counts the rest ("total-ratio").
func CompareWrites(bm *testing.B, a store.Store, oa *Org, b store.Store, ob *Org, runs int) {
	ctx := context.Background()
	type side struct {
		st               store.Store
		o                *Org
		svc              *chatcore.Service
		old              []store.MessageID // indexed messages to edit
		send, edit, full []time.Duration
		total            time.Duration
	}
	var m *store.Message
	sides := []*side{{st: a, o: oa, svc: chatcore.New(a)}, {st: b, o: ob, svc: chatcore.New(b)}}
	for _, sd := range sides {
		if ix, ok := sd.st.(Indexer); ok {
			if err := ix.IndexSearch(ctx); err != nil {
				bm.Fatal(err)
			}
		}
		if err := sd.st.View(ctx, func(tx store.Tx) error {
			var err error
			sd.old, err = tx.MessageIDs(ctx, store.MessageQuery{RealmID: sd.o.Realm, Limit: runs})
			return err
		}); err != nil || len(sd.old) < runs {
			bm.Fatalf("messages to edit: %d, %v", len(sd.old), err)
		}
	}
	for i := range runs {
		for _, sd := range sides {
			start := time.Now()
			if _, err := sd.svc.SendMessage(ctx, sd.o.Sender, chatcore.SendMessageRequest{Type: "stream", To: ptr(sd.o.Streams[0].Name),
				Topic: ptr("service"), Content: fmt.Sprintf("ship **release** %d to the `servers` today", i)}); err != nil {
				bm.Fatal(err)
			}
			sd.full = append(sd.full, time.Since(start))
			s := sd.o.Streams[0]
			m = &store.Message{RealmID: sd.o.Realm, SenderID: sd.o.Sender, Type: store.MessageTypeStream, RecipientID: s.RecipientID,
				StreamID: s.ID, Topic: "writes", Content: "deploy the release candidate today",
				RenderedContent: "<p>deploy the release candidate today</p>", Client: "bench", SentAt: time.Now()}
			start = time.Now()
			if err := sd.st.Update(ctx, func(tx store.Tx) error { return tx.CreateMessage(ctx, m) }); err != nil {
				bm.Fatal(err)
			}
			sd.send = append(sd.send, time.Since(start))
			text := fmt.Sprintf("review the budget report %d", i)
			start = time.Now()
			if err := sd.st.Update(ctx, func(tx store.Tx) error {
				got, err := tx.Message(ctx, sd.old[i])
				if err != nil {
					return err
				}
				got.Content, got.RenderedContent = text, "<p>"+text+"</p>"
				return tx.EditMessage(ctx, got, store.EditHistoryEntry{UserID: sd.o.Sender, Timestamp: time.Now()})
			}); err != nil {
				bm.Fatal(err)
			}
			sd.edit = append(sd.edit, time.Since(start))
		}
	}
	for _, sd := range sides {
		for _, ds := range [][]time.Duration{sd.full, sd.send, sd.edit} {
			for _, d := range ds {
				sd.total += d
			}
		}
		if ix, ok := sd.st.(Indexer); ok {
			start := time.Now()
			if err := ix.IndexSearch(ctx); err != nil {
				bm.Fatal(err)
			}
			sd.total += time.Since(start)
		}
	}
	med := func(ds []time.Duration) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[len(ds)/2])
	}
	mean := func(ds []time.Duration) float64 {
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		return float64(sum) / float64(len(ds))
	}
	report := func(name string, a, b []time.Duration) {
		ma, mb := med(a), med(b)
		bm.ReportMetric(ma, name+"-indexed-ns")
		bm.ReportMetric(mb, name+"-unindexed-ns")
		bm.ReportMetric(ma/mb, name+"-ratio")
		bm.ReportMetric(mean(a)/mean(b), name+"-mean-ratio")
	}
	report("send", sides[0].send, sides[1].send)
	report("edit", sides[0].edit, sides[1].edit)
	report("svc-send", sides[0].full, sides[1].full)
	bm.ReportMetric(float64(sides[0].total)/float64(sides[1].total), "total-ratio")
}

func ptr[T any](v T) *T { return &v }
