package chatcore_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

// sendAs sends content to org.General's topic "t" from sender with the client
// and read_by_sender given.
func sendAs(tb testing.TB, w *chattest.World, org *chattest.Verona, sender *chatcore.User, content, client string, readBySender *bool) chatcore.MessageID {
	tb.Helper()
	id, err := w.Svc.SendMessage(context.Background(), sender.ID, chatcore.SendMessageRequest{
		Type: "stream", To: new(org.General.Name), Topic: new("t"), Content: content, Client: client, ReadBySender: readBySender,
	})
	if err != nil {
		tb.Fatalf("send: %v", err)
	}
	return id
}

// postVerona sends "hello" to org.General's topic from sender.
func postVerona(tb testing.TB, w *chattest.World, org *chattest.Verona, sender *chatcore.User, topic string) chatcore.MessageID {
	tb.Helper()
	return sendTopic(tb, w, org, sender, topic, "hello")
}

// sendTopic sends content to org.General's topic from sender.
func sendTopic(tb testing.TB, w *chattest.World, org *chattest.Verona, sender *chatcore.User, topic, content string) chatcore.MessageID {
	tb.Helper()
	id, err := w.Svc.SendMessage(context.Background(), sender.ID, chatcore.SendMessageRequest{
		Type: "stream", To: new(org.General.Name), Topic: new(topic), Content: content,
	})
	if err != nil {
		tb.Fatalf("sending to %q: %v", topic, err)
	}
	return id
}

func TestFlagsReadBySender(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
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
		w, org, _ := newVerona(t, open)
		for _, tt := range tests {
			t.Run(tt.client, func(t *testing.T) {
				is := is.New(t)
				id := sendAs(t, w, org, org.Ham, "hello", tt.client, tt.param)
				is.Equal(slices.Contains(chattest.MessageAs(t, w.Svc, org.Ham, id).Flags, "read"), tt.read) // Zulip's read_by_sender rule
				is.Equal(chattest.MessageAs(t, w.Svc, org.Ophelia, id).Flags, []string{})                   // other receivers: unread
			})
		}
	})
}

func TestFlagsMentionsAtSend(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, _ := newVerona(t, open)
		ctx := context.Background()
		sendAs(t, w, org, org.Ophelia, "I was here", "", nil) // ophelia takes part in topic t
		w.Events.Reset()
		direct := sendAs(t, w, org, org.Owner, "@**ham** look", "website", nil)
		is.Equal(chattest.MessageAs(t, w.Svc, org.Ham, direct).Flags, []string{"mentioned"}) // user mention
		is.Equal(chattest.MessageAs(t, w.Svc, org.Ophelia, direct).Flags, []string{})        // not mentioned
		is.Equal(chattest.MessageAs(t, w.Svc, org.Owner, direct).Flags, []string{"read"})    // sender from the web app
		evs := w.Events.Take("message")
		byUser := map[chatcore.UserID][]string{}
		for _, ev := range evs {
			for _, u := range ev.UserIDs {
				byUser[u] = ev.Data["flags"].([]string)
			}
		}
		is.Equal(byUser[org.Ham.ID], []string{"mentioned"}) // the message event carries each user's flags
		is.Equal(byUser[org.Ophelia.ID], []string{})        // default flags
		is.Equal(byUser[org.Owner.ID], []string{"read"})    // sender's flags

		all := sendAs(t, w, org, org.Owner, "@**all** meeting", "", nil)
		for _, u := range []*chatcore.User{org.Ham, org.Ophelia, org.Owner} {
			is.Equal(chattest.MessageAs(t, w.Svc, u, all).Flags, []string{"stream_wildcard_mentioned"}) // every receiver
		}
		silent := sendAs(t, w, org, org.Owner, "@_**all** quietly", "", nil)
		is.Equal(chattest.MessageAs(t, w.Svc, org.Ham, silent).Flags, []string{}) // silent wildcards set nothing
		topic := sendAs(t, w, org, org.Owner, "@**topic** ping", "", nil)
		is.Equal(chattest.MessageAs(t, w.Svc, org.Ophelia, topic).Flags, []string{"topic_wildcard_mentioned"}) // a topic participant
		is.Equal(chattest.MessageAs(t, w.Svc, org.Ham, topic).Flags, []string{})                               // never took part in t
		_ = ctx
	})
}

func TestUpdateMessageFlagsErrors(t *testing.T) {
	w, org, _ := newVerona(t, openOn(openSQLite(t)))
	id := postVerona(t, w, org, org.Owner, "t")
	tests := []struct {
		name string
		req  messages.UpdateFlagsRequest
		msg  string
	}{
		{"unknown flag", messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "bogus"}, "Invalid flag: 'bogus'"},
		{"internal flag", messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "is_private"}, "Invalid flag: 'is_private'"},
		{"mentioned", messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "mentioned"}, "Flag not editable: 'mentioned'"},
		{"historical", messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "remove", Flag: "historical"}, "Flag not editable: 'historical'"},
		{"has_alert_word", messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "has_alert_word"}, "Flag not editable: 'has_alert_word'"},
		{"bad op", messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "toggle", Flag: "read"}, "Invalid message flag operation: 'toggle'"},
		{"too many", messages.UpdateFlagsRequest{Messages: make([]chatcore.MessageID, messages.MaxFlagMessages+1), Op: "add", Flag: "bogus"}, "messages is too long (limit: 5000 items)"},
		{"other realm", messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "starred"}, "Invalid message(s)"},
		{"missing message", messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id + 100}, Op: "add", Flag: "starred"}, "Invalid message(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			actor := org.Ham
			if tt.name == "other realm" {
				actor = org.Stranger
			}
			_, err := messages.UpdateFlags(context.Background(), w.Svc, actor.ID, tt.req)
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
		})
	}
}

func TestUpdateMessageFlags(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, _ := newVerona(t, open)
		ctx := context.Background()
		a, b := postVerona(t, w, org, org.Owner, "t"), postVerona(t, w, org, org.Owner, "t")
		w.Events.Reset()
		res, err := messages.UpdateFlags(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{b, a, a}, Op: "add", Flag: "read"})
		is.NoErr(err)                                         // marked read
		is.Equal(res.Messages, []chatcore.MessageID{b, a, a}) // the request's ids echoed, as Zulip
		is.Equal(res.Updated, []chatcore.MessageID{a, b})     // each changed once, by id as Zulip reads them
		ev := w.Events.Take("update_message_flags")
		is.Equal(len(ev), 1)                                                       // one event
		is.Equal(ev[0].UserIDs, []chatcore.UserID{org.Ham.ID})                     // to the actor only
		is.Equal(ev[0].Data["messages"], []chatcore.MessageID{a, b})               // the changed ids, ascending
		is.Equal(ev[0].Data["op"], "add")                                          // op
		is.Equal(ev[0].Data["operation"], "add")                                   // legacy operation
		is.Equal(ev[0].Data["flag"], "read")                                       // flag
		is.Equal(ev[0].Data["all"], false)                                         // all
		is.Equal(chattest.MessageAs(t, w.Svc, org.Ham, a).Flags, []string{"read"}) // stored
		is.Equal(chattest.MessageAs(t, w.Svc, org.Ophelia, a).Flags, []string{})   // per user
		res, err = messages.UpdateFlags(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{a}, Op: "add", Flag: "read"})
		is.NoErr(err)                 // again
		is.Equal(len(res.Updated), 0) // nothing changed
		_, err = messages.UpdateFlags(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{a}, Op: "remove", Flag: "read"})
		is.NoErr(err) // marked unread
		ev = w.Events.Take("update_message_flags")
		is.Equal(len(ev), 2)                                     // Zulip sends the event even when nothing changed
		is.Equal(ev[0].Data["messages"], []chatcore.MessageID{}) // the no-op lists nothing
		details := ev[1].Data["message_details"].(map[string]any)
		is.Equal(details[itoa(a)], map[string]any{"type": "stream", "stream_id": org.General.ID, "topic": "t", "unmuted_stream_msg": true}) // Zulip's message_details

		// juliet joins the realm later and never received a or b.
		juliet := w.AddUser(t, org.Realm, "juliet", chatcore.RoleMember)
		is.Equal(chattest.MessageAs(t, w.Svc, juliet, a).Flags, []string{"read", "historical"}) // readable, never received
		res, err = messages.UpdateFlags(ctx, w.Svc, juliet.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{a}, Op: "add", Flag: "starred"})
		is.NoErr(err)                                                                                      // starred
		is.Equal(res.Updated, []chatcore.MessageID{a})                                                     // changed
		is.Equal(chattest.MessageAs(t, w.Svc, juliet, a).Flags, []string{"read", "starred", "historical"}) // created historical, as Zulip
		res, err = messages.UpdateFlags(ctx, w.Svc, juliet.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{b}, Op: "add", Flag: "read"})
		is.NoErr(err)                 // read on a historical message
		is.Equal(len(res.Updated), 0) // already read by default: nothing created
		res, err = messages.UpdateFlags(ctx, w.Svc, juliet.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{b}, Op: "remove", Flag: "read"})
		is.NoErr(err)                                                                          // unread in a channel juliet is not subscribed to
		is.Equal(len(res.Updated), 0)                                                          // ignored, as Zulip
		is.Equal(res.IgnoredBecauseNotSubscribedChannels, []chatcore.StreamID{org.General.ID}) // and the channel named
	})
}

func itoa(id chatcore.MessageID) string { b, _ := json.Marshal(id); return string(b) }

func TestFlagNarrowsAndFirstUnread(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, _ := newVerona(t, open)
		ctx := context.Background()
		a := postVerona(t, w, org, org.Owner, "t")
		b := sendAs(t, w, org, org.Owner, "@**ham** hi", "", nil)
		c := postVerona(t, w, org, org.Owner, "t")
		_, err := messages.UpdateFlags(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{a}, Op: "add", Flag: "read"})
		is.NoErr(err) // a read
		_, err = messages.UpdateFlags(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{c}, Op: "add", Flag: "starred"})
		is.NoErr(err) // c starred
		ids := func(req messages.Request) ([]chatcore.MessageID, messages.Result) {
			res, err := messages.Get(ctx, w.Svc, org.Ham.ID, req)
			is.NoErr(err) // messages read
			var out []chatcore.MessageID
			for _, m := range res.Messages {
				out = append(out, m.ID)
			}
			return out, res
		}
		narrow := func(op string) messages.Request {
			return messages.Request{NumBefore: new(10), NarrowJSON: json.RawMessage(`[{"operator":"is","operand":"` + op + `"}]`)}
		}
		got, _ := ids(narrow("unread"))
		is.Equal(got, []chatcore.MessageID{b, c}) // is:unread
		got, _ = ids(narrow("starred"))
		is.Equal(got, []chatcore.MessageID{c}) // is:starred
		got, _ = ids(narrow("mentioned"))
		is.Equal(got, []chatcore.MessageID{b}) // is:mentioned
		got, _ = ids(narrow("alerted"))
		is.Equal(len(got), 0) // is:alerted: alert words are not modelled
		got, res := ids(messages.Request{Anchor: new("first_unread"), NumAfter: new(1)})
		is.Equal(res.Anchor, b)                   // the oldest unread message
		is.Equal(got, []chatcore.MessageID{b, c}) // anchor and after
		_, res = ids(messages.Request{Anchor: new("newest"), UseFirstUnreadAnchor: new(true)})
		is.Equal(res.Anchor, b) // legacy use_first_unread_anchor overrides anchor
		_, res = ids(messages.Request{Anchor: new("first_unread"), NarrowJSON: json.RawMessage(`[["is","starred"],["is","unread"]]`)})
		is.Equal(res.Anchor, c) // first unread within the narrow
		v, _, err := messages.One(ctx, w.Svc, org.Ham.ID, c, messages.OneRequest{})
		is.NoErr(err)                          // one message
		is.Equal(v.Flags, []string{"starred"}) // flags on GET /messages/{id}
	})
}

func TestUpdateMessageFlagsForNarrow(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, _ := newVerona(t, open)
		ctx := context.Background()
		a, b, c := postVerona(t, w, org, org.Owner, "t"), postVerona(t, w, org, org.Owner, "u"), postVerona(t, w, org, org.Owner, "t")
		_, err := messages.UpdateFlags(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{c}, Op: "add", Flag: "read"})
		is.NoErr(err) // c read
		res, err := messages.UpdateFlagsForNarrow(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsForNarrowRequest{
			Anchor: new("oldest"), NumBefore: new(0), NumAfter: new(100),
			Narrow: json.RawMessage(`[{"operator":"topic","operand":"t"}]`), Op: "add", Flag: "read"})
		is.NoErr(err)                                                        // marked
		is.Equal(res.ProcessedCount, 2)                                      // a and c
		is.Equal(res.UpdatedCount, 1)                                        // c was read already
		is.Equal(*res.FirstProcessedID, a)                                   // first
		is.Equal(*res.LastProcessedID, c)                                    // last
		is.True(res.FoundOldest && res.FoundNewest)                          // the whole narrow
		is.Equal(chattest.MessageAs(t, w.Svc, org.Ham, b).Flags, []string{}) // other topic untouched
		res, err = messages.UpdateFlagsForNarrow(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsForNarrowRequest{
			Anchor: new("newest"), NumBefore: new(1), NumAfter: new(0), Narrow: json.RawMessage(`[["is","unread"]]`), Op: "add", Flag: "read"})
		is.NoErr(err)                                                      // newest unread
		is.Equal(res.ProcessedCount, 1)                                    // b only
		is.True(res.FirstProcessedID != nil && *res.FirstProcessedID == b) // the unread one
		res, err = messages.UpdateFlagsForNarrow(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsForNarrowRequest{
			Anchor: new("newest"), NumBefore: new(5), NumAfter: new(0), Narrow: json.RawMessage(`[["is","unread"]]`), Op: "add", Flag: "read"})
		is.NoErr(err)                                                      // nothing left
		is.Equal(res.ProcessedCount, 0)                                    // nothing processed
		is.True(res.FirstProcessedID == nil && res.LastProcessedID == nil) // null ids
		_, err = messages.UpdateFlagsForNarrow(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsForNarrowRequest{
			Anchor: new("newest"), NumBefore: new(1), NumAfter: new(1), IncludeAnchor: new(false), Op: "add", Flag: "read"})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "The anchor can only be excluded at an end of the range")
		_, err = messages.UpdateFlagsForNarrow(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsForNarrowRequest{
			Anchor: new("newest"), NumBefore: new(-1), NumAfter: new(0), Op: "add", Flag: "read"})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "num_before is too small")
		_, err = messages.UpdateFlagsForNarrow(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsForNarrowRequest{
			Anchor: new("newest"), NumBefore: new(1), NumAfter: new(0), Op: "add", Flag: "historical"})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Flag not editable: 'historical'")
	})
}

// TestUpdateMessageFlagsForNarrowClamps is issue 32's finding: num_after=5000
// was refused with GET /messages' "maximum 1000". Zulip clamps num_before +
// num_after to MAX_MESSAGES_PER_UPDATE (5000), num_before keeping at most
// max(5000 - num_after, 2500), and adds the anchor on top.
func TestUpdateMessageFlagsForNarrowClamps(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, _ := newVerona(t, open)
		ctx := context.Background()
		const n = 5003
		ids := make([]chatcore.MessageID, n)
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			for i := range ids {
				m := chatcore.Message{RealmID: org.Realm.ID, SenderID: org.Owner.ID, Type: chatcore.MessageTypeStream,
					RecipientID: org.General.RecipientID, StreamID: org.General.ID, Topic: "bulk", Content: "m", SentAt: chattest.VeronaNow}
				if err := tx.CreateMessage(ctx, &m); err != nil {
					return err
				}
				ids[i] = m.ID
			}
			return nil
		})
		bulk := json.RawMessage(`[{"operator":"channel","operand":` + itoa(chatcore.MessageID(org.General.ID)) + `},{"operator":"topic","operand":"bulk"}]`)
		mark := func(anchor string, before, after int, flag string) messages.UpdateFlagsForNarrowResult {
			t.Helper()
			res, err := messages.UpdateFlagsForNarrow(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsForNarrowRequest{
				Anchor: &anchor, NumBefore: &before, NumAfter: &after, Narrow: bulk, Op: "add", Flag: flag})
			is.NoErr(err) // never refused for its size
			return res
		}
		flagged := func(id chatcore.MessageID, flag string) bool {
			t.Helper()
			return slices.Contains(chattest.MessageAs(t, w.Svc, org.Ham, id).Flags, flag)
		}

		// num_after=5000 from the oldest (no message is the anchor there).
		res := mark("oldest", 0, 5000, "read")
		is.Equal(res.ProcessedCount, 5000)        // 5000 after the anchor
		is.Equal(res.UpdatedCount, 5000)          // all were unread
		is.Equal(*res.FirstProcessedID, ids[0])   // from the oldest
		is.Equal(*res.LastProcessedID, ids[4999]) // to the 5000th
		is.True(res.FoundOldest)                  // the oldest is in the range
		is.True(!res.FoundNewest)                 // three newer ones are not
		is.True(flagged(ids[4999], "read"))       // marked
		is.True(!flagged(ids[5000], "read"))      // the next one is not

		// From a message: the anchor on top of the 5000 after it.
		res = mark(strconv.FormatInt(int64(ids[1]), 10), 0, 5000, "read")
		is.Equal(res.ProcessedCount, 5001)        // the anchor and 5000 more
		is.Equal(res.UpdatedCount, 2)             // ids[5000] and ids[5001] were unread
		is.Equal(*res.FirstProcessedID, ids[1])   // the anchor
		is.Equal(*res.LastProcessedID, ids[5001]) // 5000 after it
		is.True(!res.FoundOldest && !res.FoundNewest)
		is.True(flagged(ids[5001], "read") && !flagged(ids[5002], "read")) // exactly those

		// 5000 on both sides of the newest: num_before is clamped to 2500
		// (nothing is after the newest).
		res = mark("newest", 5000, 5000, "starred")
		is.Equal(res.ProcessedCount, 2500)           // num_before clamped to 2500
		is.Equal(*res.FirstProcessedID, ids[n-2500]) // 2500 up to the newest
		is.Equal(*res.LastProcessedID, ids[n-1])     // the newest
		is.True(!res.FoundOldest && res.FoundNewest) // the newest end only
		is.True(!flagged(ids[n-2501], "starred"))    // nothing older

		// A middle anchor with 3000 each side: 2500 each side, fewer before.
		res = mark(strconv.FormatInt(int64(ids[2000]), 10), 3000, 3000, "collapsed")
		is.Equal(res.ProcessedCount, 2000+1+2500)    // all 2000 older, the anchor, 2500 newer
		is.Equal(*res.FirstProcessedID, ids[0])      // the oldest is reached
		is.Equal(*res.LastProcessedID, ids[4500])    // 2500 after the anchor
		is.True(res.FoundOldest && !res.FoundNewest) // so found_oldest
		is.True(!flagged(ids[4501], "collapsed"))    // nothing newer

		// A small num_after leaves num_before the rest of the 5000.
		res = mark("newest", 4990, 10, "starred")
		is.Equal(res.ProcessedCount, 4990)    // 4990 up to the newest
		is.Equal(res.UpdatedCount, 4990-2500) // the 2500 starred above are skipped
		is.Equal(*res.FirstProcessedID, ids[n-4990])
	})
}

func TestRegisterUnreadAndStarred(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, _ := newVerona(t, open)
		ctx := context.Background()
		a := postVerona(t, w, org, org.Owner, "t")
		b := sendAs(t, w, org, org.Owner, "@**ham** hi", "", nil)
		dm, err := w.Svc.SendMessage(ctx, org.Owner.ID, chatcore.SendMessageRequest{Type: "direct", To: new("[" + itoa(chatcore.MessageID(org.Ham.ID)) + "]"), Content: "psst"})
		is.NoErr(err) // DM sent
		group, err := w.Svc.SendMessage(ctx, org.Owner.ID, chatcore.SendMessageRequest{Type: "direct",
			To: new("[" + itoa(chatcore.MessageID(org.Ham.ID)) + "," + itoa(chatcore.MessageID(org.Ophelia.ID)) + "]"), Content: "all of us"})
		is.NoErr(err) // group DM sent
		_, err = messages.UpdateFlags(ctx, w.Svc, org.Ham.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{a}, Op: "add", Flag: "starred"})
		is.NoErr(err) // a starred
		st, err := eventqueue.Register(ctx, w.Svc, org.Ham.ID, eventqueue.RegisterRequest{Sections: []string{"message", "update_message_flags", "starred_messages"}})
		is.NoErr(err)                                         // registered
		is.Equal(*st.MaxMessageID, group)                     // the newest readable message
		is.Equal(st.StarredMessages, []chatcore.MessageID{a}) // starred
		u := st.Unread
		is.Equal(u.Count, 4)                                                                                                                      // a, b, dm, group
		is.Equal(u.Mentions, []chatcore.MessageID{b})                                                                                             // mentions
		is.Equal(u.Streams, []messages.UnreadStreamTopic{{StreamID: org.General.ID, Topic: "t", UnreadMessageIDs: []chatcore.MessageID{a, b}}})   // by topic
		is.Equal(u.Pms, []messages.UnreadDirect{{OtherUserID: org.Owner.ID, SenderID: org.Owner.ID, UnreadMessageIDs: []chatcore.MessageID{dm}}}) // 1:1
		ids := []chatcore.UserID{org.Owner.ID, org.Ham.ID, org.Ophelia.ID}
		slices.Sort(ids)
		is.Equal(u.Huddles[0].UnreadMessageIDs, []chatcore.MessageID{group})                                                                             // group DM
		is.Equal(u.Huddles[0].UserIDsString, itoa(chatcore.MessageID(ids[0]))+","+itoa(chatcore.MessageID(ids[1]))+","+itoa(chatcore.MessageID(ids[2]))) // every participant
		is.True(!u.OldUnreadsMissing)                                                                                                                    // under the cap
		only, err := eventqueue.Register(ctx, w.Svc, org.Ham.ID, eventqueue.RegisterRequest{Sections: []string{"update_message_flags"}})
		is.NoErr(err)               // registered
		is.True(only.Unread == nil) // unread_msgs needs message too, as in Zulip

		// Deleting the topic takes the flag rows with it.
		_, err = channels.DeleteTopic(ctx, w.Svc, org.Owner.ID, org.General.ID, "t")
		is.NoErr(err) // topic deleted
		st, err = eventqueue.Register(ctx, w.Svc, org.Ham.ID, eventqueue.RegisterRequest{Sections: []string{"starred_messages"}})
		is.NoErr(err)                        // registered
		is.Equal(len(st.StarredMessages), 0) // the star went with the message
	})
}
