package chatcore_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// flagsOf returns viewer's flags on message id, as GET /messages/{id} gives them.
func flagsOf(tb testing.TB, svc *chatcore.Service, viewer *chatcore.User, id chatcore.MessageID) []string {
	tb.Helper()
	v, _, err := svc.GetMessage(context.Background(), viewer.ID, id, chatcore.MessageRequest{})
	if err != nil {
		tb.Fatalf("GetMessage: %v", err)
	}
	return v.Flags
}

// sendAs sends content to e.general's topic "t" from sender with the client
// and read_by_sender given.
func sendAs(tb testing.TB, e *veronaEnv, sender *chatcore.User, content, client string, readBySender *bool) chatcore.MessageID {
	tb.Helper()
	id, err := e.svc.SendMessage(context.Background(), sender.ID, chatcore.SendMessageRequest{
		Type: "stream", To: new(e.general.Name), Topic: new("t"), Content: content, Client: client, ReadBySender: readBySender,
	})
	if err != nil {
		tb.Fatalf("send: %v", err)
	}
	return id
}

func TestFlagsReadBySender(t *testing.T) {
	veronaEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv) {
		tests := []struct {
			client string
			param  *bool
			read   bool
		}{
			{"website", nil, true},
			{"ZulipMobile", nil, true},
			{"ZulipTerminal", nil, true},
			{"Zulip Desktop App", nil, true},
			{"", nil, false},
			{"ZulipPython", nil, false},
			{"website", new(false), false},
			{"ZulipPython", new(true), true},
		}
		e := open(t)
		for _, tt := range tests {
			t.Run(tt.client, func(t *testing.T) {
				is := is.New(t)
				id := sendAs(t, e, e.ham, "hello", tt.client, tt.param)
				is.Equal(slices.Contains(flagsOf(t, e.svc, e.ham, id), "read"), tt.read) // Zulip's read_by_sender rule
				is.Equal(flagsOf(t, e.svc, e.ophelia, id), []string{})                   // other receivers: unread
			})
		}
	})
}

func TestFlagsMentionsAtSend(t *testing.T) {
	veronaEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		sendAs(t, e, e.ophelia, "I was here", "", nil) // ophelia takes part in topic t
		e.events.reset()
		direct := sendAs(t, e, e.owner, "@**ham** look", "website", nil)
		is.Equal(flagsOf(t, e.svc, e.ham, direct), []string{"mentioned"}) // user mention
		is.Equal(flagsOf(t, e.svc, e.ophelia, direct), []string{})        // not mentioned
		is.Equal(flagsOf(t, e.svc, e.owner, direct), []string{"read"})    // sender from the web app
		evs := e.events.take("message")
		byUser := map[chatcore.UserID][]string{}
		for _, ev := range evs {
			for _, u := range ev.UserIDs {
				byUser[u] = ev.Data["flags"].([]string)
			}
		}
		is.Equal(byUser[e.ham.ID], []string{"mentioned"}) // the message event carries each user's flags
		is.Equal(byUser[e.ophelia.ID], []string{})        // default flags
		is.Equal(byUser[e.owner.ID], []string{"read"})    // sender's flags

		all := sendAs(t, e, e.owner, "@**all** meeting", "", nil)
		for _, u := range []*chatcore.User{e.ham, e.ophelia, e.owner} {
			is.Equal(flagsOf(t, e.svc, u, all), []string{"stream_wildcard_mentioned"}) // every receiver
		}
		silent := sendAs(t, e, e.owner, "@_**all** quietly", "", nil)
		is.Equal(flagsOf(t, e.svc, e.ham, silent), []string{}) // silent wildcards set nothing
		topic := sendAs(t, e, e.owner, "@**topic** ping", "", nil)
		is.Equal(flagsOf(t, e.svc, e.ophelia, topic), []string{"topic_wildcard_mentioned"}) // a topic participant
		is.Equal(flagsOf(t, e.svc, e.ham, topic), []string{})                               // never took part in t
		_ = ctx
	})
}

func TestUpdateMessageFlagsErrors(t *testing.T) {
	e := newVeronaEnv(t, openSQLite(t))
	id := e.post(t, e.owner, "t")
	tests := []struct {
		name string
		req  chatcore.UpdateMessageFlagsRequest
		msg  string
	}{
		{"unknown flag", chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "bogus"}, "Invalid flag: 'bogus'"},
		{"internal flag", chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "is_private"}, "Invalid flag: 'is_private'"},
		{"mentioned", chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "mentioned"}, "Flag not editable: 'mentioned'"},
		{"historical", chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "remove", Flag: "historical"}, "Flag not editable: 'historical'"},
		{"has_alert_word", chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "has_alert_word"}, "Flag not editable: 'has_alert_word'"},
		{"bad op", chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "toggle", Flag: "read"}, "Invalid message flag operation: 'toggle'"},
		{"too many", chatcore.UpdateMessageFlagsRequest{Messages: make([]chatcore.MessageID, chatcore.MaxFlagMessages+1), Op: "add", Flag: "bogus"}, "messages is too long (limit: 5000 items)"},
		{"other realm", chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "starred"}, "Invalid message(s)"},
		{"missing message", chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{id + 100}, Op: "add", Flag: "starred"}, "Invalid message(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			actor := e.ham
			if tt.name == "other realm" {
				actor = e.stranger
			}
			_, err := e.svc.UpdateMessageFlags(context.Background(), actor.ID, tt.req)
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
		})
	}
}

func TestUpdateMessageFlags(t *testing.T) {
	veronaEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		a, b := e.post(t, e.owner, "t"), e.post(t, e.owner, "t")
		e.events.reset()
		res, err := e.svc.UpdateMessageFlags(ctx, e.ham.ID, chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{b, a, a}, Op: "add", Flag: "read"})
		is.NoErr(err)                                         // marked read
		is.Equal(res.Messages, []chatcore.MessageID{b, a, a}) // the request's ids echoed, as Zulip
		is.Equal(res.Updated, []chatcore.MessageID{b, a})     // each changed once
		ev := e.events.take("update_message_flags")
		is.Equal(len(ev), 1)                                         // one event
		is.Equal(ev[0].UserIDs, []chatcore.UserID{e.ham.ID})         // to the actor only
		is.Equal(ev[0].Data["messages"], []chatcore.MessageID{b, a}) // the changed ids
		is.Equal(ev[0].Data["op"], "add")                            // op
		is.Equal(ev[0].Data["operation"], "add")                     // legacy operation
		is.Equal(ev[0].Data["flag"], "read")                         // flag
		is.Equal(ev[0].Data["all"], false)                           // all
		is.Equal(flagsOf(t, e.svc, e.ham, a), []string{"read"})      // stored
		is.Equal(flagsOf(t, e.svc, e.ophelia, a), []string{})        // per user
		res, err = e.svc.UpdateMessageFlags(ctx, e.ham.ID, chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{a}, Op: "add", Flag: "read"})
		is.NoErr(err)                 // again
		is.Equal(len(res.Updated), 0) // nothing changed
		_, err = e.svc.UpdateMessageFlags(ctx, e.ham.ID, chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{a}, Op: "remove", Flag: "read"})
		is.NoErr(err) // marked unread
		ev = e.events.take("update_message_flags")
		is.Equal(len(ev), 2)                                     // Zulip sends the event even when nothing changed
		is.Equal(ev[0].Data["messages"], []chatcore.MessageID{}) // the no-op lists nothing
		details := ev[1].Data["message_details"].(map[string]any)
		is.Equal(details[itoa(a)], map[string]any{"type": "stream", "stream_id": e.general.ID, "topic": "t", "unmuted_stream_msg": true}) // Zulip's message_details

		// juliet joins the realm later and never received a or b.
		juliet := seedUser(t, e.base, e.realm, "juliet", chatcore.RoleMember)
		is.Equal(flagsOf(t, e.svc, juliet, a), []string{"read", "historical"}) // readable, never received
		res, err = e.svc.UpdateMessageFlags(ctx, juliet.ID, chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{a}, Op: "add", Flag: "starred"})
		is.NoErr(err)                                                                     // starred
		is.Equal(res.Updated, []chatcore.MessageID{a})                                    // changed
		is.Equal(flagsOf(t, e.svc, juliet, a), []string{"read", "starred", "historical"}) // created historical, as Zulip
		res, err = e.svc.UpdateMessageFlags(ctx, juliet.ID, chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{b}, Op: "add", Flag: "read"})
		is.NoErr(err)                 // read on a historical message
		is.Equal(len(res.Updated), 0) // already read by default: nothing created
		res, err = e.svc.UpdateMessageFlags(ctx, juliet.ID, chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{b}, Op: "remove", Flag: "read"})
		is.NoErr(err)                 // unread in a channel juliet is not subscribed to
		is.Equal(len(res.Updated), 0) // ignored, as Zulip
	})
}

func itoa(id chatcore.MessageID) string { b, _ := json.Marshal(id); return string(b) }

func TestFlagNarrowsAndFirstUnread(t *testing.T) {
	veronaEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		a := e.post(t, e.owner, "t")
		b := sendAs(t, e, e.owner, "@**ham** hi", "", nil)
		c := e.post(t, e.owner, "t")
		_, err := e.svc.UpdateMessageFlags(ctx, e.ham.ID, chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{a}, Op: "add", Flag: "read"})
		is.NoErr(err) // a read
		_, err = e.svc.UpdateMessageFlags(ctx, e.ham.ID, chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{c}, Op: "add", Flag: "starred"})
		is.NoErr(err) // c starred
		ids := func(req chatcore.MessagesRequest) ([]chatcore.MessageID, chatcore.MessagesResult) {
			res, err := e.svc.Messages(ctx, e.ham.ID, req)
			is.NoErr(err) // messages read
			var out []chatcore.MessageID
			for _, m := range res.Messages {
				out = append(out, m.ID)
			}
			return out, res
		}
		narrow := func(op string) chatcore.MessagesRequest {
			return chatcore.MessagesRequest{NumBefore: new(10), NarrowJSON: json.RawMessage(`[{"operator":"is","operand":"` + op + `"}]`)}
		}
		got, _ := ids(narrow("unread"))
		is.Equal(got, []chatcore.MessageID{b, c}) // is:unread
		got, _ = ids(narrow("starred"))
		is.Equal(got, []chatcore.MessageID{c}) // is:starred
		got, _ = ids(narrow("mentioned"))
		is.Equal(got, []chatcore.MessageID{b}) // is:mentioned
		got, _ = ids(narrow("alerted"))
		is.Equal(len(got), 0) // is:alerted: alert words are not modelled
		got, res := ids(chatcore.MessagesRequest{Anchor: new("first_unread"), NumAfter: new(1)})
		is.Equal(res.Anchor, b)                   // the oldest unread message
		is.Equal(got, []chatcore.MessageID{b, c}) // anchor and after
		_, res = ids(chatcore.MessagesRequest{Anchor: new("newest"), UseFirstUnreadAnchor: new(true)})
		is.Equal(res.Anchor, b) // legacy use_first_unread_anchor overrides anchor
		_, res = ids(chatcore.MessagesRequest{Anchor: new("first_unread"), NarrowJSON: json.RawMessage(`[["is","starred"],["is","unread"]]`)})
		is.Equal(res.Anchor, c) // first unread within the narrow
		v, _, err := e.svc.GetMessage(ctx, e.ham.ID, c, chatcore.MessageRequest{})
		is.NoErr(err)                          // one message
		is.Equal(v.Flags, []string{"starred"}) // flags on GET /messages/{id}
	})
}

func TestUpdateMessageFlagsForNarrow(t *testing.T) {
	veronaEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		a, b, c := e.post(t, e.owner, "t"), e.post(t, e.owner, "u"), e.post(t, e.owner, "t")
		_, err := e.svc.UpdateMessageFlags(ctx, e.ham.ID, chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{c}, Op: "add", Flag: "read"})
		is.NoErr(err) // c read
		res, err := e.svc.UpdateMessageFlagsForNarrow(ctx, e.ham.ID, chatcore.UpdateMessageFlagsForNarrowRequest{
			Anchor: new("oldest"), NumBefore: new(0), NumAfter: new(100),
			Narrow: json.RawMessage(`[{"operator":"topic","operand":"t"}]`), Op: "add", Flag: "read"})
		is.NoErr(err)                                     // marked
		is.Equal(res.ProcessedCount, 2)                   // a and c
		is.Equal(res.UpdatedCount, 1)                     // c was read already
		is.Equal(*res.FirstProcessedID, a)                // first
		is.Equal(*res.LastProcessedID, c)                 // last
		is.True(res.FoundOldest && res.FoundNewest)       // the whole narrow
		is.Equal(flagsOf(t, e.svc, e.ham, b), []string{}) // other topic untouched
		res, err = e.svc.UpdateMessageFlagsForNarrow(ctx, e.ham.ID, chatcore.UpdateMessageFlagsForNarrowRequest{
			Anchor: new("newest"), NumBefore: new(1), NumAfter: new(0), Narrow: json.RawMessage(`[["is","unread"]]`), Op: "add", Flag: "read"})
		is.NoErr(err)                                                      // newest unread
		is.Equal(res.ProcessedCount, 1)                                    // b only
		is.True(res.FirstProcessedID != nil && *res.FirstProcessedID == b) // the unread one
		res, err = e.svc.UpdateMessageFlagsForNarrow(ctx, e.ham.ID, chatcore.UpdateMessageFlagsForNarrowRequest{
			Anchor: new("newest"), NumBefore: new(5), NumAfter: new(0), Narrow: json.RawMessage(`[["is","unread"]]`), Op: "add", Flag: "read"})
		is.NoErr(err)                                                      // nothing left
		is.Equal(res.ProcessedCount, 0)                                    // nothing processed
		is.True(res.FirstProcessedID == nil && res.LastProcessedID == nil) // null ids
		_, err = e.svc.UpdateMessageFlagsForNarrow(ctx, e.ham.ID, chatcore.UpdateMessageFlagsForNarrowRequest{
			Anchor: new("newest"), NumBefore: new(1), NumAfter: new(1), IncludeAnchor: new(false), Op: "add", Flag: "read"})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "The anchor can only be excluded at an end of the range")
		_, err = e.svc.UpdateMessageFlagsForNarrow(ctx, e.ham.ID, chatcore.UpdateMessageFlagsForNarrowRequest{
			Anchor: new("newest"), NumBefore: new(1001), NumAfter: new(0), Op: "add", Flag: "read"})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Too many messages requested (maximum 1000).")
		_, err = e.svc.UpdateMessageFlagsForNarrow(ctx, e.ham.ID, chatcore.UpdateMessageFlagsForNarrowRequest{
			Anchor: new("newest"), NumBefore: new(1), NumAfter: new(0), Op: "add", Flag: "historical"})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Flag not editable: 'historical'")
	})
}

func TestRegisterUnreadAndStarred(t *testing.T) {
	veronaEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		a := e.post(t, e.owner, "t")
		b := sendAs(t, e, e.owner, "@**ham** hi", "", nil)
		dm, err := e.svc.SendMessage(ctx, e.owner.ID, chatcore.SendMessageRequest{Type: "direct", To: new("[" + itoa(chatcore.MessageID(e.ham.ID)) + "]"), Content: "psst"})
		is.NoErr(err) // DM sent
		group, err := e.svc.SendMessage(ctx, e.owner.ID, chatcore.SendMessageRequest{Type: "direct",
			To: new("[" + itoa(chatcore.MessageID(e.ham.ID)) + "," + itoa(chatcore.MessageID(e.ophelia.ID)) + "]"), Content: "all of us"})
		is.NoErr(err) // group DM sent
		_, err = e.svc.UpdateMessageFlags(ctx, e.ham.ID, chatcore.UpdateMessageFlagsRequest{Messages: []chatcore.MessageID{a}, Op: "add", Flag: "starred"})
		is.NoErr(err) // a starred
		st, err := e.svc.Register(ctx, e.ham.ID, chatcore.RegisterRequest{Sections: []string{"message", "update_message_flags", "starred_messages"}})
		is.NoErr(err)                                         // registered
		is.Equal(*st.MaxMessageID, group)                     // the newest readable message
		is.Equal(st.StarredMessages, []chatcore.MessageID{a}) // starred
		u := st.Unread
		is.Equal(u.Count, 4)                                                                                                                  // a, b, dm, group
		is.Equal(u.Mentions, []chatcore.MessageID{b})                                                                                         // mentions
		is.Equal(u.Streams, []chatcore.UnreadStreamTopic{{StreamID: e.general.ID, Topic: "t", UnreadMessageIDs: []chatcore.MessageID{a, b}}}) // by topic
		is.Equal(u.Pms, []chatcore.UnreadDirect{{OtherUserID: e.owner.ID, SenderID: e.owner.ID, UnreadMessageIDs: []chatcore.MessageID{dm}}}) // 1:1
		ids := []chatcore.UserID{e.owner.ID, e.ham.ID, e.ophelia.ID}
		slices.Sort(ids)
		is.Equal(u.Huddles[0].UnreadMessageIDs, []chatcore.MessageID{group})                                                                             // group DM
		is.Equal(u.Huddles[0].UserIDsString, itoa(chatcore.MessageID(ids[0]))+","+itoa(chatcore.MessageID(ids[1]))+","+itoa(chatcore.MessageID(ids[2]))) // every participant
		is.True(!u.OldUnreadsMissing)                                                                                                                    // under the cap
		only, err := e.svc.Register(ctx, e.ham.ID, chatcore.RegisterRequest{Sections: []string{"update_message_flags"}})
		is.NoErr(err)               // registered
		is.True(only.Unread == nil) // unread_msgs needs message too, as in Zulip

		// Deleting the topic takes the flag rows with it.
		_, err = e.svc.DeleteTopic(ctx, e.owner.ID, e.general.ID, "t")
		is.NoErr(err) // topic deleted
		st, err = e.svc.Register(ctx, e.ham.ID, chatcore.RegisterRequest{Sections: []string{"starred_messages"}})
		is.NoErr(err)                        // registered
		is.Equal(len(st.StarredMessages), 0) // the star went with the message
	})
}
