package chatcore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// linkifierReadStore counts the reads of linkifier rows made inside Update,
// and runs before (once, in its own transaction) just before the next Update:
// after the send's read-only Views, before its write transaction.
type linkifierReadStore struct {
	chatcore.Store
	before func()
	reads  atomic.Int64
}

func (s *linkifierReadStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	if before := s.before; before != nil {
		s.before = nil
		before()
	}
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(linkifierReadTx{tx, s}) })
}

type linkifierReadTx struct {
	chatcore.Tx
	s *linkifierReadStore
}

func (t linkifierReadTx) Linkifiers(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Linkifier, error) {
	t.s.reads.Add(1)
	return t.Tx.Linkifiers(ctx, realm)
}

// TestRenderRecheckReadsNoLinkifierRows checks, on both stores, that the
// write transaction of a send checks the realm's linkifiers by their version,
// reading no linkifier row when they did not change (however many there are),
// and renders again with the new rows when they changed after the
// pre-rendering.
func TestRenderRecheckReadsNoLinkifierRows(t *testing.T) {
	ctx := context.Background()
	stores := []struct {
		name string
		open func(tb testing.TB) chatcore.Store
	}{
		{"memory", func(testing.TB) chatcore.Store { return memory.New() }},
		{"sqlite", func(tb testing.TB) chatcore.Store { return openSQLite(tb) }},
	}
	cases := []struct {
		name      string
		change    func(tb testing.TB, st chatcore.Store, mine, other *chatcore.Realm, l *chatcore.Linkifier)
		wantReads bool
		wantHTML  string
	}{
		{"nothing changed", func(testing.TB, chatcore.Store, *chatcore.Realm, *chatcore.Realm, *chatcore.Linkifier) {},
			false, `<p><a href="https://old.example/7">#7</a></p>`},
		{"another realm's linkifier added", func(tb testing.TB, st chatcore.Store, _, other *chatcore.Realm, _ *chatcore.Linkifier) {
			chattest.Write(tb, st, func(ctx context.Context, tx chatcore.Tx) error {
				return tx.CreateLinkifier(ctx, &chatcore.Linkifier{RealmID: other.ID, Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://other.example/{id}"})
			})
		}, false, `<p><a href="https://old.example/7">#7</a></p>`},
		{"linkifier updated", func(tb testing.TB, st chatcore.Store, _, _ *chatcore.Realm, l *chatcore.Linkifier) {
			chattest.Write(tb, st, func(ctx context.Context, tx chatcore.Tx) error {
				u := *l
				u.URLTemplate = "https://new.example/{id}"
				return tx.UpdateLinkifier(ctx, &u)
			})
		}, true, `<p><a href="https://new.example/7">#7</a></p>`},
		{"linkifier deleted", func(tb testing.TB, st chatcore.Store, _, _ *chatcore.Realm, l *chatcore.Linkifier) {
			chattest.Write(tb, st, func(ctx context.Context, tx chatcore.Tx) error { return tx.DeleteLinkifier(ctx, l.ID) })
		}, true, `<p>#7</p>`},
	}
	for _, sc := range stores {
		for _, tc := range cases {
			t.Run(sc.name+"/"+tc.name, func(t *testing.T) {
				is := is.New(t)
				st := sc.open(t)
				w := chattest.New(t, chattest.OnStore(st))
				realm := w.AddRealm(t, "zulip")
				other := w.AddRealm(t, "lear")
				sender := w.AddUser(t, realm, "King Hamlet", chatcore.RoleMember)
				to := w.AddUser(t, realm, "Othello", chatcore.RoleMember)
				l := &chatcore.Linkifier{RealmID: realm.ID, Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://old.example/{id}"}
				chattest.Write(t, st, func(ctx context.Context, tx chatcore.Tx) error {
					for i := range 50 { // rows a row-by-row check would read
						if err := tx.CreateLinkifier(ctx, &chatcore.Linkifier{RealmID: realm.ID,
							Pattern: fmt.Sprintf("Z%d-(?P<id>[0-9]+)", i), URLTemplate: "https://z.example/{id}", Order: 1}); err != nil {
							return err
						}
					}
					return tx.CreateLinkifier(ctx, l)
				})
				rs := &linkifierReadStore{Store: st}
				rs.before = func() { tc.change(t, st, realm, other, l) }
				svc := chatcore.New(rs)
				id, err := svc.SendMessage(ctx, sender.ID, chatcore.SendMessageRequest{
					Type: "private", To: new(fmt.Sprintf("[%d]", to.ID)), Content: "#7"})
				is.NoErr(err)                               // sent
				is.Equal(rs.reads.Load() > 0, tc.wantReads) // linkifier rows are read in the write transaction only to render again
				view, _, err := messages.One(ctx, svc, sender.ID, id, messages.OneRequest{})
				is.NoErr(err)                       // readable
				is.Equal(view.Content, tc.wantHTML) // rendered with the linkifiers stored at the write
			})
		}
	}
}
