package httpadapter_test

// Bounds over HTTP: every list-valued or loop-driving parameter of every
// route has a bound, and a request over it is refused with a 400 naming the
// parameter before the Service opens any transaction (so it never holds the
// store's writer).

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

// newCountingEnv is newEnv over a chattest.CountingStore.
func newCountingEnv(tb testing.TB) (*env, *chattest.CountingStore) {
	tb.Helper()
	store := &chattest.CountingStore{Store: chattest.Memory(tb)}
	w, logs, logger := newWorld(tb, store, "testdata/fixture.json")
	return startAdapter(tb, w, logs, logger, httpadapter.Options{}), store
}

// jsonInts is a JSON list of n integers counting up from first.
func jsonInts(n, first int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(first + i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// emails is n distinct e-mails of the fixture's realm, joined by sep and
// quoted when quote is set.
func emails(n int, sep string, quote bool) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("user%d@acme.test", i)
		if quote {
			parts[i] = `"` + parts[i] + `"`
		}
	}
	return strings.Join(parts, sep)
}

// narrowOf is a narrow of n channel terms.
func narrowOf(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(`{"operator":"channel","operand":"general"},`, n), ",") + "]"
}

// bound is one list-valued or loop-driving parameter of a route: its bound
// and a request carrying n items.
type bound struct {
	name   string
	method string
	path   string
	auth   *cred
	limit  int
	params func(n int) url.Values
	msg    string // the refusal at limit+1
}

func bounds() []bound {
	future := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	return []bound{
		{"messages to: ids", "POST", "/messages", &member, chatcore.MaxDirectRecipients,
			func(n int) url.Values { return params("type", "private", "to", jsonInts(n, 100000), "content", "hi") },
			"to is too long (limit: 1000 items)"},
		{"messages to: e-mail list", "POST", "/messages", &member, chatcore.MaxDirectRecipients,
			func(n int) url.Values {
				return params("type", "direct", "to", "["+emails(n, ",", true)+"]", "content", "hi")
			},
			"to is too long (limit: 1000 items)"},
		{"messages to: comma-separated e-mails", "POST", "/messages", &member, chatcore.MaxDirectRecipients,
			func(n int) url.Values { return params("type", "private", "to", emails(n, ",", false), "content", "hi") },
			"to is too long (limit: 1000 items)"},
		{"messages to: channel list", "POST", "/messages", &member, 1,
			func(n int) url.Values {
				return params("type", "stream", "to", jsonInts(n, 61), "topic", "t", "content", "hi")
			},
			"Expected exactly one channel"},
		{"scheduled_messages to", "POST", "/scheduled_messages", &member, chatcore.MaxDirectRecipients,
			func(n int) url.Values {
				return params("type", "direct", "to", jsonInts(n, 100000), "content", "hi",
					"scheduled_delivery_timestamp", future)
			},
			"to is too long (limit: 1000 items)"},
		{"messages narrow terms", "GET", "/messages", &member, chatcore.MaxNarrowTerms,
			func(n int) url.Values { return params("narrow", narrowOf(n)) },
			"narrow is too long (limit: 100 items)"},
		{"messages narrow legacy pairs", "GET", "/messages", &member, chatcore.MaxNarrowTerms,
			func(n int) url.Values {
				return params("narrow", "["+strings.TrimSuffix(strings.Repeat(`["channel","general"],`, n), ",")+"]")
			},
			"narrow is too long (limit: 100 items)"},
		{"messages narrow dm operand", "GET", "/messages", &member, chatcore.MaxDirectRecipients,
			func(n int) url.Values {
				return params("narrow", `[{"operator":"dm","operand":`+jsonInts(n, 100000)+`}]`)
			},
			`narrow[0]["operand"] is too long (limit: 1000 items)`},
		{"messages narrow dm e-mails", "GET", "/messages", &member, chatcore.MaxDirectRecipients,
			func(n int) url.Values {
				return params("narrow", `[["channel","general"],["pm-with","`+emails(n, ",", false)+`"]]`)
			},
			`narrow[1]["operand"] is too long (limit: 1000 items)`},
		{"messages narrow sender operand", "GET", "/messages", &member, chatcore.MaxDirectRecipients,
			func(n int) url.Values {
				return params("narrow", `[{"operator":"sender","operand":`+jsonInts(n, 100000)+`}]`)
			},
			`narrow[0]["operand"] is too long (limit: 1000 items)`},
		{"messages num_before", "GET", "/messages", &member, chatcore.MaxMessagesPerFetch,
			func(n int) url.Values { return params("num_before", strconv.Itoa(n)) },
			"Too many messages requested (maximum 1000)."},
		{"messages num_after", "GET", "/messages", &member, chatcore.MaxMessagesPerFetch,
			func(n int) url.Values { return params("anchor", "oldest", "num_after", strconv.Itoa(n)) },
			"Too many messages requested (maximum 1000)."},
		{"messages message_ids", "GET", "/messages", &member, chatcore.MaxMessageIDs,
			func(n int) url.Values { return params("message_ids", jsonInts(n, 1)) },
			"Too many messages requested (maximum 5000)."},
		{"flags messages", "POST", "/messages/flags", &member, messages.MaxFlagMessages,
			func(n int) url.Values { return params("messages", jsonInts(n, 1), "op", "add", "flag", "starred") },
			"messages is too long (limit: 5000 items)"},
		{"flags narrow terms", "POST", "/messages/flags/narrow", &member, chatcore.MaxNarrowTerms,
			func(n int) url.Values {
				return params("anchor", "newest", "num_before", "1", "num_after", "0", "op", "add", "flag", "read", "narrow", narrowOf(n))
			},
			"narrow is too long (limit: 100 items)"},
		// POST /messages/flags/narrow has no bound on num_before and
		// num_after: it clamps them (TestHTTPFlagsNarrowClamps).
		{"users user_ids", "GET", "/users", &member, chatcore.MaxUserIDs,
			func(n int) url.Values { return params("user_ids", jsonInts(n, 100000)) },
			"user_ids is too long (limit: 1000 items)"},
		{"scheduled message edit to", "PATCH", "/scheduled_messages/1", &member, chatcore.MaxDirectRecipients,
			func(n int) url.Values { return params("type", "direct", "to", jsonInts(n, 100000)) },
			"to is too long (limit: 1000 items)"},
		{"linkifiers ordered_linkifier_ids", "PATCH", "/realm/linkifiers", &admin, chatcore.MaxOrderedLinkifierIDs,
			func(n int) url.Values { return params("ordered_linkifier_ids", jsonInts(n, 4001)) },
			"ordered_linkifier_ids is too long (limit: 10000 items)"},
		{"settings target_users user_ids", "PATCH", "/settings", &admin, accounts.MaxBulkTargetIDs,
			func(n int) url.Values {
				return params("target_users", `{"user_ids":`+jsonInts(n, 100000)+`,"skip_if_already_edited":false}`, "twenty_four_hour_time", "true")
			},
			`target_users["user_ids"] is too long (limit: 10000 items)`},
		{"settings target_users group_ids", "PATCH", "/settings", &admin, accounts.MaxBulkTargetIDs,
			func(n int) url.Values {
				return params("target_users", `{"group_ids":`+jsonInts(n, 100000)+`,"skip_if_already_edited":false}`, "twenty_four_hour_time", "true")
			},
			`target_users["group_ids"] is too long (limit: 10000 items)`},
		{"register event_types", "POST", "/register", &member, chatcore.MaxEventTypes,
			func(n int) url.Values {
				return params("event_types", `["`+strings.TrimSuffix(strings.Repeat(`realm","`, n), `","`)+`"]`)
			},
			"event_types is too long (limit: 1000 items)"},
		{"register fetch_event_types", "POST", "/register", &member, chatcore.MaxEventTypes,
			func(n int) url.Values {
				return params("fetch_event_types", `["`+strings.TrimSuffix(strings.Repeat(`realm","`, n), `","`)+`"]`)
			},
			"fetch_event_types is too long (limit: 1000 items)"},
		{"register narrow", "POST", "/register", &member, chatcore.MaxNarrowTerms,
			func(n int) url.Values {
				return params("narrow", "["+strings.TrimSuffix(strings.Repeat(`["channel","general"],`, n), ",")+"]")
			},
			"narrow is too long (limit: 100 items)"},
	}
}

// TestListParameterBounds sends every list-valued or loop-driving parameter
// at its bound plus one: each answers 400 with a message naming it, and runs
// no more transactions than a request the wire decoder refuses (the
// authentication's). At the bound, the same request is not refused for its
// length.
func TestListParameterBounds(t *testing.T) {
	e, store := newCountingEnv(t)
	before := store.Count()
	res := e.do(t, request{method: "GET", path: "/messages", auth: &member, params: params("num_before", "x")})
	wantError(t, res, http.StatusBadRequest, "BAD_REQUEST", "num_before is not valid JSON")
	after := store.Count()
	baseline := chattest.TxCount{Views: after.Views - before.Views, Updates: after.Updates - before.Updates}
	for _, b := range bounds() {
		t.Run(b.name, func(t *testing.T) {
			for _, enc := range []encoding{urlEncoded, multiPart} {
				t.Run(enc.String(), func(t *testing.T) {
					is := is.New(t)
					before := store.Count()
					res := e.do(t, request{method: b.method, path: b.path, auth: b.auth, enc: enc, params: b.params(b.limit + 1)})
					after := store.Count()
					wantError(t, res, http.StatusBadRequest, "BAD_REQUEST", b.msg)
					is.Equal(chattest.TxCount{Views: after.Views - before.Views, Updates: after.Updates - before.Updates}, baseline) // no transaction beyond authentication

					res = e.do(t, request{method: b.method, path: b.path, auth: b.auth, enc: enc, params: b.params(b.limit)})
					is.True(res.body["msg"] != b.msg) // at the bound, the length is accepted
				})
			}
		})
	}
}

// TestDirectRecipientsDeduplicated sends a direct message whose "to" repeats
// one recipient up to the bound: it counts once.
func TestDirectRecipientsDeduplicated(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	to := "[" + strings.TrimSuffix(strings.Repeat("13,", chatcore.MaxDirectRecipients), ",") + "]"
	res := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
		params: params("type", "private", "to", to, "content", "dedup")})
	wantSuccess(t, res)
	id := num(t, res.body["id"])
	res = e.do(t, request{method: "GET", path: fmt.Sprintf("/messages/%d", id), auth: &member})
	wantSuccess(t, res)
	msg, _ := res.body["message"].(map[string]any)
	recips, _ := msg["display_recipient"].([]any)
	is.Equal(len(recips), 2) // the sender and the one recipient
}

// BenchmarkDirectRecipientsAtBound measures POST /messages with "to" at
// MaxDirectRecipients ids (all unknown, so each must be resolved: the
// request is refused only after the lookup) and at the bound plus one
// (refused before any store access).
func BenchmarkDirectRecipientsAtBound(b *testing.B) {
	e := newEnv(b, httpadapter.Options{})
	for _, n := range []int{chatcore.MaxDirectRecipients, chatcore.MaxDirectRecipients + 1} {
		p := params("type", "private", "to", jsonInts(n, 100000), "content", "hi")
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				res := e.do(b, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded, params: p})
				if res.status != http.StatusBadRequest {
					b.Fatalf("status %d: %s", res.status, res.raw)
				}
			}
		})
	}
}

// TestOutOfRangeNumbers sends numbers outside what a parameter can hold: each
// gets a 400 that names the parameter (or Zulip's own text for it), never an
// overflow into another answer.
func TestOutOfRangeNumbers(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	scheduled := func(ts string) url.Values {
		return params("type", "direct", "to", "[13]", "content", "x", "scheduled_delivery_timestamp", ts)
	}
	reminder := func(ts string) url.Values { return params("message_id", "1001", "scheduled_delivery_timestamp", ts) }
	for _, tt := range []struct {
		name   string
		method string
		path   string
		params url.Values
		msg    string
	}{
		{"scheduled at max int64", "POST", "/scheduled_messages", scheduled("9223372036854775807"), "scheduled_delivery_timestamp is too large"},
		{"scheduled past int64", "POST", "/scheduled_messages", scheduled("9223372036854775808"), "scheduled_delivery_timestamp is too large"},
		{"scheduled in year 10000", "POST", "/scheduled_messages", scheduled("253402300800"), "scheduled_delivery_timestamp is too large"},
		{"scheduled at min int64", "POST", "/scheduled_messages", scheduled("-9223372036854775808"), "scheduled_delivery_timestamp is too small"},
		{"scheduled before year 1", "POST", "/scheduled_messages", scheduled("-62135596801"), "scheduled_delivery_timestamp is too small"},
		{"scheduled in the past", "POST", "/scheduled_messages", scheduled("0"), "Scheduled delivery time must be in the future."},
		{"reminder at max int64", "POST", "/reminders", reminder("9223372036854775807"), "scheduled_delivery_timestamp is too large"},
		{"reminder at min int64", "POST", "/reminders", reminder("-9223372036854775808"), "scheduled_delivery_timestamp is too small"},
		{"reminder message_id", "POST", "/reminders", params("message_id", "99999999999999999999", "scheduled_delivery_timestamp", "1"), "message_id is too large"},
		{"scheduled to", "POST", "/scheduled_messages",
			params("type", "direct", "to", "[99999999999999999999]", "content", "x", "scheduled_delivery_timestamp", "4102444800"), "to is not an integer"},
		{"num_before", "GET", "/messages", params("num_before", "99999999999999999999"), "num_before is too large"},
		{"num_after", "GET", "/messages", params("num_after", "-99999999999999999999"), "num_after is too small"},
		// anchor is not here: Zulip clamps an out-of-range anchor (see TestMessagesRangeEdges).
		{"message to", "POST", "/messages", params("type", "private", "to", "[99999999999999999999]", "content", "x"), "Invalid data type for recipients"},
		{"channel to", "POST", "/messages", params("type", "stream", "to", "99999999999999999999", "topic", "t", "content", "x"), "Invalid data type for channel"},
		{"ordered_linkifier_ids", "PATCH", "/realm/linkifiers", params("ordered_linkifier_ids", "[99999999999999999999]"), "ordered_linkifier_ids[0] is too large"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			auth := &member
			if tt.method == "PATCH" {
				auth = &admin
			}
			res := e.do(t, request{method: tt.method, path: tt.path, auth: auth, enc: urlEncoded, params: tt.params})
			wantError(t, res, http.StatusBadRequest, "BAD_REQUEST", tt.msg)
		})
	}
}

// TestGetMessageApplyMarkdown reads one message with apply_markdown absent,
// true and false: rendered HTML unless it is false, then the raw Markdown,
// as Zulip answers; raw_content is the Markdown in every case.
func TestGetMessageApplyMarkdown(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	for _, tt := range []struct {
		name        string
		params      url.Values
		content     string
		contentType string
	}{
		{"absent", nil, "<p>Pizza at <strong>noon</strong>?</p>", "text/html"},
		{"true", params("apply_markdown", "true"), "<p>Pizza at <strong>noon</strong>?</p>", "text/html"},
		{"false", params("apply_markdown", "false"), "Pizza at **noon**?", "text/x-markdown"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			res := e.do(t, request{method: "GET", path: "/messages/1001", auth: &member, params: tt.params})
			wantSuccess(t, res)
			msg, _ := res.body["message"].(map[string]any)
			is.Equal(msg["content"], tt.content)                    // content in the asked format
			is.Equal(msg["content_type"], tt.contentType)           // and its type
			is.Equal(res.body["raw_content"], "Pizza at **noon**?") // raw_content is always the Markdown
			is.Equal(len(ignoredOf(res)), 0)                        // apply_markdown is honoured, not ignored
		})
	}
	t.Run("not a boolean", func(t *testing.T) {
		res := e.do(t, request{method: "GET", path: "/messages/1001", auth: &member, params: params("apply_markdown", "no")})
		wantError(t, res, http.StatusBadRequest, "BAD_REQUEST", "apply_markdown is not valid JSON")
	})
}
