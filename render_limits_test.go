package chatcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// rlWideLinkifier adds a linkifier whose template is as long as allowed, so
// that each match of "#n" renders to a link of over 2,000 characters.
func rlWideLinkifier(tb testing.TB, e *mxEnv) {
	tb.Helper()
	tmpl := "https://x.example/" + strings.Repeat("a", chatcore.MaxLinkifierURLTemplateLength-len("https://x.example/{id}")) + "{id}"
	mxAddLinkifier(tb, e, `#(?P<id>[0-9])`, tmpl)
}

// TestRenderedSizeCap checks Zulip's cap on rendered HTML (100 x the content
// limit) on every path that renders content.
func TestRenderedSizeCap(t *testing.T) {
	ctx := context.Background()
	over := strings.Repeat("#1 ", 3000) // 3,000 links of ~2,000 characters: ~6 MB of HTML
	under := strings.Repeat("#1 ", 400) // ~0.8 MB of HTML
	t.Run("send", func(t *testing.T) {
		is := is.New(t)
		e := newMxEnv(t)
		rlWideLinkifier(t, e)
		topic := "t"
		_, err := e.svc.SendMessage(ctx, e.member.ID, chatcore.SendMessageRequest{
			Type: "stream", To: new(fmt.Sprint(e.public.ID)), Topic: &topic, Content: over})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Unable to render message")
		id := e.send(t, e.member, e.public, "t", under)
		view, _, err := e.svc.Message(ctx, e.member.ID, id)
		is.NoErr(err)                                                       // readable
		is.True(len(view.Content) > 700_000)                                // a large rendering under the cap is kept
		is.True(len(view.Content) <= chatcore.MaxRenderedLength)            // within the cap
		is.Equal(chatcore.MaxRenderedLength, 100*chatcore.MaxMessageLength) // Zulip's factor
	})
	t.Run("schedule", func(t *testing.T) {
		e := newMxEnv(t)
		rlWideLinkifier(t, e)
		_, err := e.svc.CreateScheduledMessage(ctx, e.member.ID, chatcore.CreateScheduledMessageRequest{
			Type: "direct", To: json.RawMessage(fmt.Sprintf("[%d]", e.other.ID)), Content: over,
			DeliverAt: e.now.Add(time.Hour)})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Unable to render message")
	})
	t.Run("scheduled delivery", func(t *testing.T) {
		is := is.New(t)
		e := newMxEnv(t)
		id, err := e.svc.CreateScheduledMessage(ctx, e.member.ID, chatcore.CreateScheduledMessageRequest{
			Type: "direct", To: json.RawMessage(fmt.Sprintf("[%d]", e.other.ID)), Content: over,
			DeliverAt: e.now.Add(time.Minute)})
		is.NoErr(err)         // small without linkifiers
		rlWideLinkifier(t, e) // the rendering grows past the cap before delivery
		e.now = e.now.Add(2 * time.Minute)
		n, err := e.svc.DeliverDue(ctx)
		is.NoErr(err)  // delivery ran
		is.Equal(n, 0) // nothing delivered
		var row *chatcore.ScheduledMessage
		e.write(t, func(tx chatcore.Tx) error { row, err = tx.ScheduledMessage(ctx, id); return err })
		is.True(row.Failed)                                      // the row failed
		is.Equal(row.FailureMessage, "Unable to render message") // with Zulip's reason
	})
}

// TestLinkifierBounds checks the bounds on URL templates and on the number of
// linkifiers of a realm: a clear BAD_REQUEST and nothing stored.
func TestLinkifierBounds(t *testing.T) {
	ctx := context.Background()
	t.Run("template length", func(t *testing.T) {
		is := is.New(t)
		e := newMxEnv(t)
		base := "https://x.example/{id}"
		for _, tc := range []struct {
			name string
			n    int // template length in characters
			ok   bool
		}{
			{"at the bound", chatcore.MaxLinkifierURLTemplateLength, true},
			{"one over", chatcore.MaxLinkifierURLTemplateLength + 1, false},
			{"far over", 500_000, false},
		} {
			tmpl := base + strings.Repeat("é", tc.n-len(base)) // é is one character, two bytes
			_, err := e.svc.AddLinkifier(ctx, e.admin.ID, fmt.Sprintf("#%s(?P<id>[0-9]+)", tc.name[:2]), tmpl)
			if tc.ok {
				is.NoErr(err) // accepted at the bound
				continue
			}
			msg := fmt.Sprintf("Ensure this value has at most %d characters (it has %d).", chatcore.MaxLinkifierURLTemplateLength, tc.n)
			ce := wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, msg)
			errs, _ := ce.Data["errors"].(map[string]any)
			is.Equal(errs["url_template"], []string{msg}) // under url_template
		}
		views, err := e.svc.Linkifiers(ctx, e.admin.ID)
		is.NoErr(err)           // listed
		is.Equal(len(views), 1) // only the one at the bound was stored
	})
	t.Run("linkifiers per realm", func(t *testing.T) {
		is := is.New(t)
		e := newMxEnv(t)
		e.write(t, func(tx chatcore.Tx) error {
			for i := range chatcore.MaxLinkifiersPerRealm {
				l := &chatcore.Linkifier{RealmID: e.realm.ID, Pattern: fmt.Sprintf("L%d-(?P<id>[0-9]+)", i),
					URLTemplate: "https://x.example/{id}", Order: i}
				if err := tx.CreateLinkifier(ctx, l); err != nil {
					return err
				}
			}
			return nil
		})
		_, err := e.svc.AddLinkifier(ctx, e.admin.ID, `#(?P<id>[0-9]+)`, "https://x.example/{id}")
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid,
			fmt.Sprintf("A realm may have at most %d linkifiers.", chatcore.MaxLinkifiersPerRealm))
		views, err := e.svc.Linkifiers(ctx, e.admin.ID)
		is.NoErr(err)                                        // listed
		is.Equal(len(views), chatcore.MaxLinkifiersPerRealm) // nothing added
		_, err = e.svc.AddLinkifier(ctx, e.stranger.ID, `#(?P<id>[0-9]+)`, "https://x.example/{id}")
		is.NoErr(err) // the bound is per realm
	})
}

// rlHookStore runs before once, at the start of the next write transaction:
// a change that lands between the rendering in a View and the write.
type rlHookStore struct {
	chatcore.Store
	before func()
}

func (s *rlHookStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
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
		change  func(tb testing.TB, e *mxEnv)
		want    func(e *mxEnv) string
	}{
		{"nothing changed", "#7 @**Othello**", func(testing.TB, *mxEnv) {},
			func(e *mxEnv) string {
				return fmt.Sprintf(`<p>#7 <span class="user-mention" data-user-id="%d">@Othello</span></p>`, e.other.ID)
			}},
		{"linkifier added", "#7", func(tb testing.TB, e *mxEnv) {
			e.write(tb, func(tx chatcore.Tx) error {
				return tx.CreateLinkifier(ctx, &chatcore.Linkifier{RealmID: e.realm.ID, Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://x.example/{id}"})
			})
		}, func(*mxEnv) string { return `<p><a href="https://x.example/7">#7</a></p>` }},
		{"mentioned user renamed", "@**Othello**", func(tb testing.TB, e *mxEnv) {
			e.write(tb, func(tx chatcore.Tx) error {
				u, err := tx.User(ctx, e.other.ID)
				if err != nil {
					return err
				}
				u.FullName = "Iago"
				return tx.UpdateUser(ctx, u)
			})
		}, func(*mxEnv) string { return "<p>@**Othello**</p>" }},
		{"mentioned user appears", "@**Yorick**", func(tb testing.TB, e *mxEnv) {
			e.createUser(tb, e.realm, "Yorick", chatcore.RoleMember)
		}, func(*mxEnv) string { return "" }},
		{"linked channel renamed", "#**Verona**", func(tb testing.TB, e *mxEnv) {
			e.write(tb, func(tx chatcore.Tx) error {
				st, err := tx.Stream(ctx, e.public.ID)
				if err != nil {
					return err
				}
				st.Name = "Padua"
				return tx.UpdateStream(ctx, st)
			})
		}, func(*mxEnv) string { return "<p>#**Verona**</p>" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			e := newMxEnv(t)
			hs := &rlHookStore{Store: e.mem}
			svc := chatcore.New(hs, chatcore.WithClock(chatcore.ClockFunc(func() time.Time { return e.now })))
			hs.before = func() { tc.change(t, e) }
			id, err := svc.SendMessage(ctx, e.member.ID, chatcore.SendMessageRequest{
				Type: "private", To: new(fmt.Sprintf("[%d]", e.other.ID)), Content: tc.content})
			is.NoErr(err) // sent
			view, _, err := svc.Message(ctx, e.member.ID, id)
			is.NoErr(err) // readable
			want := tc.want(e)
			if want == "" { // rendered as a fresh rendering would now
				want, _, _ = mxRender(t, e, tc.content)
				is.True(strings.Contains(want, "user-mention")) // the new user is mentioned
			}
			is.Equal(view.Content, want) // the rendering matches the store at the write
		})
	}
}
