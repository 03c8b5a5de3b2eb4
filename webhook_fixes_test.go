package chatcore_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// ownerNotice is the first line of every direct message to a bot's owner.
func ownerNotice(link string) string {
	return "[A message](" + link + ") to your bot @_**Echo Bot** triggered an outgoing webhook.\n"
}

// TestWebhookNonStringContent checks that a reply value that is not a string is
// posted as Python's str() writes it, as Zulip does.
func TestWebhookNonStringContent(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"null content", `{"content": null}`, "None"},
		{"null response_string", `{"response_string": null}`, "None"},
		{"true", `{"content": true}`, "True"},
		{"false", `{"content": false}`, "False"},
		{"float", `{"content": 1.0}`, "1.0"},
		{"big float", `{"content": 1e16}`, "1e+16"},
		{"small float", `{"content": 0.00001}`, "1e-05"},
		{"integer", `{"content": -7}`, "-7"},
		{"list", `{"content": [1, null, "it's", "x"]}`, `[1, None, "it's", 'x']`},
		{"object keeps key order", `{"content": {"z": 1, "a": {"b": false}}}`, "{'z': 1, 'a': {'b': False}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			rec := newRecorder(t, answer(200, tt.body))
			w := newWHWorld(t, fast(), whServices{whEcho: generic(rec.srv.URL)})
			id := w.sendChannel(t, whMember, "t", "@**Echo Bot** hi")
			w.drain(t)
			inTopic, toOwner := conversationAfter(t, w, id)
			is.Equal(len(inTopic), 1)             // one reply
			is.Equal(inTopic[0].Content, tt.want) // Python's str() of the value
			is.Equal(len(toOwner), 0)             // not a failure
		})
	}
	t.Run("slack null text", func(t *testing.T) {
		is := is.New(t)
		rec := newRecorder(t, answer(200, `{"text": null}`))
		w := newWHWorld(t, fast(), whServices{whEcho: {{Name: "s", BaseURL: rec.srv.URL, Token: whToken, Interface: "slack"}}})
		id := w.sendChannel(t, whMember, "t", "@**Echo Bot** hi")
		w.drain(t)
		is.Equal(len(w.messagesAfter(t, id)), 0) // Slack's text is taken as it is: null posts nothing
	})
}

// TestWebhookOwnerNoticeTexts checks the owner's direct message word for word
// for an unusable answer, a refused reply and an error status.
func TestWebhookOwnerNoticeTexts(t *testing.T) {
	const attempted = "The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> "
	tests := []struct {
		name        string
		status      int
		body        string
		wantTopic   string
		wantDetails string // the notice after its first line
	}{
		{"invalid JSON", 200, "not json", "Failure! Invalid JSON in response",
			attempted + "Invalid JSON in response\nThe response contains the following payload:\n```\n'not json'\n```"},
		{"not an object", 200, `["it's"]`, "Failure! Invalid response format",
			attempted + "Invalid response format\nThe response contains the following payload:\n```\n'[\"it\\'s\"]'\n```"},
		{"null", 200, "null", "Failure! Invalid response format",
			attempted + "Invalid response format\nThe response contains the following payload:\n```\n'null'\n```"},
		{"reply refused", 200, `{"content": "a \u0000 byte"}`, "Failure! Message must not contain null bytes",
			attempted + "Message must not contain null bytes\nThe response contains the following payload:\n```\n'{\"content\": \"a \\\\u0000 byte\"}'\n```"},
		{"error status", 500, "{\"msg\": \"boom\"}\n\xff", "Failure! Third party responded with 500",
			"The webhook got a response with status code *500*.\nThe response contains the following payload:\n```\nb'{\"msg\": \"boom\"}\\n\\xff'\n```"},
		{"error status, no body", 503, "", "Failure! Third party responded with 503",
			"The webhook got a response with status code *503*."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			rec := newRecorder(t, answer(tt.status, tt.body))
			w := newWHWorld(t, fast(), whServices{whEcho: generic(rec.srv.URL)})
			id := w.sendChannel(t, whMember, "ping", "@**Echo Bot** ping")
			w.drain(t)
			inTopic, toOwner := conversationAfter(t, w, id)
			is.Equal(len(inTopic), 1)                  // one failure notice
			is.Equal(inTopic[0].Content, tt.wantTopic) // Zulip's failure text
			is.Equal(len(toOwner), 1)                  // one notice to the owner
			link := fmt.Sprintf("https://chat.example.test/#narrow/channel/61-general/topic/ping/near/%d", id)
			is.Equal(toOwner[0].Content, ownerNotice(link)+tt.wantDetails) // Zulip's notice, payload as Python's repr
		})
	}
}

// TestWebhookRequestExceptionsNotRetried checks that errors other than
// timeouts and connection errors fail at once with Zulip's exception notice.
func TestWebhookRequestExceptionsNotRetried(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string // the exception's name
	}{
		{"redirect to another scheme", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "ftp://files.example.test/x", http.StatusTemporaryRedirect)
		}, "InvalidSchema"},
		{"undecodable gzip answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			io.WriteString(w, "this is not gzip")
		}, "ContentDecodingError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var attempts atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				attempts.Add(1)
				tt.handler(w, r)
			}))
			t.Cleanup(srv.Close)
			w := newWHWorld(t, fast(), whServices{whEcho: generic(srv.URL)})
			id := w.sendChannel(t, whMember, "t", "@**Echo Bot** go")
			w.drain(t)
			is.Equal(attempts.Load(), int32(1)) // not retried
			inTopic, toOwner := conversationAfter(t, w, id)
			is.Equal(len(inTopic), 1) // one failure notice
			is.Equal(inTopic[0].Content, "Failure! An exception of type *"+tt.want+
				"* occurred for message `@**Echo Bot** go`! See the Zulip server logs for more information.") // Zulip's text
			is.Equal(len(toOwner), 1) // the owner is told
			link := fmt.Sprintf("https://chat.example.test/#narrow/channel/61-general/topic/t/near/%d", id)
			prefix := ownerNotice(link) + "When trying to send a request to the webhook service, an exception of type " + tt.want + " occurred:\n```\n"
			is.Equal(toOwner[0].Content[:min(len(prefix), len(toOwner[0].Content))], prefix) // the exception named, its text quoted
		})
	}
}

// TestWebhookNoticeLinks checks the message links of owner notices against
// Zulip's encoding: channel names with "-" for spaces and "*" kept, 1:1 direct
// messages without a suffix.
func TestWebhookNoticeLinks(t *testing.T) {
	t.Run("channel", func(t *testing.T) {
		is := is.New(t)
		rec := newRecorder(t, answer(500, ""))
		w := newWHWorld(t, fast(), whServices{whEcho: generic(rec.srv.URL)})
		const room chatcore.StreamID = 62
		err := w.store.Update(t.Context(), func(tx chatcore.Tx) error {
			if err := tx.CreateStream(t.Context(), &chatcore.Stream{ID: room, RealmID: whRealm, Name: "my *team* room.x", HistoryPublicToSubscribers: true}); err != nil {
				return err
			}
			return tx.PutSubscription(t.Context(), chatcore.Subscription{StreamID: room, UserID: whMember, Active: true})
		})
		is.NoErr(err) // the channel is created
		id, err := w.svc.SendMessage(t.Context(), whMember, chatcore.SendMessageRequest{
			Type: "stream", To: new("62"), Topic: new("a b*"), Content: "@**Echo Bot** hi",
		})
		is.NoErr(err) // sent
		w.drain(t)
		_, toOwner := conversationAfter(t, w, id)
		is.Equal(len(toOwner), 1) // the owner is told
		want := fmt.Sprintf("https://chat.example.test/#narrow/channel/62-my-*team*-room.2Ex/topic/a.20b*/near/%d", id)
		is.Equal(toOwner[0].Content[:len(ownerNotice(want))], ownerNotice(want)) // Zulip's link encoding
	})
	t.Run("one-to-one direct message", func(t *testing.T) {
		is := is.New(t)
		rec := newRecorder(t, answer(500, ""))
		w := newWHWorld(t, fast(), whServices{whEcho: generic(rec.srv.URL)})
		id := w.sendDirect(t, whMember, []chatcore.UserID{whEcho}, "hi")
		w.drain(t)
		var toOwner []chatcore.Message
		for _, m := range w.messagesAfter(t, id) {
			if m.Type == chatcore.MessageTypePrivate && len(m.DirectMembers) == 2 && m.DirectMembers[0] == whOwner {
				toOwner = append(toOwner, m)
			}
		}
		is.Equal(len(toOwner), 1) // the owner is told
		want := fmt.Sprintf("https://chat.example.test/#narrow/dm/12,31/near/%d", id)
		is.Equal(toOwner[0].Content[:len(ownerNotice(want))], ownerNotice(want)) // no "-dm" suffix
	})
	t.Run("group direct message", func(t *testing.T) {
		is := is.New(t)
		rec := newRecorder(t, answer(500, ""))
		w := newWHWorld(t, fast(), whServices{whEcho: generic(rec.srv.URL)})
		id := w.sendDirect(t, whMember, []chatcore.UserID{whEcho, whOther}, "hi")
		w.drain(t)
		var toOwner []chatcore.Message
		for _, m := range w.messagesAfter(t, id) {
			if len(m.DirectMembers) == 2 && m.DirectMembers[0] == whOwner {
				toOwner = append(toOwner, m)
			}
		}
		is.Equal(len(toOwner), 1) // the owner is told
		want := fmt.Sprintf("https://chat.example.test/#narrow/dm/12,13,31-group/near/%d", id)
		is.Equal(toOwner[0].Content[:len(ownerNotice(want))], ownerNotice(want)) // "-group" for three or more
	})
}
