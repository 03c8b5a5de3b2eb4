package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

func init() {
	for route, why := range map[string]string{
		"POST /api/v1/user_topics":                             "not in the served excerpt; TestHTTPUserTopics checks its answers, errors and events",
		"POST /api/v1/users/me/{collection}/{muted_user_id}":   "not in the served excerpt; TestHTTPMutedUsers checks its answers, errors and events",
		"DELETE /api/v1/users/me/{collection}/{muted_user_id}": "not in the served excerpt; TestHTTPMutedUsers checks its answers, errors and events",
		"POST /api/v1/users/me/status":                         "not in the served excerpt; TestHTTPUserStatus checks its answers, errors and events",
		"GET /api/v1/users/{user_id}/status":                   "not in the served excerpt; TestHTTPUserStatus checks its answers and errors",
		"GET /api/v1/users/me/alert_words":                     "not in the served excerpt; TestHTTPAlertWords checks its answers",
		"POST /api/v1/users/me/alert_words":                    "not in the served excerpt; TestHTTPAlertWords checks its answers, errors and events",
		"DELETE /api/v1/users/me/alert_words":                  "not in the served excerpt; TestHTTPAlertWords checks its answers and events",
	} {
		notDescribed[route] = why
	}
}

// pending returns the events waiting in queue for c (none acknowledged).
func pending(tb testing.TB, e *env, c *cred, queue string) []map[string]any {
	tb.Helper()
	res := e.do(tb, request{method: "GET", path: "/events", auth: c, enc: inQuery, params: params("queue_id", queue, "last_event_id", "-1", "dont_block", "true")})
	wantSuccess(tb, res)
	checkServedEvents(tb, res)
	var out []map[string]any
	for _, ev := range res.body["events"].([]any) {
		if m := ev.(map[string]any); m["type"] != "heartbeat" {
			out = append(out, m)
		}
	}
	return out
}

// checkServedEvents validates the events of the served excerpt's event
// types against it (user_topic, muted_topics, muted_users and user_status
// are not in it; their shapes are checked field by field by the tests).
func checkServedEvents(tb testing.TB, res *response) {
	tb.Helper()
	keep := []any{}
	for _, ev := range res.body["events"].([]any) {
		switch ev.(map[string]any)["type"] {
		case "alert_words", "message", "update_message_flags", "user_settings":
			keep = append(keep, ev)
		}
	}
	ans := map[string]any{"result": "success", "msg": "", "events": keep}
	if q, ok := res.body["queue_id"]; ok {
		ans["queue_id"] = q
	}
	body, err := json.Marshal(ans)
	if err != nil {
		tb.Fatal(err)
	}
	checkServed(tb, "GET", "/events", &response{status: 200, header: res.header, raw: body})
}

// fetchState registers without a queue for c, asking for the sections, and
// checks the answer against the served excerpt.
func fetchState(tb testing.TB, e *env, c *cred, sections ...string) map[string]any {
	tb.Helper()
	list, _ := json.Marshal(sections)
	res := e.do(tb, request{method: "POST", path: "/register", auth: c, enc: urlEncoded, params: params("fetch_event_types", string(list), "event_types", string(list))})
	wantSuccess(tb, res)
	checkServed(tb, "POST", "/register", res)
	return res.body
}

// sendTo posts content to topic of general as c and returns the id.
func sendTo(tb testing.TB, e *env, c *cred, topic, content string) int64 {
	tb.Helper()
	res := e.do(tb, request{method: "POST", path: "/messages", auth: c, enc: urlEncoded,
		params: params("type", "stream", "to", "general", "topic", topic, "content", content)})
	wantSuccess(tb, res)
	return num(tb, res.body["id"])
}

// narrowIDs returns the ids GET /messages gives c for the narrow.
func narrowIDs(tb testing.TB, e *env, c *cred, narrow string) []int64 {
	tb.Helper()
	res := e.do(tb, request{method: "GET", path: "/messages", auth: c, enc: inQuery,
		params: params("anchor", "newest", "num_before", "100", "num_after", "0", "narrow", narrow)})
	wantSuccess(tb, res)
	checkServed(tb, "GET", "/messages", res)
	ids := []int64{}
	for _, m := range res.body["messages"].([]any) {
		ids = append(ids, num(tb, m.(map[string]any)["id"]))
	}
	return ids
}

func setTopic(tb testing.TB, e *env, c *cred, topic string, policy int) *response {
	tb.Helper()
	return e.do(tb, request{method: "POST", path: "/user_topics", auth: c, enc: urlEncoded,
		params: params("stream_id", "61", "topic", topic, "visibility_policy", strconv.Itoa(policy))})
}

func TestHTTPUserTopics(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			is := is.New(t)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			oq := registerQueue(t, e, &owner, "event_types", `["user_topic"]`)
			work := sendTo(t, e, &owner, "work", "standup")
			lunch := sendTo(t, e, &owner, "Lunch", "more pizza")
			evs := pending(t, e, &owner, oq)
			is.Equal(len(evs), 1) // the owner started work and follows it (automatically_follow_topics_policy 3, the default) …
			is.Equal(evs[0]["topic_name"], "work")
			is.Equal(num(t, evs[0]["visibility_policy"]), int64(3)) // … but not Lunch, which the fixture's lunch started
			both := registerQueue(t, e, &member, "event_types", `["user_topic","muted_topics"]`)
			legacy := registerQueue(t, e, &member, "event_types", `["muted_topics"]`)
			others := registerQueue(t, e, &owner, "event_types", `["user_topic","muted_topics"]`)

			wantSuccess(t, setTopic(t, e, &member, "lunch", 1)) // mute (the topic by its key)
			evs = pending(t, e, &member, both)
			is.Equal(len(evs), 1) // user_topic only: muted_topics is left out beside it
			ev := evs[0]
			is.Equal(ev["type"], "user_topic")
			is.Equal(num(t, ev["stream_id"]), int64(61))
			is.Equal(ev["topic_name"], "lunch")
			is.Equal(num(t, ev["visibility_policy"]), int64(1))
			is.True(num(t, ev["last_updated"]) > 0)
			is.Equal(len(ev), 6) // id, type, stream_id, topic_name, last_updated, visibility_policy
			evs = pending(t, e, &member, legacy)
			is.Equal(len(evs), 1) // the legacy event for a client without user_topic
			is.Equal(evs[0]["type"], "muted_topics")
			list := evs[0]["muted_topics"].([]any)
			is.Equal(len(list), 1)
			entry := list[0].([]any)
			is.Equal(entry[0], "general") // [channel name, topic, timestamp]
			is.Equal(entry[1], "lunch")
			is.Equal(len(pending(t, e, &owner, others)), 0) // nobody else hears of it

			wantSuccess(t, setTopic(t, e, &member, "LUNCH", 1))
			is.Equal(len(pending(t, e, &member, both)), 1) // the same policy again: no new event

			st := fetchState(t, e, &member, "user_topic")
			rows := st["user_topics"].([]any)
			is.Equal(len(rows), 1)
			row := rows[0].(map[string]any)
			is.Equal(len(row), 4) // stream_id, topic_name, last_updated, visibility_policy
			is.Equal([]any{num(t, row["stream_id"]), row["topic_name"], num(t, row["last_updated"]), num(t, row["visibility_policy"])},
				[]any{int64(61), "lunch", num(t, ev["last_updated"]), int64(1)})
			is.True(st["muted_topics"] == nil) // not asked for
			st = fetchState(t, e, &member, "muted_topics")
			is.Equal(len(st["muted_topics"].([]any)), 1)
			st = fetchState(t, e, &member, "user_topic", "muted_topics")
			is.True(st["muted_topics"] == nil) // left out beside user_topic, as Zulip

			// Narrows: the fixture's lunch (1001) and the owner's Lunch are muted.
			is.Equal(narrowIDs(t, e, &member, `[{"operator":"is","operand":"muted"}]`), []int64{1001, lunch})
			home := narrowIDs(t, e, &member, `[{"operator":"in","operand":"home"}]`)
			is.True(!slices.Contains(home, lunch) && !slices.Contains(home, 1001) && slices.Contains(home, work) && slices.Contains(home, 1004))
			// Negated, each is the other: -in:home is what is:muted keeps.
			is.Equal(narrowIDs(t, e, &member, `[{"operator":"in","operand":"home","negated":true}]`), []int64{1001, lunch})
			is.Equal(narrowIDs(t, e, &member, `[{"operator":"is","operand":"muted","negated":true}]`), home)
			is.Equal(narrowIDs(t, e, &member, `[{"operator":"is","operand":"followed"}]`), []int64{})
			wantSuccess(t, setTopic(t, e, &member, "work", 3))
			is.Equal(narrowIDs(t, e, &member, `[{"operator":"is","operand":"followed"}]`), []int64{work})
			home = narrowIDs(t, e, &member, `[{"operator":"channel","operand":61},{"operator":"in","operand":"home"}]`)
			is.Equal(home, []int64{1002, 1003, work}) // the channel's messages but the muted topic's
			// Terms combine: every one holds, in either order.
			inHome, isMuted, isFollowed := `{"operator":"in","operand":"home"}`, `{"operator":"is","operand":"muted"}`, `{"operator":"is","operand":"followed"}`
			is.Equal(narrowIDs(t, e, &member, "["+inHome+","+isMuted+"]"), []int64{})        // in:home and is:muted: nothing
			is.Equal(narrowIDs(t, e, &member, "["+isMuted+","+inHome+"]"), []int64{})        // the same the other way round
			is.Equal(narrowIDs(t, e, &member, "["+isFollowed+","+inHome+"]"), []int64{work}) // a followed topic is in home
			is.Equal(narrowIDs(t, e, &member, "["+isMuted+","+isFollowed+"]"), []int64{})    // never both muted and followed
			is.Equal(narrowIDs(t, e, &member, "["+isFollowed+","+isMuted+"]"), []int64{})    // in either order

			// Unread counts leave the muted topic out but list it.
			st = fetchState(t, e, &member, "message", "update_message_flags")
			unread := st["unread_msgs"].(map[string]any)
			listed, mutedIDs := 0, 0
			for _, s := range unread["streams"].([]any) {
				n := len(s.(map[string]any)["unread_message_ids"].([]any))
				listed += n
				if strings.EqualFold(s.(map[string]any)["topic"].(string), "lunch") {
					mutedIDs += n
				}
			}
			for _, s := range unread["pms"].([]any) {
				listed += len(s.(map[string]any)["unread_message_ids"].([]any))
			}
			is.True(mutedIDs > 0)                                     // the muted topic is listed …
			is.Equal(num(t, unread["count"]), int64(listed-mutedIDs)) // … but not counted

			// A move of the whole topic carries the policy.
			brunch := sendTo(t, e, &owner, "brunch", "eggs")
			sendTo(t, e, &owner, "brunch", "more eggs")
			wantSuccess(t, setTopic(t, e, &member, "brunch", 1))
			wantSuccess(t, setTopic(t, e, &member, "lunch", 0)) // inherit: the row goes
			res := e.do(t, request{method: "PATCH", path: fmt.Sprintf("/messages/%d", brunch), auth: &owner, enc: urlEncoded,
				params: params("topic", "dinner", "propagate_mode", "change_all", "send_notification_to_old_thread", "false", "send_notification_to_new_thread", "false")})
			wantSuccess(t, res)
			st = fetchState(t, e, &member, "user_topic")
			names := map[string]int64{}
			for _, r := range st["user_topics"].([]any) {
				names[r.(map[string]any)["topic_name"].(string)] = num(t, r.(map[string]any)["visibility_policy"])
			}
			is.Equal(names, map[string]int64{"dinner": 1, "work": 3}) // brunch's policy moved to dinner

			// Starting a topic follows it; writing in someone else's topic
			// does not.
			q := registerQueue(t, e, &member, "event_types", `["user_topic"]`)
			sendTo(t, e, &member, "fresh", "a new topic")
			sendTo(t, e, &member, "work", "a reply")
			evs = pending(t, e, &member, q)
			is.Equal(len(evs), 1) // fresh only
			is.Equal(evs[0]["topic_name"], "fresh")
			is.Equal(num(t, evs[0]["visibility_policy"]), int64(3))
			// A mention follows the topic for the mentioned
			// (automatically_follow_topics_where_mentioned), and only for them.
			tina := cred{"target@acme.test", "targetKEY0000000000000000000000g"}
			tq := registerQueue(t, e, &tina, "event_types", `["user_topic"]`)
			oq = registerQueue(t, e, &owner, "event_types", `["user_topic"]`)
			sendTo(t, e, &member, "dinner", "@**Tina Target** and @**Olivia Owner** look")
			evs = pending(t, e, &tina, tq)
			is.Equal(len(evs), 1)
			is.Equal(evs[0]["topic_name"], "dinner")
			is.Equal(num(t, evs[0]["visibility_policy"]), int64(3))
			is.Equal(len(pending(t, e, &owner, oq)), 0) // the owner, mentioned too, follows dinner already: they started brunch, and the move carried it
			st = fetchState(t, e, &owner, "user_topic")
			is.Equal(len(st["user_topics"].([]any)), 2) // work and dinner
			for _, r := range st["user_topics"].([]any) {
				is.Equal(num(t, r.(map[string]any)["visibility_policy"]), int64(3)) // both followed
			}

			for _, c := range []struct {
				params    []string
				code, msg string
			}{
				{[]string{"stream_id", "61", "topic", "x", "visibility_policy", "4"}, "BAD_REQUEST", "Invalid visibility_policy"},
				{[]string{"stream_id", "999", "topic", "x", "visibility_policy", "1"}, "BAD_REQUEST", "Invalid channel ID"},
				{[]string{"stream_id", "61", "visibility_policy", "1"}, "REQUEST_VARIABLE_MISSING", "Missing 'topic' argument"},
				{[]string{"stream_id", "61", "topic", "x", "visibility_policy", "one"}, "BAD_REQUEST", "visibility_policy is not valid JSON"},
			} {
				res := e.do(t, request{method: "POST", path: "/user_topics", auth: &member, enc: urlEncoded, params: params(c.params...)})
				wantError(t, res, 400, c.code, c.msg)
			}
			wantError(t, setTopic(t, e, &otherBoss, "x", 1), 400, "BAD_REQUEST", "Invalid channel ID") // another realm's channel
		})
	}
}

// TestHTTPFollowOnParticipation: with automatically_follow_topics_policy 1
// (participation) a reaction follows the topic, and with
// automatically_unmute_topics_in_muted_streams_policy 2 (send) a message to
// a muted channel unmutes its topic.
func TestHTTPFollowOnParticipation(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	id := sendTo(t, e, &owner, "react here", "hello")
	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/settings", auth: &member, enc: urlEncoded,
		params: params("automatically_follow_topics_policy", "1")}))
	q := registerQueue(t, e, &member, "event_types", `["user_topic"]`)
	wantSuccess(t, e.do(t, request{method: "POST", path: fmt.Sprintf("/messages/%d/reactions", id), auth: &member, enc: urlEncoded,
		params: params("emoji_name", "octopus")}))
	evs := pending(t, e, &member, q)
	is.Equal(len(evs), 1)
	is.Equal(evs[0]["topic_name"], "react here")
	is.Equal(num(t, evs[0]["visibility_policy"]), int64(3)) // followed

	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/settings", auth: &admin, enc: urlEncoded,
		params: params("automatically_follow_topics_policy", "4")})) // never follow
	wantSuccess(t, e.do(t, request{method: "POST", path: "/users/me/subscriptions/properties", auth: &admin, enc: urlEncoded,
		params: params("subscription_data", `[{"stream_id":61,"property":"is_muted","value":true}]`)}))
	aq := registerQueue(t, e, &admin, "event_types", `["user_topic"]`)
	sendTo(t, e, &admin, "react here", "a reply in a muted channel")
	evs = pending(t, e, &admin, aq)
	is.Equal(len(evs), 1)
	is.Equal(num(t, evs[0]["visibility_policy"]), int64(2)) // unmuted (the default policy 2: on send)
	home := narrowIDs(t, e, &admin, `[{"operator":"in","operand":"home"}]`)
	is.True(slices.Contains(home, id)) // the unmuted topic of the muted channel is in the feed
	is.True(!slices.Contains(home, 1001))
}

// TestHTTPUserTopicEmptyTopic: the empty topic's policy is "general chat"
// (the realm's name for it) to clients without the empty_topic_name
// capability, in events and in /register, and "" to those with it.
func TestHTTPUserTopicEmptyTopic(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	plain := registerQueue(t, e, &member, "event_types", `["user_topic"]`)
	capable := registerQueue(t, e, &member, "event_types", `["user_topic"]`, "client_capabilities", `{"empty_topic_name":true}`)
	wantSuccess(t, setTopic(t, e, &member, "general chat", 1)) // the realm's name addresses the empty topic
	is.Equal(pending(t, e, &member, plain)[0]["topic_name"], "general chat")
	is.Equal(pending(t, e, &member, capable)[0]["topic_name"], "")
	st := fetchState(t, e, &member, "user_topic")
	is.Equal(st["user_topics"].([]any)[0].(map[string]any)["topic_name"], "general chat")
	res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
		params: params("fetch_event_types", `["user_topic"]`, "client_capabilities", `{"empty_topic_name":true}`)})
	wantSuccess(t, res)
	is.Equal(res.body["user_topics"].([]any)[0].(map[string]any)["topic_name"], "")
}
