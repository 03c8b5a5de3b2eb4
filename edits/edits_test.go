package edits_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/edits"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

func str(s string) *string { return &s }

// newCast builds a World with open and stores the chattest.Cast in it; opts
// go to the Service.
func newCast(tb testing.TB, open chattest.Open, opts ...chatcore.Option) (*chattest.World, *chattest.Cast) {
	tb.Helper()
	w := open(tb, chattest.With(opts...))
	return w, w.SeedCast(tb)
}

func TestUpdateContent(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member, c.Admin}})
		id, err := w.Svc.SendMessage(t.Context(), c.Member.ID, chatcore.SendMessageRequest{Type: "stream", To: str("Denmark"), Topic: str("castle"), Content: "to be"})
		is.NoErr(err)
		w.Events.Reset()
		sum := sha256.Sum256([]byte("to be"))
		err = edits.Update(t.Context(), w.Svc, c.Member.ID, id, edits.Request{
			Content: str("or not @**Iago**"), PrevContentSHA256: str(hex.EncodeToString(sum[:]))})
		is.NoErr(err) // the sender edits within the limit
		m := w.Message(t, id)
		is.Equal(m.Content, "or not @**Iago**")
		is.True(m.LastEditedAt.Equal(w.Clock.Current().Truncate(time.Second)) || !m.LastEditedAt.IsZero())
		is.Equal(len(m.EditHistory), 1)
		is.Equal(m.EditHistory[0].PrevContent, "to be")
		evs := w.Events.OfType("update_message")
		is.True(len(evs) >= 1)
		var admin map[string]any
		for _, ev := range evs {
			is.Equal(ev.Data["orig_content"], "to be")
			is.Equal(ev.Data["content"], "or not @**Iago**")
			is.Equal(ev.Data["stream_id"], st.ID)
			is.Equal(ev.Data["message_ids"], []chatcore.MessageID{id})
			if slices.Contains(ev.UserIDs, c.Admin.ID) {
				admin = ev.Data
			}
		}
		is.True(admin != nil)                                            // the subscribers hear of it
		is.True(slices.Contains(admin["flags"].([]string), "mentioned")) // the new mention sets the flag
		ums := userMessagesOf(t, w, c.Admin, id)
		is.True(ums[0].Flags&chatcore.FlagMentioned != 0) // stored too

		hist, err := messages.History(t.Context(), w.Svc, c.Admin.ID, id, false)
		is.NoErr(err)
		is.Equal(len(hist), 2)             // the original and the edit
		is.Equal(hist[0].Content, "to be") // oldest first
		is.Equal(hist[1].Content, "or not @**Iago**")
		is.Equal(*hist[1].PrevContent, "to be")
		is.True(hist[1].ContentHTMLDiff != nil) // the diff of the renderings

		// Errors, in Zulip's order.
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Admin.ID, id, edits.Request{Content: str("x")}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "You don't have permission to edit this message")
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Member.ID, id, edits.Request{}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "Nothing to change")
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Member.ID, id, edits.Request{Content: str("x"), PrevContentSHA256: str("00")}),
			chatcore.CodeExpectationMismatch, chatcore.KindInvalid, "'prev_content_sha256' value does not match the expected value.")
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Member.ID, id, edits.Request{PropagateMode: str("change_all"), Content: str("x")}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid propagate_mode without topic edit")
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Member.ID, id, edits.Request{PropagateMode: str("sideways"), Content: str("x")}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid propagate_mode")
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Stranger.ID, id, edits.Request{Content: str("x")}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid message(s)")
		w.Clock.Advance(600*time.Second + 21*time.Second)
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Member.ID, id, edits.Request{Content: str("late")}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "The time limit for editing this message has passed")
	})
}

func TestUpdateDirect(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		id, err := w.Svc.SendMessage(t.Context(), c.Member.ID, chatcore.SendMessageRequest{Type: "direct", To: str("[" + strconv.FormatInt(int64(c.Admin.ID), 10) + "]"), Content: "psst"})
		is.NoErr(err)
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Member.ID, id, edits.Request{Topic: str("t")}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "Direct messages cannot have topics.")
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Member.ID, id, edits.Request{StreamID: new(chatcore.StreamID(1))}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "Direct messages cannot be moved to channels.")
		w.Events.Reset()
		is.NoErr(edits.Update(t.Context(), w.Svc, c.Member.ID, id, edits.Request{Content: str("  ")}))
		is.Equal(w.Message(t, id).Content, "(deleted)") // empty content becomes "(deleted)"
		evs := w.Events.OfType("update_message")
		var users []chatcore.UserID
		for _, ev := range evs {
			users = append(users, ev.UserIDs...)
			_, has := ev.Data["stream_id"]
			is.True(!has) // no channel fields for a direct message
		}
		slices.Sort(users)
		want := []chatcore.UserID{c.Member.ID, c.Admin.ID}
		slices.Sort(want)
		is.Equal(users, want) // the participants
	})
}

func TestUpdateMoveTopic(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open, chatcore.WithTopicDeletion(2, 0))
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member, c.Admin, c.Moderator}})
		ids := w.PostN(t, st, "castle", c.Member, 5)
		keep := w.Post(t, st, "other", c.Member, "stays")
		_, err := messages.UpdateFlags(t.Context(), w.Svc, c.Admin.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{ids[0]}, Op: "add", Flag: "starred"})
		is.NoErr(err)
		w.Events.Reset()
		err = edits.Update(t.Context(), w.Svc, c.Moderator.ID, ids[2], edits.Request{
			Topic: str("tower"), PropagateMode: str("change_all"), SendNotificationToOldThread: new(true)})
		is.NoErr(err) // anyone may move topics by default
		tower := "tower"
		moved := w.ChannelMessageIDs(t, st, &tower)
		is.Equal(moved[:5], ids) // every message of the topic moved (plus the notification)
		for _, id := range ids {
			m := w.Message(t, id)
			is.Equal(m.Topic, "tower")
			is.Equal(len(m.Reactions), 1) // reactions kept
			is.Equal(len(m.EditHistory), 1)
			is.Equal(*m.EditHistory[0].PrevTopic, "castle")
		}
		is.Equal(w.Message(t, keep).Topic, "other")
		ums := userMessagesOf(t, w, c.Admin, ids[0])
		is.True(ums[0].Flags&chatcore.FlagStarred != 0) // flags kept

		evs := w.Events.OfType("update_message")
		var all []chatcore.MessageID
		for _, ev := range evs {
			is.Equal(ev.Data["orig_subject"], "castle")
			is.Equal(ev.Data["subject"], "tower")
			is.Equal(ev.Data["propagate_mode"], "change_all")
			is.Equal(ev.Data["message_id"], ids[2])
			for _, id := range ev.Data["message_ids"].([]chatcore.MessageID) {
				if !slices.Contains(all, id) {
					all = append(all, id)
				}
			}
		}
		slices.Sort(all)
		is.Equal(all, ids) // the batches' events name every moved message

		msgs := w.Events.OfType("message")
		var texts []string
		for _, ev := range msgs {
			texts = append(texts, ev.Data["message"].(chatcore.MessageView).Content)
		}
		is.True(len(texts) >= 2) // notifications to both threads
		castle := "castle"
		old := w.ChannelMessageIDs(t, st, &castle)
		is.Equal(len(old), 1) // the old thread holds only the notification
		is.Equal(w.Message(t, old[0]).Content, "This topic was moved to #**Denmark>tower** by @_**"+c.Moderator.FullName+"|"+strconv.FormatInt(int64(c.Moderator.ID), 10)+"**.")
		is.Equal(w.Message(t, moved[5]).Content, "This topic was moved here from #**Denmark>castle** by @_**"+c.Moderator.FullName+"|"+strconv.FormatInt(int64(c.Moderator.ID), 10)+"**.")

		// change_one moves one message; the new thread hears of it.
		is.NoErr(edits.Update(t.Context(), w.Svc, c.Member.ID, ids[4], edits.Request{Topic: str("yard")}))
		is.Equal(w.Message(t, ids[4]).Topic, "yard")
		is.Equal(w.Message(t, ids[3]).Topic, "tower")

		// Limits and permissions.
		w.Clock.Advance(8 * 24 * time.Hour)
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Member.ID, ids[0], edits.Request{Topic: str("late")}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "The time limit for editing this message's topic has passed.")
		is.NoErr(edits.Update(t.Context(), w.Svc, c.Moderator.ID, ids[0], edits.Request{Topic: str("late")})) // moderators have no limit
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Member.ID, ids[0], edits.Request{Topic: str("✔")}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "General chat cannot be marked as resolved")
	})
}

func TestUpdateMoveChannel(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		from := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member, c.Admin, c.Guest}})
		to := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Norway", InviteOnly: true, Subscribers: []*chatcore.User{c.Member, c.Admin}})
		ids := w.PostN(t, from, "castle", c.Member, 3)
		_, err := messages.UpdateFlags(t.Context(), w.Svc, c.Admin.ID, messages.UpdateFlagsRequest{Messages: ids, Op: "add", Flag: "starred"})
		is.NoErr(err)
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Guest.ID, ids[0], edits.Request{StreamID: &to.ID}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid channel ID") // the guest cannot reach the private channel
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Member.ID, ids[0], edits.Request{StreamID: &to.ID, Content: str("x")}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "Cannot change message content while changing channel")
		w.Events.Reset()
		is.NoErr(edits.Update(t.Context(), w.Svc, c.Member.ID, ids[1], edits.Request{StreamID: &to.ID, PropagateMode: str("change_later"),
			SendNotificationToNewThread: new(false)}))
		is.Equal(w.Message(t, ids[0]).StreamID, from.ID) // earlier messages stay
		for _, id := range ids[1:] {
			m := w.Message(t, id)
			is.Equal(m.StreamID, to.ID)
			is.Equal(m.EditHistory[0].PrevStreamID, from.ID)
			is.Equal(userMessagesOf(t, w, c.Admin, id)[0].Flags&chatcore.FlagStarred, chatcore.FlagStarred) // flags kept
		}
		var gone []chatcore.MessageID
		for _, ev := range w.Events.OfType("delete_message") { // one per transaction: the message, then each batch
			is.Equal(ev.UserIDs, []chatcore.UserID{c.Guest.ID}) // the guest loses access, only them
			gone = append(gone, ev.Data["message_ids"].([]chatcore.MessageID)...)
		}
		is.Equal(gone, ids[1:])
		for _, ev := range w.Events.OfType("update_message") {
			is.Equal(ev.Data["new_stream_id"], to.ID)
			is.True(!slices.Contains(ev.UserIDs, c.Guest.ID))
		}
		is.Equal(w.Stream(t, to.ID).FirstMessageID, ids[1]) // the new channel's first message
		is.Equal(len(w.Events.OfType("message")), 0)        // no notification asked for

		// Members may move between channels by default; guests may not.
		w.Subscribe(t, to, c.Guest, 0)
		chattest.WantError(t, edits.Update(t.Context(), w.Svc, c.Guest.ID, ids[0], edits.Request{StreamID: &to.ID}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "You don't have permission to move this message")
	})
}

func TestDelete(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member, c.Moderator}})
		ids := w.PostN(t, st, "castle", c.Member, 3)
		botMsg := w.Post(t, st, "castle", c.Bot, "beep")
		chattest.WantError(t, edits.Delete(t.Context(), w.Svc, c.Moderator.ID, ids[0]),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "You don't have permission to delete this message")
		chattest.WantError(t, edits.Delete(t.Context(), w.Svc, c.Stranger.ID, ids[0]),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid message(s)")
		w.Events.Reset()
		is.NoErr(edits.Delete(t.Context(), w.Svc, c.Member.ID, ids[2])) // own, within the limit
		is.NoErr(edits.Delete(t.Context(), w.Svc, c.Member.ID, botMsg)) // own bot's
		evs := w.Events.OfType("delete_message")
		is.Equal(len(evs), 2)
		is.Equal(evs[0].Data, map[string]any{"type": "delete_message", "message_type": "stream", "stream_id": st.ID,
			"topic": "castle", "message_ids": []chatcore.MessageID{ids[2]}})
		w.Clock.Advance(601 * time.Second)
		chattest.WantError(t, edits.Delete(t.Context(), w.Svc, c.Member.ID, ids[1]),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "The time limit for deleting this message has passed")
		is.NoErr(edits.Delete(t.Context(), w.Svc, c.Admin.ID, ids[0])) // administrators have no limit
		is.Equal(w.ChannelMessageIDs(t, st, nil), []chatcore.MessageID{ids[1]})

		// The realm's policy decides.
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			r, err := tx.Realm(ctx, c.Realm.ID)
			if err != nil {
				return err
			}
			r.Messages.DeleteOwnLimit = chatcore.Unlimited
			r.Messages.EditHistoryDisabled = true
			return tx.UpdateRealm(ctx, r)
		})
		_, err := messages.History(t.Context(), w.Svc, c.Member.ID, ids[1], false)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Message edit history is disabled in this organization")
		is.NoErr(edits.Delete(t.Context(), w.Svc, c.Member.ID, ids[1])) // no limit now
	})
}

// userMessagesOf reads user's view of the message, which must exist.
func userMessagesOf(tb testing.TB, w *chattest.World, u *chatcore.User, id chatcore.MessageID) []chatcore.UserMessage {
	tb.Helper()
	var out []chatcore.UserMessage
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		var err error
		out, err = tx.UserMessages(ctx, u.ID, []chatcore.MessageID{id})
		return err
	})
	if len(out) != 1 {
		tb.Fatalf("message %d: %d views", id, len(out))
	}
	return out
}
