package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// postTo sends a channel message to general's topic as member and returns its id.
func postTo(t *testing.T, e *env, topic, content string) int64 {
	t.Helper()
	res := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
		params: params("type", "stream", "to", "general", "topic", topic, "content", content)})
	wantSuccess(t, res)
	return num(t, res.body["id"])
}

// searchMessages returns GET /messages with the narrow as member sees it, by id.
func searchMessages(t *testing.T, e *env, narrow string) map[int64]map[string]any {
	t.Helper()
	res := e.do(t, request{method: "GET", path: "/messages", auth: &member,
		params: params("anchor", "newest", "num_before", "100", "num_after", "0", "narrow", narrow)})
	wantSuccess(t, res)
	return messagesByID(t, res.body)
}

// messagesByID returns the messages of a GET /messages answer by id.
func messagesByID(t *testing.T, body map[string]any) map[int64]map[string]any {
	t.Helper()
	out := map[int64]map[string]any{}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm := m.(map[string]any)
		out[num(t, mm["id"])] = mm
	}
	return out
}

func TestHTTPSearch(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			meeting := postTo(t, e, "meetings", "discuss lunch after lunch")
			plans := postTo(t, e, "lunch plans", "I am hungry!")
			link := postTo(t, e, "links", "https://google.com")
			dinner := postTo(t, e, "dinner", "I love Wisconsin dinners")

			// Zulip's test_get_messages_with_search: the same messages, the same highlighting.
			got := searchMessages(t, e, `[{"operator":"sender","operand":"member@acme.test"},{"operator":"search","operand":"lunch"}]`)
			is.Equal(len(got), 3) // meetings, lunch plans and the fixture's topic "lunch"
			is.Equal(got[meeting]["match_content"], `<p>discuss <span class="highlight">lunch</span> after <span class="highlight">lunch</span></p>`)
			is.Equal(got[meeting]["match_subject"], "meetings")
			is.Equal(got[plans]["match_content"], "<p>I am hungry!</p>")
			is.Equal(got[plans]["match_subject"], `<span class="highlight">lunch</span> plans`)
			is.Equal(got[1001]["match_subject"], `<span class="highlight">lunch</span>`) // a topic match

			got = searchMessages(t, e, `[{"operator":"search","operand":"https://google.com"}]`)
			is.Equal(len(got), 1) // the link's text
			is.Equal(got[link]["match_content"], `<p><a href="https://google.com">https://<span class="highlight">google.com</span></a></p>`)

			got = searchMessages(t, e, `[{"operator":"search","operand":"dinner"}]`)
			is.Equal(len(got), 1) // stemmed: dinners
			is.Equal(got[dinner]["match_content"], `<p>I love Wisconsin <span class="highlight">dinners</span></p>`)
			is.Equal(got[dinner]["match_subject"], `<span class="highlight">dinner</span>`)

			got = searchMessages(t, e, `[{"operator":"search","operand":"discuss"},{"operator":"search","operand":"after"}]`)
			is.Equal(len(got), 1) // several search terms are one search; "after" is a stop word
			_, ok := got[meeting]
			is.True(ok) // the meeting

			got = searchMessages(t, e, `[{"operator":"search","operand":"\"after lunch\""}]`)
			is.Equal(len(got), 1) // a phrase
			got = searchMessages(t, e, `[{"operator":"search","operand":"\"lunch after lunch discuss\""}]`)
			is.Equal(len(got), 0) // not as written

			got = searchMessages(t, e, `[{"operator":"channel","operand":"general"},{"operator":"search","operand":"lunch","negated":true}]`)
			_, ok = got[meeting]
			is.True(!ok)          // negated search
			is.True(len(got) > 3) // the others
			_, ok = got[dinner]
			is.True(ok) // dinner stays
			_, hasMatch := got[dinner]["match_content"]
			is.True(hasMatch) // a search narrow, negated or not, adds match_content

			got = searchMessages(t, e, fmt.Sprintf(`[{"operator":"id","operand":%d}]`, plans))
			is.Equal(len(got), 1) // id
			_, hasMatch = got[plans]["match_content"]
			is.True(!hasMatch) // no search: no match fields
			got = searchMessages(t, e, fmt.Sprintf(`[{"operator":"channel","operand":"general"},{"operator":"id","operand":"%d","negated":true},{"operator":"topic","operand":"doomed","negated":true},{"operator":"sender","operand":12,"negated":true}]`, plans))
			_, ok = got[plans]
			is.True(!ok) // negated id
			_, ok = got[1002]
			is.True(!ok) // negated topic
			_, ok = got[1003]
			is.True(!ok) // negated topic, case-insensitive; negated sender
			_, ok = got[meeting]
			is.True(ok) // the rest stays
			got = searchMessages(t, e, `[{"operator":"is","operand":"dm","negated":true},{"operator":"in","operand":"all"},{"operator":"channels","operand":"public"}]`)
			_, ok = got[1004]
			is.True(!ok) // not a direct message
			_, ok = got[meeting]
			is.True(ok) // channel messages

			res := e.do(t, request{method: "GET", path: "/messages/matches_narrow", auth: &member,
				params: params("msg_ids", fmt.Sprintf("[%d,%d,%d]", meeting, plans, dinner), "narrow", `[{"operator":"search","operand":"lunch"}]`)})
			wantSuccess(t, res)
			matches, _ := res.body["messages"].(map[string]any)
			is.Equal(len(matches), 2) // dinner does not match
			m, _ := matches[fmt.Sprint(meeting)].(map[string]any)
			is.Equal(m["match_content"], `<p>discuss <span class="highlight">lunch</span> after <span class="highlight">lunch</span></p>`)
			is.Equal(m["match_subject"], "meetings")
			res = e.do(t, request{method: "GET", path: "/messages/matches_narrow", auth: &member,
				params: params("msg_ids", fmt.Sprintf("[%d,1101]", dinner), "narrow", `[{"operator":"sender","operand":"member@acme.test"}]`)})
			wantSuccess(t, res)
			matches, _ = res.body["messages"].(map[string]any)
			is.Equal(len(matches), 1) // another realm's message never matches
			m, _ = matches[fmt.Sprint(dinner)].(map[string]any)
			is.Equal(m["match_content"], "<p>I love Wisconsin dinners</p>") // without search: the rendered content
			is.Equal(m["match_subject"], "dinner")

			res = e.do(t, request{method: "POST", path: "/messages/flags/narrow", auth: &member, enc: urlEncoded,
				params: params("anchor", "oldest", "num_before", "0", "num_after", "100", "narrow", `[{"operator":"search","operand":"lunch"}]`, "op", "add", "flag", "starred")})
			wantSuccess(t, res)
			is.Equal(num(t, res.body["processed_count"]), int64(3)) // the three lunch messages
			got = searchMessages(t, e, `[{"operator":"is","operand":"starred"}]`)
			is.Equal(len(got), 3) // starred by the search narrow

			for _, c := range []struct{ narrow, msg string }{
				{`[{"operator":"search","operand":""}]`, "operand cannot be blank."},
				{`[{"operator":"id","operand":"abc"}]`, "Invalid narrow operator: Invalid message ID"},
				{`[{"operator":"in","operand":"nowhere"}]`, "Invalid narrow operator: unknown 'in' operand nowhere"},
				{`[{"operator":"channels","operand":"private"}]`, "Invalid narrow operator: unknown channels operand private"},
				{`[{"operator":"is","operand":"odd","negated":true}]`, "Invalid narrow operator: unknown 'is' operand odd"},
				{`[{"operator":"has","operand":"odd","negated":true}]`, "Invalid narrow operator: unknown 'has' operand odd"},
				{`[{"operator":"channel","operand":"nope","negated":true}]`, "Invalid narrow operator: unknown channel"},
			} {
				res := e.do(t, request{method: "GET", path: "/messages", auth: &member,
					params: params("anchor", "newest", "num_before", "10", "num_after", "0", "narrow", c.narrow)})
				code := "BAD_NARROW"
				if c.msg == "operand cannot be blank." {
					code = "BAD_REQUEST"
				}
				wantError(t, res, http.StatusBadRequest, code, c.msg)
			}
			_ = json.Valid
		})
	}
}

// TestHTTPSearchZulipTerminal sends zulip-terminal's search request as its
// model builds it (Model.get_messages after set_search_narrow, through the
// Python client, which sends every non-string value JSON-encoded): the
// narrow in the legacy list form, the anchor a number above every id.
func TestHTTPSearchZulipTerminal(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			meeting := postTo(t, e, "meetings", "discuss lunch after lunch")
			dinner := postTo(t, e, "dinner", "I love Wisconsin dinners")
			terminal := func(narrow string) (map[string]any, map[int64]map[string]any) {
				t.Helper()
				res := e.do(t, request{method: "GET", path: "/messages", auth: &member, params: params(
					"anchor", "10000000000", "num_before", "30", "num_after", "0", "apply_markdown", "true",
					"use_first_unread_anchor", "false", "client_gravatar", "true", "narrow", narrow)})
				wantSuccess(t, res)
				return res.body, messagesByID(t, res.body)
			}
			body, got := terminal(`[["search", "lunch"]]`)
			// found_newest, which the client reads to stop loading: false, as
			// Zulip answers, since the anchor is below Zulip's "newest" and
			// no message after it was asked for.
			is.Equal(body["found_newest"], false)
			is.Equal(num(t, body["anchor"]), int64(10000000000))
			is.True(len(got) >= 2) // the meeting and the fixture's "lunch" topic
			is.Equal(got[meeting]["match_content"], `<p>discuss <span class="highlight">lunch</span> after <span class="highlight">lunch</span></p>`)
			is.Equal(got[meeting]["match_subject"], "meetings")
			_, ok := got[dinner]
			is.True(!ok) // no lunch at dinner

			// A search within the channel the client is narrowed to.
			_, got = terminal(`[["stream", "general"], ["search", "dinner"]]`)
			is.Equal(len(got), 1) // stemmed: dinners
			is.Equal(got[dinner]["match_content"], `<p>I love Wisconsin <span class="highlight">dinners</span></p>`)
			is.Equal(got[dinner]["match_subject"], `<span class="highlight">dinner</span>`)
		})
	}
}
