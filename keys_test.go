package chatcore_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

// TestTopicMatchingUsesTopicKey checks that narrows and DeleteTopic match
// topics by TopicKey on both stores: case-insensitively, never by
// compatibility normalisation.
func TestTopicMatchingUsesTopicKey(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Unicode", Subscribers: []*chatcore.User{c.Member, c.Admin}})
		sent := map[string]chatcore.MessageID{}
		for _, topic := range []string{"x²", "ﬁx", "ｆｏｏ", "Straße", "ΟΔΟΣ", "café"} {
			sent[topic] = w.Post(t, st, topic, c.Member, "about "+topic)
		}
		narrow := func(t *testing.T, topic string) []chatcore.MessageID {
			t.Helper()
			is := is.New(t)
			operand, err := json.Marshal(topic)
			is.NoErr(err) // a topic marshals
			res, err := messages.Get(t.Context(), w.Svc, c.Member.ID, messages.Request{
				Anchor: new("newest"), NumBefore: new(100),
				Narrow: []messages.NarrowTerm{
					{Operator: "channel", Operand: json.RawMessage(strconv.FormatInt(int64(st.ID), 10))},
					{Operator: "topic", Operand: operand},
				},
			})
			is.NoErr(err) // the narrow is valid
			var ids []chatcore.MessageID
			for _, m := range res.Messages {
				ids = append(ids, m.ID)
			}
			return ids
		}
		for _, tt := range []struct {
			query string
			want  []chatcore.MessageID
		}{
			{"x2", nil},
			{"X²", []chatcore.MessageID{sent["x²"]}},
			{"foo", nil},
			{"ＦＯＯ", []chatcore.MessageID{sent["ｆｏｏ"]}},
			{"STRASSE", []chatcore.MessageID{sent["Straße"]}},
			{"οδος", []chatcore.MessageID{sent["ΟΔΟΣ"]}},
			{"FIX", []chatcore.MessageID{sent["ﬁx"]}},
			{"cafe\u0301", []chatcore.MessageID{sent["café"]}},
		} {
			t.Run("narrow "+tt.query, func(t *testing.T) {
				is := is.New(t)
				is.Equal(narrow(t, tt.query), tt.want) // the topic narrow selects exactly these messages
			})
		}
		t.Run("DeleteTopic", func(t *testing.T) {
			is := is.New(t)
			for _, topic := range []string{"x2", "foo"} {
				res, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, topic)
				is.NoErr(err)         // deleting a topic without messages succeeds
				is.True(res.Complete) // and is complete
			}
			is.Equal(narrow(t, "x²"), []chatcore.MessageID{sent["x²"]})   // "x2" did not delete "x²"
			is.Equal(narrow(t, "ｆｏｏ"), []chatcore.MessageID{sent["ｆｏｏ"]}) // "foo" did not delete "ｆｏｏ"
			_, err := channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "STRASSE")
			is.NoErr(err)                                               // deleting by another case succeeds
			is.Equal(len(narrow(t, "Straße")), 0)                       // "STRASSE" deleted "Straße"
			is.Equal(narrow(t, "x²"), []chatcore.MessageID{sent["x²"]}) // other topics stay
		})
	})
}
