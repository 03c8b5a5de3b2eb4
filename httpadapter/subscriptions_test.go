package httpadapter_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// channelFields are the fields of Zulip's BasicChannel that chatcore sends
// (the everyone-valued group settings are left out: no system groups).
var channelFields = []string{
	"can_add_subscribers_group", "can_administer_channel_group", "can_create_topic_group", "can_delete_any_message_group",
	"can_delete_own_message_group", "can_move_messages_out_of_channel_group", "can_move_messages_within_channel_group",
	"can_remove_subscribers_group", "can_resolve_topics_group", "can_send_message_group", "can_subscribe_group", "creator_id", "date_created", "description", "first_message_id",
	"folder_id", "history_public_to_subscribers", "invite_only", "is_announcement_only", "is_archived", "is_recently_active",
	"is_web_public", "message_retention_days", "name", "rendered_description", "stream_id", "stream_post_policy",
	"stream_weekly_traffic", "subscriber_count", "topics_policy",
}

// personalFields are the fields a subscription adds to a channel.
var personalFields = []string{
	"audible_notifications", "color", "desktop_notifications", "email_notifications", "in_home_view", "is_muted",
	"pin_to_top", "push_notifications", "wildcard_mentions_notify",
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func sortedUnion(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return out
}

func TestHTTPSubscriptions(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	is := is.New(t)

	res := e.do(t, request{method: "GET", path: "/users/me/subscriptions", auth: &member, params: params("include_subscribers", "true")})
	wantSuccess(t, res)
	subs := res.body["subscriptions"].([]any)
	is.Equal(len(subs), 1) // the member's one channel
	sub := subs[0].(map[string]any)
	is.Equal(sortedKeys(sub), sortedUnion(channelFields, personalFields, []string{"subscribers"})) // Zulip's subscription fields
	is.Equal(sub["name"], "general")
	is.Equal(len(sub["subscribers"].([]any)), 6) // the active subscribers
	is.Equal(num(t, sub["subscriber_count"]), int64(6))

	t.Run("subscribe creates a channel", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "POST", path: "/users/me/subscriptions", auth: &member, enc: urlEncoded,
			params: params("subscriptions", `[{"name":"  ideas ","description":"new **things**"},{"name":"general"}]`)})
		wantSuccess(t, res)
		is.Equal(res.body["subscribed"], map[string]any{"14": []any{"ideas"}})           // the new channel, trimmed
		is.Equal(res.body["already_subscribed"], map[string]any{"14": []any{"general"}}) // the old one
		res = e.do(t, request{method: "GET", path: "/streams", auth: &member})
		wantSuccess(t, res)
		var names []string
		for _, s := range res.body["streams"].([]any) {
			c := s.(map[string]any)
			is.Equal(sortedKeys(c), sortedUnion(channelFields)) // Zulip's channel fields
			names = append(names, c["name"].(string))
			if c["name"] == "ideas" {
				is.Equal(c["rendered_description"], "<p>new <strong>things</strong></p>") // rendered at creation
				is.Equal(num(t, c["creator_id"]), int64(14))                              // the creator
			}
		}
		is.Equal(names, []string{"general", "ideas"}) // by name
	})
	t.Run("properties", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "POST", path: "/users/me/subscriptions/properties", auth: &member, enc: urlEncoded,
			params: params("subscription_data", `[{"stream_id":61,"property":"color","value":"#aabbcc"},{"stream_id":61,"property":"in_home_view","value":false},{"stream_id":61,"property":"desktop_notifications","value":true}]`)})
		wantSuccess(t, res)
		res = e.do(t, request{method: "GET", path: "/users/me/subscriptions", auth: &member})
		wantSuccess(t, res)
		for _, s := range res.body["subscriptions"].([]any) {
			c := s.(map[string]any)
			if c["name"] != "general" {
				continue
			}
			is.Equal(c["color"], "#aabbcc")            // the colour set
			is.Equal(c["is_muted"], true)              // in_home_view false mutes
			is.Equal(c["in_home_view"], false)         // and reads back
			is.Equal(c["desktop_notifications"], true) // set
			is.Equal(c["push_notifications"], nil)     // still inherited
			_, hasSubs := c["subscribers"]
			is.True(!hasSubs) // no subscribers unless asked
		}
		for _, tt := range []struct{ data, msg string }{
			{`[{"stream_id":61,"property":"colour","value":"#aabbcc"}]`, "Unknown subscription property: colour"},
			{`[{"stream_id":61,"property":"pin_to_top","value":"yes"}]`, "pin_to_top is not a boolean"},
			{`[{"stream_id":61,"property":"color","value":"red"}]`, "color is not a valid hex color code"},
			{`[{"stream_id":71,"property":"pin_to_top","value":true}]`, "Invalid channel ID"},
			{`[{"stream_id":999,"property":"pin_to_top","value":true}]`, "Invalid channel ID"},
		} {
			res := e.do(t, request{method: "POST", path: "/users/me/subscriptions/properties", auth: &member, enc: urlEncoded,
				params: params("subscription_data", tt.data)})
			wantError(t, res, 400, "BAD_REQUEST", tt.msg)
		}
	})
	t.Run("unsubscribe", func(t *testing.T) {
		res := e.do(t, request{method: "DELETE", path: "/users/me/subscriptions", auth: &member, enc: urlEncoded,
			params: params("subscriptions", `["ideas","ideas"]`)})
		wantSuccess(t, res)
		is := is.New(t)
		is.Equal(res.body["removed"], []any{"ideas"})     // once
		is.Equal(res.body["not_removed"], []any{"ideas"}) // the second time not subscribed
		res = e.do(t, request{method: "DELETE", path: "/users/me/subscriptions", auth: &member, enc: urlEncoded,
			params: params("subscriptions", `["nope","nada"]`)})
		wantError(t, res, 400, "BAD_REQUEST", "Channel(s) (nope, nada) do not exist")
		res = e.do(t, request{method: "DELETE", path: "/users/me/subscriptions", auth: &member, enc: urlEncoded,
			params: params("subscriptions", `["general"]`, "principals", `[17]`)})
		wantError(t, res, 400, "BAD_REQUEST", "Insufficient permission")
		res = e.do(t, request{method: "DELETE", path: "/users/me/subscriptions", auth: &admin, enc: urlEncoded,
			params: params("subscriptions", `["general"]`, "principals", `["target@acme.test"]`)})
		wantSuccess(t, res)
		is.Equal(res.body["removed"], []any{"general"}) // an administrator removes others
	})
	t.Run("refusals", func(t *testing.T) {
		for _, tt := range []struct {
			who    *cred
			params []string
			msg    string
		}{
			{&guest, []string{"subscriptions", `[{"name":"x"}]`}, "Not allowed for guest users"},
			{&member, []string{"subscriptions", `[{"name":"   "}]`}, "Channel name can't be empty."},
			{&member, []string{"subscriptions", `[{"name":"a\u0001b"}]`}, "Invalid character in channel name, at position 2."},
			{&member, []string{"subscriptions", `[{"name":"x","color":"blue"}]`}, "add.color is not a valid hex color code"},
			{&member, []string{"subscriptions", `[{"name":"general"}]`, "principals", `[999]`}, "No such user"},
		} {
			res := e.do(t, request{method: "POST", path: "/users/me/subscriptions", auth: tt.who, enc: urlEncoded, params: params(tt.params...)})
			wantError(t, res, 400, "BAD_REQUEST", tt.msg)
		}
	})
}

func TestHTTPChannels(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	is := is.New(t)
	res := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded, params: params("type", "stream", "to", "general", "topic", "old", "content", "a")})
	wantSuccess(t, res)
	first := num(t, res.body["id"])
	res = e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded, params: params("type", "stream", "to", "general", "topic", "", "content", "b")})
	wantSuccess(t, res)
	second := num(t, res.body["id"])

	res = e.do(t, request{method: "GET", path: "/users/me/61/topics", auth: &member})
	wantSuccess(t, res)
	topics := res.body["topics"].([]any)
	is.True(len(topics) >= 2) // the fixture's topics and the two new ones
	t0, t1 := topics[0].(map[string]any), topics[1].(map[string]any)
	is.Equal(t0["name"], "general chat")   // newest first, the empty topic by its display name
	is.Equal(num(t, t0["max_id"]), second) // with its newest message
	is.Equal(t1["name"], "old")            // then the older topic
	is.Equal(num(t, t1["max_id"]), first)  // with its newest message
	res = e.do(t, request{method: "GET", path: "/users/me/61/topics", auth: &member, params: params("allow_empty_topic_name", "true")})
	wantSuccess(t, res)
	is.Equal(res.body["topics"].([]any)[0].(map[string]any)["name"], "") // the empty topic as such
	res = e.do(t, request{method: "GET", path: "/users/me/71/topics", auth: &member})
	wantError(t, res, 400, "BAD_REQUEST", "Invalid channel ID") // another realm's channel

	res = e.do(t, request{method: "GET", path: "/streams/61", auth: &member})
	wantSuccess(t, res)
	is.Equal(sortedKeys(res.body["stream"].(map[string]any)), sortedUnion(channelFields)) // Zulip's channel fields
	res = e.do(t, request{method: "GET", path: "/streams/999", auth: &member})
	wantError(t, res, 400, "BAD_REQUEST", "Invalid channel ID")
	res = e.do(t, request{method: "GET", path: "/streams", auth: &member, params: params("include_all", "true")})
	wantError(t, res, 400, "BAD_REQUEST", "User not authorized for this query")
}
