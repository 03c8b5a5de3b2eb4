package linkifiers_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/matryer/is"
)

func TestAddLinkifierValidation(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	w.AddLinkifier(t, org.Admin, `#(?P<id>[0-9]+)`, "https://github.com/zulip/zulip/issues/{id}")
	for _, tc := range []struct {
		name, pattern, tmpl string
		field, msg          string
	}{
		{"blank pattern", "", "https://example.com", "pattern", "This field cannot be blank."},
		{"blank pattern after trimming", "   ", "https://example.com", "pattern", "This field cannot be blank."},
		{"blank template", "#x", "", "url_template", "This field cannot be blank."},
		{"unclosed group", "(foo", "https://example.com", "__all__", "Bad regular expression: missing ): (foo"},
		{"repeated repetition", "#(?P<id>[0-9]+)????", "https://example.com/{id}", "__all__", "Bad regular expression: bad repetition operator: ????"},
		{"missing bracket", "[a", "https://example.com", "__all__", "Bad regular expression: missing ]: [a"},
		{"unclosed expression", "#(?P<id>[0-9]+)", "{id", "url_template", "Invalid URL template."},
		{"unclosed expression after a URL", "#(?P<id>[0-9]+)", "https://example.com/{foo", "url_template", "Invalid URL template."},
		{"variable without a group", "#(?P<id>[0-9]+)", "https://example.com/{id}/{zzz}/{other}", "__all__",
			"Group 'other' in URL template is not present in linkifier pattern."},
		{"group without a variable", "(?P<b>[a-z]+)-(?P<a>[0-9]+)", "https://example.com/", "__all__",
			"Group 'a' in linkifier pattern is not present in URL template."},
		{"duplicate pattern", " #(?P<id>[0-9]+) ", "https://example.com/{id}", "__all__",
			"Realm filter with this Realm and Pattern already exists."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := linkifiers.Add(ctx, w.Svc, org.Admin.ID, tc.pattern, tc.tmpl)
			ce := chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tc.msg)
			errs, ok := ce.Data["errors"].(map[string]any)
			is.True(ok)                                // an errors map
			is.Equal(errs[tc.field], []string{tc.msg}) // the message under its field
			is.Equal(len(errs), 1)                     // nothing else
		})
	}
	t.Run("blank pattern and bad template report both fields", func(t *testing.T) {
		is := is.New(t)
		_, err := linkifiers.Add(ctx, w.Svc, org.Admin.ID, "", "{id")
		ce := chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "This field cannot be blank.")
		errs := ce.Data["errors"].(map[string]any)
		is.Equal(errs["pattern"], []string{"This field cannot be blank."}) // pattern first
		is.Equal(errs["url_template"], []string{"Invalid URL template."})  // and the template
	})
	for _, tc := range []struct{ name, pattern, tmpl string }{
		{"expansion operators", `(?P<a>x)(?P<b>y)(?P<x>z)(?P<d>w)(?P<f>v)`, "https://x/{?a,b}{/x}{.d}{#f:5}"},
		{"reserved expansion", `(?P<x>[a-z/]+)`, "https://x/{+x}"},
		{"not a URL at all", `\$x`, "$not_a_url$"},
		{"RE2 syntax", `(?i)jira-(?P<n>\d+)`, "https://jira/{n}"},
	} {
		t.Run("valid: "+tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := linkifiers.Add(ctx, w.Svc, org.Admin.ID, tc.pattern, tc.tmpl)
			is.NoErr(err) // accepted
		})
	}
	t.Run("not an administrator", func(t *testing.T) {
		_, err := linkifiers.Add(ctx, w.Svc, org.Member.ID, "", "")
		chattest.WantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization administrator")
	})
}

func TestLinkifierLifecycle(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	a := w.AddLinkifier(t, org.Admin, "  #(?P<id>[0-9]+)  ", "  https://example.com/{id}  ")
	b := w.AddLinkifier(t, org.Admin, `!(?P<id>[0-9]+)`, "https://example.com/mr/{id}")
	c := w.AddLinkifier(t, org.Admin, `\$(?P<id>[0-9]+)`, "https://example.com/c/{id}")
	other, err := linkifiers.Add(ctx, w.Svc, org.Stranger.ID, `#(?P<id>[0-9]+)`, "https://lear.example.com/{id}")
	is.NoErr(err) // the same pattern in another realm is fine

	list, err := linkifiers.List(ctx, w.Svc, org.Member.ID)
	is.NoErr(err) // any member may list
	is.Equal(list, []linkifiers.View{
		{ID: a, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://example.com/{id}"},
		{ID: b, Pattern: "!(?P<id>[0-9]+)", URLTemplate: "https://example.com/mr/{id}"},
		{ID: c, Pattern: `\$(?P<id>[0-9]+)`, URLTemplate: "https://example.com/c/{id}"},
	}) // trimmed, in creation order, this realm only

	is.NoErr(linkifiers.Reorder(ctx, w.Svc, org.Admin.ID, []chatcore.LinkifierID{c, a, b})) // reordered
	list, err = linkifiers.List(ctx, w.Svc, org.Member.ID)
	is.NoErr(err)                                                                                         // listed
	is.Equal([]chatcore.LinkifierID{list[0].ID, list[1].ID, list[2].ID}, []chatcore.LinkifierID{c, a, b}) // new order

	d := w.AddLinkifier(t, org.Admin, `%(?P<id>[0-9]+)`, "https://example.com/d/{id}")
	is.NoErr(linkifiers.Remove(ctx, w.Svc, org.Admin.ID, a)) // removed
	list, err = linkifiers.List(ctx, w.Svc, org.Member.ID)
	is.NoErr(err)                                                                                         // listed
	is.Equal([]chatcore.LinkifierID{list[0].ID, list[1].ID, list[2].ID}, []chatcore.LinkifierID{c, b, d}) // others keep their order, the new one last

	t.Run("remove errors", func(t *testing.T) {
		err := linkifiers.Remove(ctx, w.Svc, org.Admin.ID, a)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Linkifier not found.")
		err = linkifiers.Remove(ctx, w.Svc, org.Admin.ID, other)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Linkifier not found.")
		err = linkifiers.Remove(ctx, w.Svc, org.Member.ID, b)
		chattest.WantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization administrator")
		is := is.New(t)
		lear, err := linkifiers.List(ctx, w.Svc, org.Stranger.ID)
		is.NoErr(err)          // listed
		is.Equal(len(lear), 1) // the other realm's linkifier survived
	})
	t.Run("reorder errors", func(t *testing.T) {
		err := linkifiers.Reorder(ctx, w.Svc, org.Admin.ID, []chatcore.LinkifierID{c, b})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "The ordered list must enumerate all existing linkifiers exactly once")
		err = linkifiers.Reorder(ctx, w.Svc, org.Admin.ID, []chatcore.LinkifierID{c, b, other})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "The ordered list must enumerate all existing linkifiers exactly once")
		err = linkifiers.Reorder(ctx, w.Svc, org.Admin.ID, []chatcore.LinkifierID{c, c, b})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "The ordered list must not contain duplicated linkifiers")
		err = linkifiers.Reorder(ctx, w.Svc, org.Member.ID, []chatcore.LinkifierID{c, b, d})
		chattest.WantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization administrator")
	})
	t.Run("update", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(linkifiers.Update(ctx, w.Svc, org.Admin.ID, b, `!!(?P<n>[0-9]+)`, "https://example.com/n/{n}")) // updated
		list, err := linkifiers.List(ctx, w.Svc, org.Member.ID)
		is.NoErr(err)                                                                                                   // listed
		is.Equal(list[1], linkifiers.View{ID: b, Pattern: `!!(?P<n>[0-9]+)`, URLTemplate: "https://example.com/n/{n}"}) // in place
		err = linkifiers.Update(ctx, w.Svc, org.Admin.ID, b, `\$(?P<id>[0-9]+)`, "https://x/{id}")
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Realm filter with this Realm and Pattern already exists.")
		err = linkifiers.Update(ctx, w.Svc, org.Admin.ID, other, `x`, "https://x")
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Linkifier not found.")
	})
}

// linkifierCheckingSink records realm_linkifiers events together with what the store
// held when each was published.
type linkifierCheckingSink struct {
	store  chatcore.Store
	events []chatcore.Event
	stored [][]chatcore.Linkifier
}

func (s *linkifierCheckingSink) Publish(ctx context.Context, events []chatcore.Event) {
	for _, ev := range events {
		if ev.Data["type"] != "realm_linkifiers" {
			continue
		}
		var ls []chatcore.Linkifier
		_ = s.store.View(ctx, func(tx chatcore.Tx) error {
			var err error
			ls, err = tx.Linkifiers(ctx, ev.RealmID)
			return err
		})
		s.events = append(s.events, ev)
		s.stored = append(s.stored, ls)
	}
}

func TestLinkifierEventsAfterCommit(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	sink := &linkifierCheckingSink{store: w.Base}
	svc := chatcore.New(w.Base, chatcore.WithEventSink(sink))
	gone := w.AddUser(t, org.Realm, "Gone", chatcore.RoleMember)
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		gone.IsActive = false
		return tx.UpdateUser(ctx, gone)
	})

	a, err := linkifiers.Add(ctx, svc, org.Admin.ID, `#(?P<id>[0-9]+)`, "https://x/{id}")
	is.NoErr(err) // added
	b, err := linkifiers.Add(ctx, svc, org.Admin.ID, `!(?P<id>[0-9]+)`, "https://y/{id}")
	is.NoErr(err)                                                                      // added
	is.NoErr(linkifiers.Reorder(ctx, svc, org.Admin.ID, []chatcore.LinkifierID{b, a})) // reordered
	is.NoErr(linkifiers.Remove(ctx, svc, org.Admin.ID, b))                             // removed
	_, err = linkifiers.Add(ctx, svc, org.Admin.ID, "(", "https://x")
	is.True(err != nil)                                          // refused
	is.NoErr(linkifiers.Remove(ctx, svc, org.Admin.ID, a))       // the last one
	is.True(linkifiers.Remove(ctx, svc, org.Admin.ID, a) != nil) // already gone

	is.Equal(len(sink.events), 5) // one per successful change, none for failures
	last := sink.events[3]
	is.Equal(last.Data["realm_linkifiers"], []linkifiers.View{{ID: a, Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://x/{id}"}}) // the remaining list
	is.Equal(len(sink.stored[3]), 1)                                                                                               // published after the removal had committed
	reordered := sink.events[2].Data["realm_linkifiers"].([]linkifiers.View)
	is.Equal([]chatcore.LinkifierID{reordered[0].ID, reordered[1].ID}, []chatcore.LinkifierID{b, a}) // in the new order
	is.Equal(sink.events[4].Data["realm_linkifiers"], []linkifiers.View{})                           // empty list, not null
	for _, ev := range sink.events {
		is.Equal(ev.RealmID, org.Realm.ID)                     // the realm's event
		is.True(slices.Contains(ev.UserIDs, org.Member.ID))    // to active users
		is.True(slices.Contains(ev.UserIDs, org.Bot.ID))       // bots included
		is.True(!slices.Contains(ev.UserIDs, gone.ID))         // not to deactivated users
		is.True(!slices.Contains(ev.UserIDs, org.Stranger.ID)) // not to other realms
	}
}

// TestLinkifierURLTemplateRefused checks that malformed expressions are
// still refused with Zulip's message.
func TestLinkifierURLTemplateRefused(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	for _, tmpl := range []string{
		"https://x.example/{id",          // unclosed expression
		"https://x.example/id}",          // stray closing brace
		"https://x.example/{}{id}",       // empty expression
		"https://x.example/{=id}",        // reserved operator
		"https://x.example/{!id}",        // reserved operator
		"https://x.example/{|id}",        // reserved operator
		"https://x.example/{i d}",        // space in a name
		"https://x.example/{id-x}",       // dash in a name
		"https://x.example/{.id.}",       // trailing dot in a name
		"https://x.example/{id,}",        // empty varspec
		"https://x.example/{id:0}",       // zero prefix
		"https://x.example/{id:10000}",   // prefix too long
		"https://x.example/{id:x}",       // non-numeric prefix
		"https://x.example/{id{x}",       // brace inside an expression
		"https://x.example/{%zzid}",      // bad escape in a name
		"https://x.example/{id}{(oops)}", // parenthesis in a name
	} {
		t.Run(tmpl, func(t *testing.T) {
			is := is.New(t)
			_, err := linkifiers.Add(context.Background(), w.Svc, org.Admin.ID, `#(?P<id>[0-9]+)`, tmpl)
			ce := chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid URL template.")
			errs, ok := ce.Data["errors"].(map[string]any)
			is.True(ok)                                                       // an errors map
			is.Equal(errs["url_template"], []string{"Invalid URL template."}) // under url_template
		})
	}
}

// TestLinkifierBounds checks the bounds on URL templates and on the number of
// linkifiers of a realm: a clear BAD_REQUEST and nothing stored.
func TestLinkifierBounds(t *testing.T) {
	ctx := context.Background()
	t.Run("template length", func(t *testing.T) {
		is := is.New(t)
		w, org := chattest.NewMessaging(t)
		base := "https://x.example/{id}"
		for _, tc := range []struct {
			name string
			n    int // template length in characters
			ok   bool
		}{
			{"at the bound", linkifiers.MaxURLTemplateLength, true},
			{"one over", linkifiers.MaxURLTemplateLength + 1, false},
			{"far over", 500_000, false},
		} {
			tmpl := base + strings.Repeat("é", tc.n-len(base)) // é is one character, two bytes
			_, err := linkifiers.Add(ctx, w.Svc, org.Admin.ID, fmt.Sprintf("#%s(?P<id>[0-9]+)", tc.name[:2]), tmpl)
			if tc.ok {
				is.NoErr(err) // accepted at the bound
				continue
			}
			msg := fmt.Sprintf("Ensure this value has at most %d characters (it has %d).", linkifiers.MaxURLTemplateLength, tc.n)
			ce := chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, msg)
			errs, _ := ce.Data["errors"].(map[string]any)
			is.Equal(errs["url_template"], []string{msg}) // under url_template
		}
		views, err := linkifiers.List(ctx, w.Svc, org.Admin.ID)
		is.NoErr(err)           // listed
		is.Equal(len(views), 1) // only the one at the bound was stored
	})
	t.Run("linkifiers per realm", func(t *testing.T) {
		is := is.New(t)
		w, org := chattest.NewMessaging(t)
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			for i := range linkifiers.MaxPerRealm {
				l := &chatcore.Linkifier{RealmID: org.Realm.ID, Pattern: fmt.Sprintf("L%d-(?P<id>[0-9]+)", i),
					URLTemplate: "https://x.example/{id}", Order: i}
				if err := tx.CreateLinkifier(ctx, l); err != nil {
					return err
				}
			}
			return nil
		})
		_, err := linkifiers.Add(ctx, w.Svc, org.Admin.ID, `#(?P<id>[0-9]+)`, "https://x.example/{id}")
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid,
			fmt.Sprintf("A realm may have at most %d linkifiers.", linkifiers.MaxPerRealm))
		views, err := linkifiers.List(ctx, w.Svc, org.Admin.ID)
		is.NoErr(err)                                // listed
		is.Equal(len(views), linkifiers.MaxPerRealm) // nothing added
		_, err = linkifiers.Add(ctx, w.Svc, org.Stranger.ID, `#(?P<id>[0-9]+)`, "https://x.example/{id}")
		is.NoErr(err) // the bound is per realm
	})
}
