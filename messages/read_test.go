package messages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

func TestMessageVisibility(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	pub := w.Send(t, org.Member, org.Public, "t", "public")
	priv := w.Send(t, org.Member, org.Private, "t", "private")
	early := w.Send(t, org.Member, org.Protected, "t", "before the others joined")
	late := w.Send(t, org.Member, org.Protected, "t", "after")
	direct := w.SendDM(t, org.Member, "direct", org.Other)
	w.Subscribe(t, org.Private, org.Other, 0)
	w.Subscribe(t, org.Protected, org.Other, late)

	for _, tc := range []struct {
		name   string
		viewer *chatcore.User
		id     chatcore.MessageID
		ok     bool
	}{
		{"public channel, member", org.Other, pub, true},
		{"public channel, unsubscribed member", org.Admin, pub, true},
		{"public channel, unsubscribed guest", org.Guest, pub, false},
		{"private channel, subscriber", org.Other, priv, true},
		{"private channel, admin without subscription", org.Admin, priv, false},
		{"protected history, before joining", org.Other, early, false},
		{"protected history, after joining", org.Other, late, true},
		{"protected history, sender", org.Member, early, true},
		{"direct message, participant", org.Other, direct, true},
		{"direct message, sender", org.Member, direct, true},
		{"direct message, outsider", org.Admin, direct, false},
		{"another realm", org.Stranger, pub, false},
		{"unknown id", org.Member, 999999, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, _, err := messages.One(ctx, w.Svc, tc.viewer.ID, tc.id, messages.OneRequest{})
			if tc.ok {
				is.NoErr(err) // visible
				return
			}
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid message(s)")
		})
	}
	t.Run("guest after subscribing", func(t *testing.T) {
		is := is.New(t)
		w.Subscribe(t, org.Public, org.Guest, 0)
		_, _, err := messages.One(ctx, w.Svc, org.Guest.ID, pub, messages.OneRequest{})
		is.NoErr(err) // a subscribed guest sees the channel
	})
	t.Run("unsubscribed from a private channel", func(t *testing.T) {
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			return tx.PutSubscription(ctx, chatcore.Subscription{StreamID: org.Private.ID, UserID: org.Other.ID, Active: false})
		})
		_, _, err := messages.One(ctx, w.Svc, org.Other.ID, priv, messages.OneRequest{})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid message(s)")
	})
}

// viewIDs returns the ids of views.
func viewIDs(views []chatcore.MessageView) []chatcore.MessageID {
	out := make([]chatcore.MessageID, 0, len(views))
	for _, v := range views {
		out = append(out, v.ID)
	}
	return out
}

func TestMessagesAnchors(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	var ids []chatcore.MessageID
	for i := range 6 {
		ids = append(ids, w.Send(t, org.Member, org.Public, "t", fmt.Sprint("m", i)))
	}
	narrow := []messages.NarrowTerm{{Operator: "channel", Operand: json.RawMessage(fmt.Sprint(org.Public.ID))}}
	get := func(t *testing.T, anchor string, before, after int) messages.Result {
		is := is.New(t)
		res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{
			Anchor: new(anchor), NumBefore: new(before), NumAfter: new(after), Narrow: narrow})
		is.NoErr(err) // fetched
		return res
	}
	t.Run("newest", func(t *testing.T) {
		is := is.New(t)
		res := get(t, "newest", 3, 0)
		is.Equal(viewIDs(res.Messages), ids[3:])                    // the three newest, oldest first
		is.True(res.FoundNewest)                                    // anchored at the newest end
		is.True(!res.FoundOldest)                                   // more before
		is.True(!res.FoundAnchor)                                   // no message is the anchor
		is.Equal(res.Anchor, chatcore.MessageID(10000000000000000)) // Zulip's newest anchor
	})
	t.Run("newest, everything", func(t *testing.T) {
		is := is.New(t)
		res := get(t, "newest", 100, 0)
		is.Equal(viewIDs(res.Messages), ids) // all of them
		is.True(res.FoundOldest)             // fewer than asked for
		is.True(res.FoundNewest)             // newest end
	})
	t.Run("oldest", func(t *testing.T) {
		is := is.New(t)
		res := get(t, "oldest", 0, 2)
		is.Equal(viewIDs(res.Messages), ids[:2])    // the two oldest
		is.True(res.FoundOldest)                    // anchored at the oldest end
		is.True(!res.FoundNewest)                   // more after
		is.Equal(res.Anchor, chatcore.MessageID(0)) // oldest anchor
	})
	t.Run("message id", func(t *testing.T) {
		is := is.New(t)
		res := get(t, fmt.Sprint(ids[2]), 1, 1)
		is.Equal(viewIDs(res.Messages), ids[1:4]) // one before, the anchor, one after
		is.True(res.FoundAnchor)                  // the anchor exists
		is.True(!res.FoundOldest)                 // got as many as asked for before
		is.True(!res.FoundNewest)                 // got as many as asked for after
		is.Equal(res.Anchor, ids[2])              // echoed
	})
	t.Run("message id near the ends", func(t *testing.T) {
		is := is.New(t)
		res := get(t, fmt.Sprint(ids[1]), 5, 10)
		is.Equal(viewIDs(res.Messages), ids) // everything
		is.True(res.FoundOldest)             // fewer before than asked
		is.True(res.FoundNewest)             // fewer after than asked
	})
	t.Run("anchor alone", func(t *testing.T) {
		is := is.New(t)
		res := get(t, fmt.Sprint(ids[4]), 0, 0)
		is.Equal(viewIDs(res.Messages), ids[4:5]) // just the anchor
		is.True(res.FoundAnchor)                  // found
	})
	t.Run("anchor between messages", func(t *testing.T) {
		is := is.New(t)
		w.SendDM(t, org.Member, "elsewhere", org.Admin) // takes an id the channel narrow does not match
		res := get(t, "newest", 1, 0)
		is.Equal(viewIDs(res.Messages), ids[5:]) // the DM is not in the channel narrow
	})
	t.Run("without the anchor", func(t *testing.T) {
		is := is.New(t)
		res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{
			Anchor: new(fmt.Sprint(ids[2])), NumAfter: new(1), Narrow: narrow, IncludeAnchor: new(false)})
		is.NoErr(err)                                                 // fetched
		is.Equal(viewIDs(res.Messages), []chatcore.MessageID{ids[3]}) // anchor left out
		is.True(!res.FoundAnchor)                                     // not fetched, so not found
	})
	t.Run("raw Markdown", func(t *testing.T) {
		is := is.New(t)
		res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{
			Anchor: new(fmt.Sprint(ids[0])), Narrow: narrow, ApplyMarkdown: new(false)})
		is.NoErr(err)                                            // fetched
		is.Equal(res.Messages[0].Content, "m0")                  // raw
		is.Equal(res.Messages[0].ContentType, "text/x-markdown") // Markdown type
		is.Equal(res.Messages[0].RenderedContent, "<p>m0</p>")   // rendered_content still HTML
	})
	for _, tc := range []struct {
		name string
		req  messages.Request
		msg  string
	}{
		{"bad anchor", messages.Request{Anchor: new("soon")}, "Invalid anchor"},
		{"negative num_before", messages.Request{NumBefore: new(-1)}, "num_before is too small"},
		{"negative num_after", messages.Request{NumAfter: new(-1)}, "num_after is too small"},
		{"too many", messages.Request{NumBefore: new(1001)}, "Too many messages requested (maximum 1000)."},
		{"unknown operator", messages.Request{Narrow: []messages.NarrowTerm{{Operator: "color", Operand: json.RawMessage(`"red"`)}}},
			"Invalid narrow operator: unknown operator color"},
		{"unknown channel", messages.Request{Narrow: []messages.NarrowTerm{{Operator: "channel", Operand: json.RawMessage(`"Nowhere"`)}}},
			"Invalid narrow operator: unknown channel"},
		{"channel of another realm", messages.Request{Narrow: []messages.NarrowTerm{{Operator: "stream", Operand: json.RawMessage(fmt.Sprint(org.StrangerStream.ID))}}},
			"Invalid narrow operator: unknown channel"},
		{"user of another realm", messages.Request{Narrow: []messages.NarrowTerm{{Operator: "dm", Operand: json.RawMessage(fmt.Sprintf("[%d]", org.Stranger.ID))}}},
			fmt.Sprintf("Invalid narrow operator: unknown user ID %d", org.Stranger.ID)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := messages.Get(ctx, w.Svc, org.Other.ID, tc.req)
			code := chatcore.CodeBadRequest
			if strings.HasPrefix(tc.msg, "Invalid narrow operator: ") {
				code = chatcore.CodeBadNarrow // Zulip's BadNarrowOperatorError
			}
			chattest.WantError(t, err, code, chatcore.KindInvalid, tc.msg)
		})
	}
}

func TestMessagesNarrowsAndVisibility(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	alpha1 := w.Send(t, org.Member, org.Public, "Straße", "a1")
	beta := w.Send(t, org.Member, org.Public, "beta", "b")
	alpha2 := w.Send(t, org.Other, org.Public, "STRASSE", "a2")
	secret := w.Send(t, org.Member, org.Private, "Straße", "s")
	early := w.Send(t, org.Member, org.Protected, "t", "early")
	d1 := w.SendDM(t, org.Member, "d1", org.Other)
	group := w.SendDM(t, org.Member, "g", org.Other, org.Admin)
	d2 := w.SendDM(t, org.Other, "d2", org.Member)
	w.Subscribe(t, org.Protected, org.Other, early+1)
	late := w.Send(t, org.Member, org.Protected, "t", "late")

	fetch := func(t *testing.T, viewer *chatcore.User, narrow ...messages.NarrowTerm) []chatcore.MessageID {
		is := is.New(t)
		res, err := messages.Get(ctx, w.Svc, viewer.ID, messages.Request{
			Anchor: new("newest"), NumBefore: new(100), Narrow: narrow})
		is.NoErr(err) // fetched
		return viewIDs(res.Messages)
	}
	term := func(op, operand string) messages.NarrowTerm {
		return messages.NarrowTerm{Operator: op, Operand: json.RawMessage(operand)}
	}
	t.Run("channel and topic, case-insensitive", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Other, term("channel", `"verona"`), term("topic", `"strasse"`))
		is.Equal(got, []chatcore.MessageID{alpha1, alpha2}) // Unicode case folding
	})
	t.Run("topic across channels", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Member, term("topic", `"straße"`))
		is.Equal(got, []chatcore.MessageID{alpha1, alpha2, secret}) // every visible channel
		got = fetch(t, org.Other, term("topic", `"straße"`))
		is.Equal(got, []chatcore.MessageID{alpha1, alpha2}) // not the private channel
	})
	t.Run("channel by id", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Other, term("stream", fmt.Sprint(org.Public.ID)))
		is.Equal(got, []chatcore.MessageID{alpha1, beta, alpha2}) // the channel's messages
	})
	t.Run("private channel without access", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Other, term("channel", `"secret"`))
		is.Equal(len(got), 0) // nothing visible
	})
	t.Run("protected history", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Other, term("channel", `"vault"`))
		is.Equal(got, []chatcore.MessageID{late}) // only after joining
		got = fetch(t, org.Member, term("channel", `"vault"`))
		is.Equal(got, []chatcore.MessageID{early, late}) // the original subscriber sees both
	})
	t.Run("one-to-one conversation", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Member, term("dm", fmt.Sprintf("[%d]", org.Other.ID)))
		is.Equal(got, []chatcore.MessageID{d1, d2}) // both directions, not the group
		got = fetch(t, org.Other, term("dm", fmt.Sprintf("[%d]", org.Member.ID)))
		is.Equal(got, []chatcore.MessageID{d1, d2}) // the same conversation from the other side
	})
	t.Run("group conversation", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Admin, term("dm", fmt.Sprintf("[%d,%d]", org.Other.ID, org.Member.ID)))
		is.Equal(got, []chatcore.MessageID{group}) // the group only
	})
	t.Run("no conversation yet", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Guest, term("dm", fmt.Sprintf("[%d]", org.Admin.ID)))
		is.Equal(len(got), 0) // empty
	})
	t.Run("sender", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Member, term("sender", fmt.Sprint(org.Other.ID)))
		is.Equal(got, []chatcore.MessageID{alpha2, d2}) // only other's messages
		got = fetch(t, org.Member, term("sender", fmt.Sprintf("%q", org.Other.Email)), term("channel", `"Verona"`))
		is.Equal(got, []chatcore.MessageID{alpha2}) // combined with a channel
	})
	t.Run("is:dm", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Other, term("is", `"dm"`))
		is.Equal(got, []chatcore.MessageID{d1, group, d2}) // direct messages only
	})
	t.Run("no narrow", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, org.Other)
		is.Equal(got, []chatcore.MessageID{alpha1, beta, alpha2, d1, group, d2, late}) // everything other may see
		got = fetch(t, org.Guest)
		is.Equal(len(got), 0) // a guest with no subscriptions sees nothing
		got = fetch(t, org.Stranger)
		is.Equal(len(got), 0) // another realm sees nothing
	})
	t.Run("hidden messages do not shorten the page", func(t *testing.T) {
		is := is.New(t)
		res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{Anchor: new("newest"), NumBefore: new(3)})
		is.NoErr(err)                                                          // fetched
		is.Equal(viewIDs(res.Messages), []chatcore.MessageID{group, d2, late}) // skips what other cannot see
	})
}

func BenchmarkMessagesNewest(b *testing.B) {
	w, org := chattest.NewMessaging(b)
	ctx := context.Background()
	for i := range 2000 {
		st := org.Public
		if i%4 == 0 {
			st = org.Private
		}
		w.Send(b, org.Member, st, fmt.Sprint("topic ", i%10), fmt.Sprint("message ", i))
	}
	req := messages.Request{Anchor: new("newest"), NumBefore: new(100)}
	b.ReportAllocs()
	for b.Loop() {
		res, err := messages.Get(ctx, w.Svc, org.Other.ID, req)
		if err != nil || len(res.Messages) != 100 {
			b.Fatal(err, len(res.Messages))
		}
	}
}

// TestGetMessageApplyMarkdown checks One's apply_markdown: rendered
// HTML when nil or true, the raw Markdown when false; the raw Markdown is
// returned beside it in every case.
func TestGetMessageApplyMarkdown(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	id := w.Send(t, org.Member, org.Public, "t", "**bold**")
	for _, tt := range []struct {
		name        string
		apply       *bool
		content     string
		contentType string
	}{
		{"nil", nil, "<p><strong>bold</strong></p>", "text/html"},
		{"true", new(true), "<p><strong>bold</strong></p>", "text/html"},
		{"false", new(false), "**bold**", "text/x-markdown"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			view, raw, err := messages.One(t.Context(), w.Svc, org.Other.ID, id, messages.OneRequest{ApplyMarkdown: tt.apply})
			is.NoErr(err)                                                  // readable
			is.Equal(view.Content, tt.content)                             // content in the asked format
			is.Equal(view.ContentType, tt.contentType)                     // and its type
			is.Equal(view.RenderedContent, "<p><strong>bold</strong></p>") // rendered_content is always HTML
			is.Equal(raw, "**bold**")                                      // the raw Markdown beside it
		})
	}
}

// TestMeMaxMessageIDIsNewestOfGet checks that GET /users/me's max_message_id
// is the newest message GET /messages gives with no narrow (-1 for none), for
// every kind of viewer, while messages arrive that only some of them may read.
func TestMeMaxMessageIDIsNewestOfGet(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	check := func(t *testing.T, step string) {
		t.Helper()
		for _, u := range []*chatcore.User{org.Admin, org.Member, org.Other, org.Guest, org.Bot, org.Stranger} {
			me, err := accounts.Me(ctx, w.Svc, u.ID)
			if err != nil {
				t.Fatalf("%s: Me(%s): %v", step, u.FullName, err)
			}
			res, err := messages.Get(ctx, w.Svc, u.ID, messages.Request{Anchor: new("newest"), NumBefore: new(1), NumAfter: new(0)})
			if err != nil {
				t.Fatalf("%s: Get(%s): %v", step, u.FullName, err)
			}
			want := chatcore.MessageID(-1)
			if n := len(res.Messages); n > 0 {
				want = res.Messages[n-1].ID
			}
			if *me.MaxMessageID != want {
				t.Errorf("%s: %s: max_message_id %d, newest of GET /messages %d", step, u.FullName, *me.MaxMessageID, want)
			}
		}
	}
	check(t, "no message")
	w.Send(t, org.Member, org.Public, "t", "public")
	check(t, "public channel")
	early := w.Send(t, org.Member, org.Protected, "t", "protected, before the others joined")
	w.Subscribe(t, org.Protected, org.Other, early+1)
	check(t, "protected history")
	w.Send(t, org.Member, org.Protected, "t", "protected, after")
	check(t, "protected, after joining")
	w.Send(t, org.Member, org.Private, "t", "private")
	check(t, "private channel")
	w.SendDM(t, org.Member, "direct", org.Other)
	check(t, "direct message")
	w.SendDM(t, org.Admin, "group", org.Member, org.Guest)
	check(t, "group direct message")
	w.Send(t, org.Stranger, org.StrangerStream, "t", "elsewhere")
	check(t, "another realm")
}
