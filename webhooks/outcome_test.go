package webhooks_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/syncbuf"
	"github.com/matryer/is"
)

// conversationAfter splits the messages after the trigger into those in a
// channel (the bot's answers in the topic) and the direct messages (the
// notices to the bot's owner).
func conversationAfter(t *testing.T, w *chattest.World, after chatcore.MessageID) (inTopic, toOwner []chatcore.Message) {
	t.Helper()
	for _, m := range messagesAfter(t, w, after) {
		if m.Type == chatcore.MessageTypeStream {
			inTopic = append(inTopic, m)
		} else {
			toOwner = append(toOwner, m)
		}
	}
	return inTopic, toOwner
}

func TestWebhookResponses(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		wantTopic string // "" = no message in the topic
		// wantOwner is a substring of the DM to the owner ("" = no DM).
		wantOwner string
	}{
		{"content", 200, `{"content": "pong"}`, "pong", ""},
		{"response_string", 200, `{"response_string": "legacy pong"}`, "legacy pong", ""},
		{"response_string wins over content", 200, `{"response_string": "a", "content": "b"}`, "a", ""},
		{"response_not_required", 200, `{"response_not_required": true, "content": "ignored"}`, "", ""},
		{"empty content", 200, `{"content": "  \n "}`, "", ""},
		{"no keys", 200, `{}`, "", ""},
		{"empty string", 200, `""`, "", ""},
		{"201 with content", 201, `{"content": "created"}`, "created", ""},
		{"invalid JSON", 200, `not json`, "Failure! Invalid JSON in response", "Invalid JSON in response"},
		{"not an object", 200, `[1, 2]`, "Failure! Invalid response format", "Invalid response format"},
		{"server error", 500, `{"msg": "boom"}`, "Failure! Third party responded with 500",
			"The webhook got a response with status code *500*."},
		{"not found", 404, ``, "Failure! Third party responded with 404",
			"The webhook got a response with status code *404*."},
		{"proxy refusal", 407, ``, "Failure! Third party responded with 407",
			"The URL configured for the webhook is for a private or disallowed network."},
		{"reply refused", 200, `{"content": "a \u0000 byte"}`, "Failure! Message must not contain null bytes",
			"but that request resulted in the following error:\n> Message must not contain null bytes"},
		{"number as content", 200, `{"content": 42}`, "42", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			rec := newRecorder(t, answer(tt.status, tt.body))
			w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL)})
			id := sendChannel(t, w, mark, "ping topic", "@**Echo Bot** ping")
			drain(t, w)
			is.Equal(len(rec.all()), 1) // one attempt: answers are never retried
			inTopic, toOwner := conversationAfter(t, w, id)
			if tt.wantTopic == "" {
				is.Equal(len(inTopic), 0) // nothing posted in the topic
			} else {
				is.Equal(len(inTopic), 1)                              // one message in the topic
				is.Equal(inTopic[0].Content, tt.wantTopic)             // the reply or failure text
				is.Equal(inTopic[0].SenderID, echoBot)                 // posted by the bot
				is.Equal(inTopic[0].StreamID, generalChannel)          // same channel
				is.Equal(inTopic[0].Topic, "ping topic")               // same topic
				is.Equal(inTopic[0].Client, "OutgoingWebhookResponse") // Zulip's client name
			}
			if tt.wantOwner == "" {
				is.Equal(len(toOwner), 0) // the owner is not bothered
			} else {
				is.Equal(len(toOwner), 1)                                                                                                                   // one DM to the owner
				is.Equal(toOwner[0].SenderID, echoBot)                                                                                                      // from the bot
				is.Equal(toOwner[0].DirectMembers, []chatcore.UserID{botOwner, echoBot})                                                                    // to its owner
				is.True(strings.HasPrefix(toOwner[0].Content, "[A message](https://chat.example.test/#narrow/channel/61-general/topic/ping.20topic/near/")) // links the message
				is.True(strings.Contains(toOwner[0].Content, "to your bot @_**Echo Bot** triggered an outgoing webhook.\n"))                                // names the bot
				is.True(strings.Contains(toOwner[0].Content, tt.wantOwner))                                                                                 // says what went wrong
			}
		})
	}
}

func TestWebhookReplyToDirectMessage(t *testing.T) {
	is := is.New(t)
	rec := newRecorder(t, answer(200, `{"content": "hi both"}`))
	w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL)})
	id := sendDirect(t, w, mark, []chatcore.UserID{echoBot, nina}, "hello")
	drain(t, w)
	ms := messagesAfter(t, w, id)
	is.Equal(len(ms), 1)                                                  // one reply
	is.Equal(ms[0].Content, "hi both")                                    // the reply text
	is.Equal(ms[0].SenderID, echoBot)                                     // from the bot
	is.Equal(ms[0].DirectMembers, []chatcore.UserID{mark, nina, echoBot}) // to the same participants
	is.Equal(len(rec.all()), 1)                                           // the bot's own reply does not trigger it again
}

func TestWebhookInvalidURL(t *testing.T) {
	is := is.New(t)
	w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic("ftp://files.example.test/hook")})
	id := sendChannel(t, w, mark, "t", "@**Echo Bot** fetch")
	drain(t, w)
	inTopic, toOwner := conversationAfter(t, w, id)
	is.Equal(len(inTopic), 1)                                                                                                                                              // one failure notice
	is.Equal(inTopic[0].Content, "Failure! An exception of type *InvalidURL* occurred for message `@**Echo Bot** fetch`! See the Zulip server logs for more information.") // Zulip's exception notice
	is.Equal(len(toOwner), 1)                                                                                                                                              // the owner is told
	is.True(strings.Contains(toOwner[0].Content, "an exception of type InvalidURL occurred:\n```\n"))                                                                      // with the error
}

func TestWebhookBotDeactivatedBeforeReply(t *testing.T) {
	is := is.New(t)
	var w *chattest.World
	deactivated := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		deactivated <- w.Store.Update(r.Context(), func(tx chatcore.Tx) error {
			u, err := tx.User(r.Context(), echoBot)
			if err != nil {
				return err
			}
			u.IsActive = false
			return tx.UpdateUser(r.Context(), u)
		})
		io.WriteString(rw, `{"content": "too late"}`)
	}))
	t.Cleanup(srv.Close)
	var logs *syncbuf.Buffer
	w, logs = newWebhookWorld(t, fast(), botServices{echoBot: generic(srv.URL)})
	id := sendChannel(t, w, mark, "t", "@**Echo Bot** quick")
	drain(t, w)
	is.NoErr(<-deactivated)                                                    // the bot was deactivated while answering
	is.Equal(len(messagesAfter(t, w, id)), 0)                                  // a deactivated bot posts nothing
	is.True(strings.Contains(logs.String(), "outgoing webhook reply dropped")) // logged instead
}

// ownerNotice is the first line of every direct message to a bot's owner.
func ownerNotice(link string) string {
	return "[A message](" + link + ") to your bot @_**Echo Bot** triggered an outgoing webhook.\n"
}

// TestWebhookNonStringContent checks that a reply value that is not a string is
// posted as Python's str() writes it, as Zulip does (internal/pyrepr tests
// each form of str() on its own).
func TestWebhookNonStringContent(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"null content", `{"content": null}`, "None"},
		{"null response_string", `{"response_string": null}`, "None"},
		{"true", `{"content": true}`, "True"},
		{"small float", `{"content": 0.00001}`, "1e-05"},
		{"list", `{"content": [1, null, "it's", "x"]}`, `[1, None, "it's", 'x']`},
		{"object keeps key order", `{"content": {"z": 1, "a": {"b": false}}}`, "{'z': 1, 'a': {'b': False}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			rec := newRecorder(t, answer(200, tt.body))
			w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL)})
			id := sendChannel(t, w, mark, "t", "@**Echo Bot** hi")
			drain(t, w)
			inTopic, toOwner := conversationAfter(t, w, id)
			is.Equal(len(inTopic), 1)             // one reply
			is.Equal(inTopic[0].Content, tt.want) // Python's str() of the value
			is.Equal(len(toOwner), 0)             // not a failure
		})
	}
	t.Run("slack null text", func(t *testing.T) {
		is := is.New(t)
		rec := newRecorder(t, answer(200, `{"text": null}`))
		w, _ := newWebhookWorld(t, fast(), botServices{echoBot: {{Name: "s", BaseURL: rec.srv.URL, Token: echoToken, Interface: "slack"}}})
		id := sendChannel(t, w, mark, "t", "@**Echo Bot** hi")
		drain(t, w)
		is.Equal(len(messagesAfter(t, w, id)), 0) // Slack's text is taken as it is: null posts nothing
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
			w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL)})
			id := sendChannel(t, w, mark, "ping", "@**Echo Bot** ping")
			drain(t, w)
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
			w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(srv.URL)})
			id := sendChannel(t, w, mark, "t", "@**Echo Bot** go")
			drain(t, w)
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
		w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL)})
		const room chatcore.StreamID = 62
		err := w.Store.Update(t.Context(), func(tx chatcore.Tx) error {
			if err := tx.CreateStream(t.Context(), &chatcore.Stream{ID: room, RealmID: webhookRealm, Name: "my *team* room.x", HistoryPublicToSubscribers: true}); err != nil {
				return err
			}
			return tx.PutSubscription(t.Context(), chatcore.Subscription{StreamID: room, UserID: mark, Active: true})
		})
		is.NoErr(err) // the channel is created
		id, err := w.Svc.SendMessage(t.Context(), mark, chatcore.SendMessageRequest{
			Type: "stream", To: new("62"), Topic: new("a b*"), Content: "@**Echo Bot** hi",
		})
		is.NoErr(err) // sent
		drain(t, w)
		_, toOwner := conversationAfter(t, w, id)
		is.Equal(len(toOwner), 1) // the owner is told
		want := fmt.Sprintf("https://chat.example.test/#narrow/channel/62-my-*team*-room.2Ex/topic/a.20b*/near/%d", id)
		is.Equal(toOwner[0].Content[:len(ownerNotice(want))], ownerNotice(want)) // Zulip's link encoding
	})
	t.Run("one-to-one direct message", func(t *testing.T) {
		is := is.New(t)
		rec := newRecorder(t, answer(500, ""))
		w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL)})
		id := sendDirect(t, w, mark, []chatcore.UserID{echoBot}, "hi")
		drain(t, w)
		var toOwner []chatcore.Message
		for _, m := range messagesAfter(t, w, id) {
			if m.Type == chatcore.MessageTypePrivate && len(m.DirectMembers) == 2 && m.DirectMembers[0] == botOwner {
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
		w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL)})
		id := sendDirect(t, w, mark, []chatcore.UserID{echoBot, nina}, "hi")
		drain(t, w)
		var toOwner []chatcore.Message
		for _, m := range messagesAfter(t, w, id) {
			if len(m.DirectMembers) == 2 && m.DirectMembers[0] == botOwner {
				toOwner = append(toOwner, m)
			}
		}
		is.Equal(len(toOwner), 1) // the owner is told
		want := fmt.Sprintf("https://chat.example.test/#narrow/dm/12,13,31-group/near/%d", id)
		is.Equal(toOwner[0].Content[:len(ownerNotice(want))], ownerNotice(want)) // "-group" for three or more
	})
}
