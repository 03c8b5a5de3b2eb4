package httpadapter_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/matryer/is"
)

// rlRealm is the realm of the fixture's acme users.
const rlRealm chatcore.RealmID = 1

// TestRenderLimits checks, over HTTP, the bounds on linkifiers and Zulip's cap
// on rendered HTML: each is a 400 with a clear message and nothing stored.
func TestRenderLimits(t *testing.T) {
	addFilter := func(e *env, pattern, tmpl string) *response {
		return e.do(t, request{method: "POST", path: "/realm/filters", auth: &admin, enc: urlEncoded,
			params: params("pattern", pattern, "url_template", tmpl)})
	}
	countFilters := func(e *env) int {
		res := e.do(t, request{method: "GET", path: "/realm/linkifiers", auth: &admin})
		wantSuccess(t, res)
		list, _ := res.body["linkifiers"].([]any)
		return len(list)
	}
	t.Run("URL template length", func(t *testing.T) {
		is := is.New(t)
		e := newEnv(t, httpadapter.Options{})
		before := countFilters(e)
		n := 500_000
		res := addFilter(e, `#(?P<id>[0-9]+)`, "https://x.example/{id}"+strings.Repeat("a", n-len("https://x.example/{id}")))
		wantError(t, res, http.StatusBadRequest, "BAD_REQUEST",
			fmt.Sprintf("Ensure this value has at most %d characters (it has %d).", linkifiers.MaxURLTemplateLength, n))
		is.Equal(countFilters(e), before) // nothing stored
	})
	t.Run("linkifiers per realm", func(t *testing.T) {
		is := is.New(t)
		e := newEnv(t, httpadapter.Options{})
		ctx := context.Background()
		is.NoErr(e.w.Store.Update(ctx, func(tx chatcore.Tx) error { // fill the realm up to the bound
			have, err := tx.Linkifiers(ctx, rlRealm)
			if err != nil {
				return err
			}
			for i := len(have); i < linkifiers.MaxPerRealm; i++ {
				l := &chatcore.Linkifier{RealmID: rlRealm, Pattern: fmt.Sprintf("RL%d-(?P<id>[0-9]+)", i),
					URLTemplate: "https://x.example/{id}", Order: 1000 + i}
				if err := tx.CreateLinkifier(ctx, l); err != nil {
					return err
				}
			}
			return nil
		}))
		res := addFilter(e, `RLX(?P<id>[0-9]+)`, "https://x.example/{id}")
		wantError(t, res, http.StatusBadRequest, "BAD_REQUEST",
			fmt.Sprintf("A realm may have at most %d linkifiers.", linkifiers.MaxPerRealm))
		is.Equal(countFilters(e), linkifiers.MaxPerRealm) // nothing stored
	})
	t.Run("rendered size", func(t *testing.T) {
		is := is.New(t)
		e := newEnv(t, httpadapter.Options{})
		tmpl := "https://x.example/" + strings.Repeat("a", linkifiers.MaxURLTemplateLength-len("https://x.example/{id}")) + "{id}"
		wantSuccess(t, addFilter(e, `RL(?P<id>[0-9])`, tmpl))
		content := strings.Repeat("RL1 ", 2400) // 9,600 bytes rendering to ~5 MB
		scheduled := func() int {
			res := e.do(t, request{method: "GET", path: "/scheduled_messages", auth: &member})
			wantSuccess(t, res)
			list, _ := res.body["scheduled_messages"].([]any)
			return len(list)
		}
		before := scheduled()
		for _, path := range []string{"/messages", "/scheduled_messages"} {
			p := params("type", "direct", "to", "[14]", "content", content)
			if path == "/scheduled_messages" {
				p.Set("scheduled_delivery_timestamp", "4102444800") // 2100-01-01
			}
			res := e.do(t, request{method: "POST", path: path, auth: &member, enc: urlEncoded, params: p})
			wantError(t, res, http.StatusBadRequest, "BAD_REQUEST", "Unable to render message")
		}
		is.Equal(scheduled(), before) // nothing scheduled
	})
}
