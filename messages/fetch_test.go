package messages_test

// GET /messages at Zulip's feature level 467: the range rules (found_*,
// history_limited, include_anchor), anchor=date, message_ids and the narrow
// operators dm-including, with, is:resolved and has:<what>.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

// channelNarrow is a narrow to one channel.
func channelNarrow(st *chatcore.Stream) []messages.NarrowTerm {
	return []messages.NarrowTerm{{Operator: "channel", Operand: json.RawMessage(fmt.Sprint(st.ID))}}
}

// term is one narrow term with a JSON operand.
func term(op, operandJSON string) messages.NarrowTerm {
	return messages.NarrowTerm{Operator: op, Operand: json.RawMessage(operandJSON)}
}

func TestMessagesRangeEdges(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	var m [5]chatcore.MessageID
	for i := range m {
		m[i] = w.Send(t, org.Member, org.Public, "t", fmt.Sprintf("m%d", i))
		if i == 2 {
			w.SendDM(t, org.Member, "gap", org.Other) // an id between m2 and m3 outside the narrow
		}
	}
	gap := m[2] + 1
	const newest chatcore.MessageID = 10000000000000000
	for _, tc := range []struct {
		name                 string
		anchor               string
		before, after        int
		exclude              bool
		want                 []chatcore.MessageID
		anchorID             chatcore.MessageID
		found, oldest, newer bool
	}{
		{"anchor at the first message", fmt.Sprint(m[0]), 2, 1, false, m[0:2], m[0], true, true, false},
		{"anchor at the last message", fmt.Sprint(m[4]), 1, 2, false, m[3:5], m[4], true, false, true},
		{"anchor absent from the narrow", fmt.Sprint(gap), 1, 1, false, m[2:4], gap, false, false, false},
		{"anchor absent, nothing around", fmt.Sprint(gap), 0, 0, false, nil, gap, false, false, false},
		{"num_before and num_after 0", fmt.Sprint(m[2]), 0, 0, false, m[2:3], m[2], true, false, false},
		{"0 and 0 fetch the anchor even without include_anchor", fmt.Sprint(m[2]), 0, 0, true, m[2:3], m[2], true, false, false},
		{"include_anchor=false before", fmt.Sprint(m[2]), 2, 0, true, m[0:2], m[2], false, false, false},
		{"include_anchor=false before, short", fmt.Sprint(m[2]), 3, 0, true, m[0:2], m[2], false, true, false},
		{"include_anchor=false after", fmt.Sprint(m[2]), 0, 5, true, m[3:5], m[2], false, false, true},
		{"only after, exact count", fmt.Sprint(m[2]), 0, 2, false, m[2:5], m[2], true, false, false},
		{"anchor 0 is the oldest end", "0", 0, 2, false, m[0:2], 0, false, true, false},
		{"negative anchor is 0", "-5", 0, 2, false, m[0:2], 0, false, true, false},
		{"oldest with nothing after", "oldest", 0, 0, false, nil, 0, false, true, false},
		{"newest with nothing before", "newest", 0, 0, false, nil, newest, false, false, true},
		{"newest", "newest", 2, 3, false, m[3:5], newest, false, false, true},
		{"anchor beyond the maximum is newest", "99999999999999999999", 9, 0, false, m[:], newest, false, true, true},
		{"anchor below int64's range is 0", "-99999999999999999999", 0, 1, false, m[0:1], 0, false, true, false},
		{"huge id below the maximum", "9999999999999999", 1, 1, false, m[4:5], 9999999999999999, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			req := messages.Request{Anchor: new(tc.anchor), NumBefore: new(tc.before), NumAfter: new(tc.after),
				Narrow: channelNarrow(org.Public)}
			if tc.exclude {
				req.IncludeAnchor = new(false)
			}
			res, err := messages.Get(ctx, w.Svc, org.Other.ID, req)
			is.NoErr(err)                                                               // fetched
			is.Equal(viewIDs(res.Messages), append([]chatcore.MessageID{}, tc.want...)) // the range
			is.Equal(res.Anchor, tc.anchorID)                                           // the anchor Zulip reports
			is.Equal(res.FoundAnchor, tc.found)                                         // found_anchor
			is.Equal(res.FoundOldest, tc.oldest)                                        // found_oldest
			is.Equal(res.FoundNewest, tc.newer)                                         // found_newest
			is.Equal(res.HistoryLimited, false)                                         // no realm-wide history limit
		})
	}
	t.Run("anchor excluded inside the range", func(t *testing.T) {
		_, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{Anchor: new(fmt.Sprint(m[2])),
			NumBefore: new(1), NumAfter: new(1), IncludeAnchor: new(false)})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "The anchor can only be excluded at an end of the range")
	})
	t.Run("protected history", func(t *testing.T) {
		is := is.New(t)
		early := w.Send(t, org.Member, org.Protected, "v", "early")
		late := w.Send(t, org.Member, org.Protected, "v", "late")
		w.Subscribe(t, org.Protected, org.Other, late)
		res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{Anchor: new("newest"),
			NumBefore: new(10), Narrow: channelNarrow(org.Protected)})
		is.NoErr(err)                                               // fetched
		is.Equal(viewIDs(res.Messages), []chatcore.MessageID{late}) // the message before joining is hidden
		is.True(res.FoundOldest)                                    // nothing older the viewer may read
		is.Equal(res.HistoryLimited, false)                         // protected history is not history_limited
		is.True(early < late)                                       // the hidden one is older
	})
}

func TestMessagesAnchorDate(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	var ids []chatcore.MessageID
	for i, at := range []time.Time{t0, t0.Add(time.Hour), t0.Add(26 * time.Hour)} {
		w.Clock.Set(at)
		ids = append(ids, w.Send(t, org.Member, org.Public, "t", fmt.Sprint("d", i)))
		if i == 0 {
			w.Clock.Set(t0.Add(30 * time.Minute))
			w.SendDM(t, org.Member, "not in the narrow", org.Other)
		}
	}
	for _, tc := range []struct {
		name, date string
		want       chatcore.MessageID
	}{
		{"date only, before everything", "2026-03-01", ids[0]},
		{"date only, midnight UTC", "2026-03-11", ids[2]},
		{"exactly a message's time", "2026-03-10T10:00:00Z", ids[1]},
		{"between two messages, outside messages skipped", "2026-03-10T09:00:01Z", ids[1]},
		{"no offset is UTC", "2026-03-10T10:00", ids[1]},
		{"offset", "2026-03-10T10:30:00+01:00", ids[1]},
		{"fractional seconds", "2026-03-10T09:59:59.5Z", ids[1]},
		{"after every message", "2030-01-01", 10000000000000000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{Anchor: new("date"),
				AnchorDate: new(tc.date), NumAfter: new(1), Narrow: channelNarrow(org.Public)})
			is.NoErr(err)                 // fetched
			is.Equal(res.Anchor, tc.want) // first message at or after the date
			if tc.want == ids[2] || tc.want > ids[2] {
				is.True(res.FoundNewest) // nothing after
			}
		})
	}
	t.Run("missing anchor_date", func(t *testing.T) {
		_, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{Anchor: new("date")})
		chattest.WantError(t, err, chatcore.CodeRequestVariableMissing, chatcore.KindInvalid, "Missing 'anchor_date' argument")
	})
	for _, bad := range []string{"", "yesterday", "2026-13-01", "2026-03-10T25:00:00Z", "1710064800"} {
		t.Run("invalid "+bad, func(t *testing.T) {
			_, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{Anchor: new("date"), AnchorDate: new(bad)})
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid anchor_date")
		})
	}
}

func TestMessagesByIDs(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	a := w.Send(t, org.Member, org.Public, "t", "a")
	secret := w.Send(t, org.Member, org.Private, "t", "not for other")
	b := w.Send(t, org.Member, org.Public, "u", "b")
	d := w.SendDM(t, org.Member, "dm", org.Other)
	t.Run("visible ones, by id, once", func(t *testing.T) {
		is := is.New(t)
		res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{
			MessageIDs: []chatcore.MessageID{d, b, secret, 999999, a, b}, NumBefore: new(0)})
		is.NoErr(err)                                                     // fetched
		is.Equal(viewIDs(res.Messages), []chatcore.MessageID{a, b, d})    // sorted; hidden and unknown ids left out
		is.True(res.ByMessageIDs)                                         // named by id
		is.True(!res.FoundAnchor && !res.FoundOldest && !res.FoundNewest) // Zulip's flags for message_ids
		raw, err := json.Marshal(res)
		is.NoErr(err)                                       // encodes
		is.True(!strings.Contains(string(raw), `"anchor"`)) // no anchor key
		is.True(strings.Contains(string(raw), `"history_limited":false`))
	})
	t.Run("with a narrow", func(t *testing.T) {
		is := is.New(t)
		res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{
			MessageIDs: []chatcore.MessageID{a, b, d}, Narrow: []messages.NarrowTerm{term("topic", `"u"`)}})
		is.NoErr(err)                                            // fetched
		is.Equal(viewIDs(res.Messages), []chatcore.MessageID{b}) // the narrow still applies
	})
	t.Run("empty list", func(t *testing.T) {
		is := is.New(t)
		res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{MessageIDs: []chatcore.MessageID{}})
		is.NoErr(err)                  // fetched
		is.Equal(len(res.Messages), 0) // nothing named
	})
	const incompatible = "Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor"
	for _, tc := range []struct {
		name string
		req  messages.Request
	}{
		{"anchor", messages.Request{Anchor: new("newest")}},
		{"num_before", messages.Request{NumBefore: new(1)}},
		{"num_after", messages.Request{NumAfter: new(1)}},
		{"use_first_unread_anchor", messages.Request{UseFirstUnreadAnchor: new(true)}},
	} {
		t.Run("with "+tc.name, func(t *testing.T) {
			is := is.New(t)
			tc.req.MessageIDs = []chatcore.MessageID{a}
			_, err := messages.Get(ctx, w.Svc, org.Other.ID, tc.req)
			ce := chattest.WantError(t, err, chatcore.CodeIncompatibleParameters, chatcore.KindInvalid, incompatible)
			is.Equal(ce.Data["parameters"], "num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor") // the group named
		})
	}
	t.Run("over the bound", func(t *testing.T) {
		ids := make([]chatcore.MessageID, chatcore.MaxMessageIDs+1)
		for i := range ids {
			ids[i] = chatcore.MessageID(i + 1)
		}
		_, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{MessageIDs: ids})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Too many messages requested (maximum 5000).")
	})
}

func TestNarrowOperatorsOfLevel467(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	oneToOne := w.SendDM(t, org.Member, "1:1", org.Other)
	group := w.SendDM(t, org.Member, "group", org.Other, org.Admin)
	adminOnly := w.SendDM(t, org.Member, "member and admin", org.Admin)
	self := w.SendDM(t, org.Other, "note to self", org.Other)
	open := w.Send(t, org.Member, org.Public, "lunch", "where?")
	resolved := w.Send(t, org.Member, org.Public, messages.ResolvedTopicPrefix+"lunch", "done")
	link := w.Send(t, org.Member, org.Public, "media", "see https://example.com/x")
	// has:attachment and has:image come from uploads the messages really
	// reference: the member's two uploads.
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		for _, a := range []chatcore.Attachment{
			{RealmID: org.Realm.ID, OwnerID: org.Member.ID, PathID: "2/ab/cat.PNG", FileName: "cat.PNG", ContentType: "image/png", Size: 1, Created: chattest.Epoch},
			{RealmID: org.Realm.ID, OwnerID: org.Member.ID, PathID: "2/ab/notes.pdf", FileName: "notes.pdf", ContentType: "application/pdf", Size: 1, Created: chattest.Epoch},
		} {
			if err := tx.CreateAttachment(ctx, &a); err != nil {
				return err
			}
		}
		return nil
	})
	image := w.Send(t, org.Member, org.Public, "media", "[pic](/user_uploads/2/ab/cat.PNG)")
	file := w.Send(t, org.Member, org.Public, "media", "[doc](/user_uploads/2/ab/notes.pdf)")
	secret := w.Send(t, org.Member, org.Private, "media", "https://example.com/secret")
	var reacted chatcore.MessageID
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		m := chatcore.Message{RealmID: org.Realm.ID, SenderID: org.Member.ID, Type: chatcore.MessageTypeStream,
			RecipientID: org.Public.RecipientID, StreamID: org.Public.ID, Topic: "media", Content: "nice",
			RenderedContent: "<p>nice</p>", Client: "website", SentAt: chattest.Epoch,
			Reactions: []chatcore.Reaction{{UserID: org.Other.ID, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}}}
		err := tx.CreateMessage(ctx, &m)
		reacted = m.ID
		return err
	})
	fetch := func(tb testing.TB, viewer *chatcore.User, terms ...messages.NarrowTerm) ([]chatcore.MessageID, error) {
		res, err := messages.Get(ctx, w.Svc, viewer.ID, messages.Request{Anchor: new("newest"), NumBefore: new(100), Narrow: terms})
		return viewIDs(res.Messages), err
	}
	for _, tc := range []struct {
		name   string
		viewer *chatcore.User
		terms  []messages.NarrowTerm
		want   []chatcore.MessageID
	}{
		{"dm-including another user by id", org.Other, []messages.NarrowTerm{term("dm-including", fmt.Sprint(org.Member.ID))}, []chatcore.MessageID{oneToOne, group}},
		{"dm-including by e-mail", org.Other, []messages.NarrowTerm{term("dm-including", `"`+org.Admin.Email+`"`)}, []chatcore.MessageID{group}},
		{"dm-including oneself is every dm", org.Other, []messages.NarrowTerm{term("dm-including", fmt.Sprint(org.Other.ID))}, []chatcore.MessageID{oneToOne, group, self}},
		{"dm-including and a channel", org.Other, []messages.NarrowTerm{term("dm-including", fmt.Sprint(org.Member.ID)), term("channel", fmt.Sprint(org.Public.ID))}, []chatcore.MessageID{}},
		{"dm-including excludes others' dms", org.Admin, []messages.NarrowTerm{term("dm-including", fmt.Sprint(org.Member.ID))}, []chatcore.MessageID{group, adminOnly}},
		{"with a channel message", org.Other, []messages.NarrowTerm{term("with", fmt.Sprint(resolved))}, []chatcore.MessageID{resolved}},
		{"with replaces channel and topic terms", org.Other, []messages.NarrowTerm{term("channel", fmt.Sprint(org.Private.ID)), term("topic", `"other"`), term("with", fmt.Sprint(open))}, []chatcore.MessageID{open}},
		{"with a dm, as a string", org.Other, []messages.NarrowTerm{term("with", fmt.Sprintf(`"%d"`, group))}, []chatcore.MessageID{group}},
		{"with an unreadable message is dropped", org.Other, []messages.NarrowTerm{term("topic", `"lunch"`), term("with", fmt.Sprint(adminOnly))}, []chatcore.MessageID{open}},
		{"with an unknown message is dropped", org.Other, []messages.NarrowTerm{term("with", "999999"), term("is", `"dm"`)}, []chatcore.MessageID{oneToOne, group, self}},
		{"is:resolved", org.Other, []messages.NarrowTerm{term("is", `"resolved"`)}, []chatcore.MessageID{resolved}},
		{"has:link", org.Member, []messages.NarrowTerm{term("has", `"link"`)}, []chatcore.MessageID{link, image, file, secret}},
		{"has:image", org.Member, []messages.NarrowTerm{term("has", `"image"`)}, []chatcore.MessageID{image}},
		{"has:attachment", org.Member, []messages.NarrowTerm{term("has", `"attachment"`)}, []chatcore.MessageID{image, file}},
		{"has:link for a reader without the private channel", org.Other, []messages.NarrowTerm{term("has", `"link"`)}, []chatcore.MessageID{link, image, file}},
		{"has:reaction", org.Other, []messages.NarrowTerm{term("has", `"reaction"`)}, []chatcore.MessageID{reacted}},
		{"two has terms", org.Member, []messages.NarrowTerm{term("has", `"attachment"`), term("has", `"image"`)}, []chatcore.MessageID{image}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, err := fetch(t, tc.viewer, tc.terms...)
			is.NoErr(err)                                             // fetched
			is.Equal(append([]chatcore.MessageID{}, got...), tc.want) // exactly these
		})
	}
	for _, tc := range []struct {
		name string
		t    []messages.NarrowTerm
		code chatcore.Code
		msg  string
	}{
		{"unknown in", []messages.NarrowTerm{term("in", `"nowhere"`)}, chatcore.CodeBadNarrow, "Invalid narrow operator: unknown 'in' operand nowhere"},
		{"unknown is", []messages.NarrowTerm{term("is", `"shiny"`)}, chatcore.CodeBadNarrow, "Invalid narrow operator: unknown 'is' operand shiny"},
		{"unknown has", []messages.NarrowTerm{term("has", `"video"`)}, chatcore.CodeBadNarrow, "Invalid narrow operator: unknown 'has' operand video"},
		{"dm-including unknown id", []messages.NarrowTerm{term("dm-including", "999999")}, chatcore.CodeBadNarrow, "Invalid narrow operator: unknown user 999999"},
		{"dm-including another realm", []messages.NarrowTerm{term("dm-including", fmt.Sprint(org.Stranger.ID))}, chatcore.CodeBadNarrow, fmt.Sprintf("Invalid narrow operator: unknown user %d", org.Stranger.ID)},
		{"dm-including unknown e-mail", []messages.NarrowTerm{term("dm-including", `"nobody@x.test"`)}, chatcore.CodeBadNarrow, "Invalid narrow operator: unknown user nobody@x.test"},
		{"with a non-integer", []messages.NarrowTerm{term("with", `"abc"`)}, chatcore.CodeBadNarrow, "Invalid narrow operator: Invalid 'with' operator"},
		{"two with terms", []messages.NarrowTerm{term("with", "1"), term("with", "2")}, chatcore.CodeBadRequest, "Duplicate 'with' operators."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fetch(t, org.Other, tc.t...)
			chattest.WantError(t, err, tc.code, chatcore.KindInvalid, tc.msg)
		})
	}
}

// TestHasNarrowPaginates checks that has:link counts only matching messages
// towards num_before, however many others lie between them.
func TestHasNarrowPaginates(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	var linked []chatcore.MessageID
	for i := range 40 {
		if i%8 == 0 {
			linked = append(linked, w.Send(t, org.Member, org.Public, "t", fmt.Sprintf("https://example.com/%d", i)))
			continue
		}
		w.Send(t, org.Member, org.Public, "t", fmt.Sprint("plain ", i))
	}
	narrow := []messages.NarrowTerm{term("has", `"link"`)}
	res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{Anchor: new("newest"), NumBefore: new(3), Narrow: narrow})
	is.NoErr(err)                                           // fetched
	is.Equal(viewIDs(res.Messages), linked[len(linked)-3:]) // the three newest linked messages
	is.True(!res.FoundOldest)                               // more linked messages remain
	res, err = messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{Anchor: new(fmt.Sprint(res.Messages[0].ID)),
		NumBefore: new(5), IncludeAnchor: new(false), Narrow: narrow})
	is.NoErr(err)                                           // the next page
	is.Equal(viewIDs(res.Messages), linked[:len(linked)-3]) // the rest
	is.True(res.FoundOldest)                                // and no more
}

// TestMessageViewsCarryNoRenderedContent checks GET /messages and GET
// /messages/{id} objects against Zulip's message object: no rendered_content.
func TestMessageViewsCarryNoRenderedContent(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	id := w.Send(t, org.Member, org.Public, "t", "**hi**")
	v, _, err := messages.One(ctx, w.Svc, org.Other.ID, id, messages.OneRequest{})
	is.NoErr(err) // fetched
	keys, _ := chattest.JSONKeys(t, v)
	for _, k := range keys {
		is.True(k != "rendered_content") // not in GET /messages/{id}
	}
	res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{Anchor: new("newest"), NumBefore: new(1)})
	is.NoErr(err) // fetched
	keys, _ = chattest.JSONKeys(t, res.Messages[0])
	for _, k := range keys {
		is.True(k != "rendered_content") // not in GET /messages
	}
	is.Equal(res.Messages[0].RenderedContent, "<p><strong>hi</strong></p>") // still there for the webhook payload
}
