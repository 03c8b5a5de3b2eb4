package chatcore_test

// Limits: oversized, malformed and hostile input gets a clear *chatcore.Error
// (or Zulip's truncation), never an internal error or a hang. Durations of the
// pathological cases are logged (-v), not asserted: speed belongs in
// benchmarks, and a hang is caught by the test timeout.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/wire"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// sendToGeneral sends content to the general channel under topic as the member and
// returns the stored message.
func sendToGeneral(t *testing.T, svc *chatcore.Service, topic, content string) (*chatcore.Message, error) {
	t.Helper()
	id, err := svc.SendMessage(t.Context(), chattest.WorldMember, chatcore.SendMessageRequest{
		Type: "stream", To: new("general"), Topic: &topic, Content: content,
	})
	if err != nil {
		return nil, err
	}
	var m *chatcore.Message
	err = svc.Store().View(t.Context(), func(tx chatcore.Tx) error {
		var err error
		m, err = tx.Message(t.Context(), id)
		return err
	})
	return m, err
}

func TestLimitTopicLength(t *testing.T) {
	svc := chattest.LoadWorld(t, memory.New())
	for _, tt := range []struct {
		name, topic, want string
	}{
		{"60 characters are kept", strings.Repeat("a", 60), strings.Repeat("a", 60)},
		{"61 characters are cut", strings.Repeat("a", 61), strings.Repeat("a", 57) + "..."},
		{"60 two-byte characters are kept", strings.Repeat("é", 60), strings.Repeat("é", 60)},
		{"multibyte characters are cut whole", strings.Repeat("😀", 61), strings.Repeat("😀", 57) + "..."},
		{"combining marks count as characters", strings.Repeat("e\u0301", 31), strings.Repeat("e\u0301", 28) + "e..."},
		{"surrounding space does not count", "  " + strings.Repeat("b", 60) + "\t ", strings.Repeat("b", 60)},
		{"a megabyte of topic", strings.Repeat("x", 1<<20), strings.Repeat("x", 57) + "..."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m, err := sendToGeneral(t, svc, tt.topic, "hello")
			is.NoErr(err)                                    // an over-long topic is truncated, not refused
			is.Equal(m.Topic, tt.want)                       // Zulip's truncation: 57 characters and "..."
			is.True(utf8.RuneCountInString(m.Topic) <= 60)   // within the limit
			is.Equal(m.TopicKey, chatcore.TopicKey(m.Topic)) // the key is that of the stored topic
		})
	}
}

func TestLimitContentLength(t *testing.T) {
	svc := chattest.LoadWorld(t, memory.New())
	const marker = "\n[message truncated]"
	for _, tt := range []struct {
		name, content string
		truncated     bool
	}{
		{"10,000 bytes are kept", strings.Repeat("a", 10000), false},
		{"10,001 bytes are cut", strings.Repeat("a", 10001), true},
		{"multibyte content at the boundary", strings.Repeat("é", 5001), true},
		{"four-byte characters at the boundary", "ab" + strings.Repeat("😀", 2500), true},
		{"a megabyte of content", strings.Repeat("word ", 1<<18), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			m, err := sendToGeneral(t, svc, "limits", tt.content)
			is.NoErr(err)                                                // over-long content is truncated, not refused
			is.True(len(m.Content) <= 10000)                             // at most MaxMessageLength bytes
			is.True(utf8.ValidString(m.Content))                         // no UTF-8 sequence is split
			is.Equal(strings.HasSuffix(m.Content, marker), tt.truncated) // the marker shows the cut
			if tt.truncated {
				is.True(strings.HasPrefix(tt.content, strings.TrimSuffix(m.Content, marker))) // the kept part is the start of the content
				is.True(len(m.Content) > 10000-4)                                             // and as long as fits
			} else {
				is.Equal(m.Content, tt.content) // content within the limit is kept as sent
			}
		})
	}
}

func TestLimitBadBytes(t *testing.T) {
	svc := chattest.LoadWorld(t, memory.New())
	for _, tt := range []struct {
		name, topic, content string
		msg                  string
	}{
		{"NUL in content", "t", "a\x00b", "Message must not contain null bytes"},
		{"only a NUL", "t", "\x00", "Message must not contain null bytes"},
		{"invalid UTF-8 in content", "t", "a\xffb", "Message must be valid UTF-8"},
		{"truncated UTF-8 sequence in content", "t", "abc\xe2\x82", "Message must be valid UTF-8"},
		{"UTF-16 surrogate encoded in content", "t", "a\xed\xa0\x80", "Message must be valid UTF-8"},
		{"NUL in topic", "a\x00b", "hi", "Invalid character in topic, at position 2!"},
		{"control character in topic", "ab\x07", "hi", "Invalid character in topic, at position 3!"},
		{"invalid UTF-8 in topic", "a\xff", "hi", "Topic must be valid UTF-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sendToGeneral(t, svc, tt.topic, tt.content)
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
		})
	}
}

// nestedArrays returns v wrapped in depth JSON arrays.
func nestedArrays(depth int, v string) string {
	return strings.Repeat("[", depth) + v + strings.Repeat("]", depth)
}

func TestLimitNestedJSONParams(t *testing.T) {
	for _, tt := range []struct {
		name, param, value, msg string
	}{
		{"target_users at the depth bound", "target_users",
			`{"user_ids": ` + nestedArrays(31, "") + `, "skip_if_already_edited": true}`, `target_users["user_ids"][0] is not an integer`},
		{"target_users past the depth bound", "target_users",
			`{"user_ids": ` + nestedArrays(32, "") + `, "skip_if_already_edited": true}`, "target_users is nested too deeply"},
		{"a million levels", "target_users", nestedArrays(1_000_000, ""), "target_users is nested too deeply"},
		{"a million unclosed levels", "target_users", strings.Repeat(`{"a":`, 200_000), "target_users is nested too deeply"},
		{"nesting inside strings does not count", "target_users", `{"user_ids": "` + strings.Repeat("[", 1000) + `", "skip_if_already_edited": true}`,
			`target_users["user_ids"] is not a list`},
		{"a deep boolean", "enter_sends", nestedArrays(100_000, "true"), "enter_sends is nested too deeply"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			var req accounts.SettingsUpdate
			_, err := wire.DecodeParams(url.Values{tt.param: {tt.value}}, &req)
			t.Logf("%d bytes refused in %v", len(tt.value), time.Since(start))
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
		})
	}
	t.Run("deactivation actions", func(t *testing.T) {
		var req accounts.DeactivateUserRequest
		_, err := wire.DecodeParams(url.Values{"actions": {`{"delete_profile": ` + nestedArrays(500, "true") + `}`}}, &req)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "actions is nested too deeply")
	})
}

func TestLimitNestedFixture(t *testing.T) {
	for _, depth := range []int{100, 10_000, 1_000_000} {
		t.Run(fmt.Sprint(depth), func(t *testing.T) {
			is := is.New(t)
			svc := chatcore.New(memory.New(), chatcore.WithPasswordHasher(plainHasher{}))
			data := `{"realms": [{"id": 1, "string_id": "a", "name": "A", "users": ` + nestedArrays(depth, "") + `}]}`
			start := time.Now()
			err := fixture.Load(t.Context(), svc, strings.NewReader(data))
			t.Logf("%d levels refused in %v", depth, time.Since(start))
			e, ok := errors.AsType[*chatcore.Error](err)
			is.True(ok)                               // a typed error
			is.Equal(e.Code, chatcore.CodeBadRequest) // BAD_REQUEST
			is.True(e.Msg != "")                      // saying what is wrong
			empty, err := svc.IsEmpty(t.Context())
			is.NoErr(err)
			is.True(empty) // nothing was written
		})
	}
}

func TestLimitTargetUsersCount(t *testing.T) {
	svc := chattest.LoadWorld(t, memory.New())
	ids := func(n int, first chatcore.UserID) string {
		var b strings.Builder
		b.WriteString(`{"skip_if_already_edited": false, "user_ids": [`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, first+chatcore.UserID(i))
		}
		b.WriteString("]}")
		return b.String()
	}
	for _, tt := range []struct {
		name  string
		value string
		msg   string // "" for success
	}{
		// Known ids repeated up to the cap: accepted, each user set once.
		{"10,000 copies of known ids", `{"skip_if_already_edited": false, "user_ids": [` +
			strings.TrimSuffix(strings.Repeat("14,15,", accounts.MaxBulkTargetIDs/2), ",") + `]}`, ""},
		// Unknown ids: the first unknown one is named.
		{"10,000 unknown ids", ids(accounts.MaxBulkTargetIDs, 1_000_000), "Invalid user ID: 1000000"},
		// Past the cap the list is refused before any lookup.
		{"100,000 ids", ids(100_000, 1_000_000), `target_users["user_ids"] is too long (limit: 10000 items)`},
		{"another realm's user", `{"skip_if_already_edited": false, "user_ids": [14, 15, 21, 16]}`, "Invalid user ID: 21"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var req accounts.SettingsUpdate
			_, err := wire.DecodeParams(url.Values{"target_users": {tt.value}, "color_scheme": {"3"}}, &req)
			is.NoErr(err) // a long list decodes
			start := time.Now()
			err = accounts.UpdateSettings(context.Background(), svc, chattest.WorldAdmin, req)
			t.Logf("%d bytes of target_users handled in %v", len(tt.value), time.Since(start))
			if tt.msg == "" {
				is.NoErr(err) // the bulk edit succeeds
				return
			}
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
		})
	}
}

func TestLimitPathologicalMarkdown(t *testing.T) {
	svc := chattest.LoadWorld(t, memory.New())
	for _, tt := range []struct{ name, content string }{
		{"nested quotes", strings.Repeat("> ", 4999) + "x"},
		{"nested lists", strings.Repeat("- ", 4999) + "x"},
		{"open brackets", strings.Repeat("[", 10000)},
		{"link openers", strings.Repeat("[a](", 2500)},
		{"emphasis runs", strings.Repeat("*a", 5000)},
		{"backticks", strings.Repeat("`", 5000) + "x" + strings.Repeat("``", 2499)},
		{"mentions", strings.Repeat("@**", 3333)},
		{"linkifier matches", strings.Repeat("#1 ", 3333)},
		{"quote fences", strings.Repeat("```quote\n", 1111)},
		{"table cells", "|" + strings.Repeat("a|", 2000) + "\n|" + strings.Repeat("-|", 2000) + "\n" + strings.Repeat("|", 1000)},
		{"html entities", strings.Repeat("&#x1F600;", 1111)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			start := time.Now()
			m, err := sendToGeneral(t, svc, "markdown", tt.content)
			t.Logf("%d bytes sent and rendered in %v", len(tt.content), time.Since(start))
			is.NoErr(err)                                // the message is sent
			is.True(utf8.ValidString(m.RenderedContent)) // and rendered to valid UTF-8
			chattest.CheckHTML(t, tt.content, m.RenderedContent)
		})
	}
}

func TestLimitDeactivationComment(t *testing.T) {
	for _, tt := range []struct {
		name, comment, msg string
	}{
		{"2000 characters", strings.Repeat("ü", 2000), ""},
		{"2000 characters plus space", "  " + strings.Repeat("ü", 2000) + "\n", ""},
		{"2001 characters", strings.Repeat("ü", 2001), "deactivation_notification_comment is too long (limit: 2000 characters)"},
		{"a megabyte", strings.Repeat("x", 1<<20), "deactivation_notification_comment is too long (limit: 2000 characters)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			svc := chattest.LoadWorld(t, memory.New(), chatcore.WithLogger(discardLogger))
			err := accounts.DeactivateUser(t.Context(), svc, chattest.WorldOwner, chattest.WorldMember, accounts.DeactivateUserRequest{DeactivationNotificationComment: &tt.comment})
			if tt.msg == "" {
				is.NoErr(err) // accepted
				return
			}
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
		})
	}
}

// intList is a JSON list of n integers counting up from first.
func intList(n, first int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(first + i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// TestLimitListBounds calls each Service method with a list one over its
// bound: it is refused with a message naming the parameter, before any
// transaction.
func TestLimitListBounds(t *testing.T) {
	store := &chattest.CountingStore{Store: memory.New()}
	svc := chattest.LoadWorld(t, store)
	ctx := t.Context()
	overRecipients := intList(chatcore.MaxDirectRecipients+1, 1_000_000)
	emails := make([]string, chatcore.MaxDirectRecipients+1)
	for i := range emails {
		emails[i] = fmt.Sprintf("u%d@zulip.test", i)
	}
	terms := make([]messages.NarrowTerm, chatcore.MaxNarrowTerms+1)
	for i := range terms {
		terms[i] = messages.NarrowTerm{Operator: "channel", Operand: json.RawMessage(`"general"`)}
	}
	ordered := make([]chatcore.LinkifierID, chatcore.MaxOrderedLinkifierIDs+1)
	for i := range ordered {
		ordered[i] = chatcore.LinkifierID(i + 1)
	}
	userIDs := make([]chatcore.UserID, accounts.MaxBulkTargetIDs+1)
	for i := range userIDs {
		userIDs[i] = chatcore.UserID(i + 1)
	}
	later := time.Now().Add(time.Hour)
	for _, tt := range []struct {
		name string
		call func() error
		msg  string
	}{
		{"SendMessage to ids", func() error {
			_, err := svc.SendMessage(ctx, chattest.WorldMember, chatcore.SendMessageRequest{Type: "private", To: &overRecipients, Content: "x"})
			return err
		}, "to is too long (limit: 1000 items)"},
		{"SendMessage to e-mails", func() error {
			_, err := svc.SendMessage(ctx, chattest.WorldMember, chatcore.SendMessageRequest{Type: "direct", To: new(strings.Join(emails, ",")), Content: "x"})
			return err
		}, "to is too long (limit: 1000 items)"},
		{"SendMessage to two channels", func() error {
			_, err := svc.SendMessage(ctx, chattest.WorldMember, chatcore.SendMessageRequest{Type: "stream", To: new("[61, 62]"), Topic: new("t"), Content: "x"})
			return err
		}, "Expected exactly one channel"},
		{"CreateScheduledMessage to", func() error {
			_, err := scheduled.Create(ctx, svc, chattest.WorldMember, scheduled.CreateRequest{
				Type: "private", To: json.RawMessage(overRecipients), Content: "x", DeliverAt: later})
			return err
		}, "to is too long (limit: 1000 items)"},
		{"Messages narrow", func() error {
			_, err := messages.Get(ctx, svc, chattest.WorldMember, messages.Request{Narrow: terms})
			return err
		}, "narrow is too long (limit: 100 items)"},
		{"Messages narrow dm operand", func() error {
			_, err := messages.Get(ctx, svc, chattest.WorldMember, messages.Request{
				NarrowJSON: json.RawMessage(`[{"operator": "dm", "operand": ` + overRecipients + `}]`)})
			return err
		}, `narrow[0]["operand"] is too long (limit: 1000 items)`},
		{"Messages narrow sender operand", func() error {
			_, err := messages.Get(ctx, svc, chattest.WorldMember, messages.Request{
				NarrowJSON: json.RawMessage(`[["sender", "` + strings.Join(emails, ",") + `"]]`)})
			return err
		}, `narrow[0]["operand"] is too long (limit: 1000 items)`},
		{"Messages num_after", func() error {
			_, err := messages.Get(ctx, svc, chattest.WorldMember, messages.Request{NumAfter: new(chatcore.MaxMessagesPerFetch + 1)})
			return err
		}, "Too many messages requested (maximum 1000)."},
		{"ReorderLinkifiers", func() error {
			return linkifiers.Reorder(ctx, svc, chattest.WorldAdmin, ordered)
		}, "ordered_linkifier_ids is too long (limit: 10000 items)"},
		{"UpdateSettings target_users", func() error {
			return accounts.UpdateSettings(ctx, svc, chattest.WorldAdmin, accounts.SettingsUpdate{
				TargetUsers: &accounts.TargetUsers{UserIDs: userIDs, SkipIfAlreadyEdited: new(false)}})
		}, `target_users["user_ids"] is too long (limit: 10000 items)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			before := store.Count()
			chattest.WantError(t, tt.call(), chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
			is.Equal(store.Count(), before) // refused before any transaction
		})
	}
}

// TestLimitDirectRecipientsResolution checks the direct-message "to" at and
// around the bound: repeated ids count once, the first unknown or
// deactivated recipient in list order is named, and the scheduled-message
// "to" behaves the same.
func TestLimitDirectRecipientsResolution(t *testing.T) {
	svc := chattest.LoadWorld(t, memory.New())
	ctx := t.Context()
	repeated := "[" + strings.TrimSuffix(strings.Repeat("12,", chatcore.MaxDirectRecipients), ",") + "]"
	for _, tt := range []struct {
		name, to, msg string // msg "" for success
	}{
		{"the bound, one recipient repeated", repeated, ""},
		{"the bound, all unknown", intList(chatcore.MaxDirectRecipients, 1_000_000), "Invalid user ID 1000000"},
		{"unknown after a valid one", "[12, 999, 998]", "Invalid user ID 999"},
		{"another realm's user", "[12, 21]", "Invalid user ID 21"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			id, err := svc.SendMessage(ctx, chattest.WorldMember, chatcore.SendMessageRequest{Type: "private", To: new(tt.to), Content: "x"})
			_, serr := scheduled.Create(ctx, svc, chattest.WorldMember, scheduled.CreateRequest{
				Type: "private", To: json.RawMessage(tt.to), Content: "x", DeliverAt: time.Now().Add(time.Hour)})
			if tt.msg != "" {
				chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
				chattest.WantError(t, serr, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
				return
			}
			is.NoErr(err)  // sent
			is.NoErr(serr) // scheduled
			view, _, err := messages.One(ctx, svc, chattest.WorldMember, id, messages.OneRequest{})
			is.NoErr(err)                                                         // readable
			is.Equal(len(view.DisplayRecipient.([]chatcore.DisplayRecipient)), 2) // the sender and the one recipient
		})
	}
}

// BenchmarkSendDirectAtBound measures SendMessage with a "to" of
// MaxDirectRecipients unknown ids (resolved in one query inside the write
// transaction, then refused) and one over the bound (refused before any store
// access), over both stores.
func BenchmarkSendDirectAtBound(b *testing.B) {
	for _, st := range []struct {
		name string
		open func(tb testing.TB) chatcore.Store
	}{
		{"memory", func(testing.TB) chatcore.Store { return memory.New() }},
		{"sqlite", func(tb testing.TB) chatcore.Store { return openSQLite(tb) }},
	} {
		store := st.open(b)
		svc := chattest.LoadWorld(b, store)
		for _, n := range []int{chatcore.MaxDirectRecipients, chatcore.MaxDirectRecipients + 1} {
			to := intList(n, 1_000_000)
			b.Run(st.name+"/unknown/"+strconv.Itoa(n), func(b *testing.B) {
				for b.Loop() {
					if _, err := svc.SendMessage(b.Context(), chattest.WorldMember, chatcore.SendMessageRequest{Type: "private", To: &to, Content: "x"}); err == nil {
						b.Fatal("sent to unknown users")
					}
				}
			})
		}
		// The worst case at the bound: every recipient exists, so the
		// message is sent to MaxDirectRecipients+1 members.
		w := chattest.New(b, chattest.OnStore(store)) // for its builders
		realm := &chatcore.Realm{ID: chattest.WorldRealm, StringID: "zulip"}
		ids := make([]string, chatcore.MaxDirectRecipients)
		for i := range ids {
			ids[i] = strconv.FormatInt(int64(w.AddUser(b, realm, fmt.Sprintf("Bench %d", i), chatcore.RoleMember).ID), 10)
		}
		to := "[" + strings.Join(ids, ",") + "]"
		b.Run(st.name+"/existing/"+strconv.Itoa(len(ids)), func(b *testing.B) {
			for b.Loop() {
				if _, err := svc.SendMessage(b.Context(), chattest.WorldMember, chatcore.SendMessageRequest{Type: "private", To: &to, Content: "x"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
