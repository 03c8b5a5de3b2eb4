package chatcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/matryer/is"
)

// wideLinkifier adds a linkifier whose template is as long as allowed, so
// that each match of "#n" renders to a link of over 2,000 characters.
func wideLinkifier(tb testing.TB, w *chattest.World, org *chattest.Messaging) {
	tb.Helper()
	tmpl := "https://x.example/" + strings.Repeat("a", linkifiers.MaxURLTemplateLength-len("https://x.example/{id}")) + "{id}"
	w.AddLinkifier(tb, org.Admin, `#(?P<id>[0-9])`, tmpl)
}

// TestRenderedSizeCap checks Zulip's cap on rendered HTML (100 x the content
// limit) on every path that renders content.
func TestRenderedSizeCap(t *testing.T) {
	ctx := context.Background()
	over := strings.Repeat("#1 ", 3000) // 3,000 links of ~2,000 characters: ~6 MB of HTML
	under := strings.Repeat("#1 ", 400) // ~0.8 MB of HTML
	t.Run("send", func(t *testing.T) {
		is := is.New(t)
		w, org := chattest.NewMessaging(t)
		wideLinkifier(t, w, org)
		topic := "t"
		_, err := w.Svc.SendMessage(ctx, org.Member.ID, chatcore.SendMessageRequest{
			Type: "stream", To: new(fmt.Sprint(org.Public.ID)), Topic: &topic, Content: over})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Unable to render message")
		id := w.Send(t, org.Member, org.Public, "t", under)
		view, _, err := messages.One(ctx, w.Svc, org.Member.ID, id, messages.OneRequest{})
		is.NoErr(err)                                                       // readable
		is.True(len(view.Content) > 700_000)                                // a large rendering under the cap is kept
		is.True(len(view.Content) <= chatcore.MaxRenderedLength)            // within the cap
		is.Equal(chatcore.MaxRenderedLength, 100*chatcore.MaxMessageLength) // Zulip's factor
	})
	t.Run("schedule", func(t *testing.T) {
		w, org := chattest.NewMessaging(t)
		wideLinkifier(t, w, org)
		_, err := scheduled.Create(ctx, w.Svc, org.Member.ID, scheduled.CreateRequest{
			Type: "direct", To: json.RawMessage(fmt.Sprintf("[%d]", org.Other.ID)), Content: over,
			DeliverAt: w.Clock.Current().Add(time.Hour)})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Unable to render message")
	})
	t.Run("scheduled delivery", func(t *testing.T) {
		is := is.New(t)
		w, org := chattest.NewMessaging(t)
		id, err := scheduled.Create(ctx, w.Svc, org.Member.ID, scheduled.CreateRequest{
			Type: "direct", To: json.RawMessage(fmt.Sprintf("[%d]", org.Other.ID)), Content: over,
			DeliverAt: w.Clock.Current().Add(time.Minute)})
		is.NoErr(err)            // small without linkifiers
		wideLinkifier(t, w, org) // the rendering grows past the cap before delivery
		w.Clock.Advance(2 * time.Minute)
		n, err := scheduled.DeliverDue(ctx, w.Svc)
		is.NoErr(err)  // delivery ran
		is.Equal(n, 0) // nothing delivered
		var row *chatcore.ScheduledMessage
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error { row, err = tx.ScheduledMessage(ctx, id); return err })
		is.True(row.Failed)                                      // the row failed
		is.Equal(row.FailureMessage, "Unable to render message") // with Zulip's reason
	})
}

// renderHookStore runs before once, at the start of the next write transaction:
// a change that lands between the rendering in a View and the write.
type renderHookStore struct {
	chatcore.Store
	before func()
}

func (s *renderHookStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	if f := s.before; f != nil {
		s.before = nil
		f()
	}
	return s.Store.Update(ctx, fn)
}

// TestRenderRecheckedInTransaction checks that a message rendered before its
// write transaction is rendered again when what the rendering used changed in
// between, and that the View's rendering is used when nothing did.
func TestRenderRecheckedInTransaction(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		content string
		change  func(tb testing.TB, w *chattest.World, org *chattest.Messaging)
		want    func(w *chattest.World, org *chattest.Messaging) string
	}{
		{"nothing changed", "#7 @**Othello**", func(testing.TB, *chattest.World, *chattest.Messaging) {},
			func(w *chattest.World, org *chattest.Messaging) string {
				return fmt.Sprintf(`<p>#7 <span class="user-mention" data-user-id="%d">@Othello</span></p>`, org.Other.ID)
			}},
		{"linkifier added", "#7", func(tb testing.TB, w *chattest.World, org *chattest.Messaging) {
			w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
				return tx.CreateLinkifier(ctx, &chatcore.Linkifier{RealmID: org.Realm.ID, Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://x.example/{id}"})
			})
		}, func(*chattest.World, *chattest.Messaging) string {
			return `<p><a href="https://x.example/7">#7</a></p>`
		}},
		{"mentioned user renamed", "@**Othello**", func(tb testing.TB, w *chattest.World, org *chattest.Messaging) {
			w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
				u, err := tx.User(ctx, org.Other.ID)
				if err != nil {
					return err
				}
				u.FullName = "Iago"
				return tx.UpdateUser(ctx, u)
			})
		}, func(*chattest.World, *chattest.Messaging) string { return "<p>@**Othello**</p>" }},
		{"mentioned user appears", "@**Yorick**", func(tb testing.TB, w *chattest.World, org *chattest.Messaging) {
			w.AddUser(tb, org.Realm, "Yorick", chatcore.RoleMember)
		}, func(*chattest.World, *chattest.Messaging) string { return "" }},
		{"linked channel renamed", "#**Verona**", func(tb testing.TB, w *chattest.World, org *chattest.Messaging) {
			w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
				st, err := tx.Stream(ctx, org.Public.ID)
				if err != nil {
					return err
				}
				st.Name = "Padua"
				return tx.UpdateStream(ctx, st)
			})
		}, func(*chattest.World, *chattest.Messaging) string { return "<p>#**Verona**</p>" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			w, org := chattest.NewMessaging(t)
			hs := &renderHookStore{Store: w.Base}
			svc := chatcore.New(hs, chatcore.WithClock(w.Clock))
			hs.before = func() { tc.change(t, w, org) }
			id, err := svc.SendMessage(ctx, org.Member.ID, chatcore.SendMessageRequest{
				Type: "private", To: new(fmt.Sprintf("[%d]", org.Other.ID)), Content: tc.content})
			is.NoErr(err) // sent
			view, _, err := messages.One(ctx, svc, org.Member.ID, id, messages.OneRequest{})
			is.NoErr(err) // readable
			want := tc.want(w, org)
			if want == "" { // rendered as a fresh rendering would now
				want, _, _ = renderFor(t, w, org, tc.content)
				is.True(strings.Contains(want, "user-mention")) // the new user is mentioned
			}
			is.Equal(view.Content, want) // the rendering matches the store at the write
		})
	}
}
