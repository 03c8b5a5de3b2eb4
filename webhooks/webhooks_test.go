package webhooks_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/botkit"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/syncbuf"
	"github.com/chatcore/chatcore/outgoing"
	"github.com/chatcore/chatcore/webhooks"
	"github.com/matryer/is"
)

// The ids of the webhook test organization.
const (
	webhookRealm   chatcore.RealmID  = 1
	botOwner       chatcore.UserID   = 11 // owns the bots
	mark           chatcore.UserID   = 12
	nina           chatcore.UserID   = 13
	echoBot        chatcore.UserID   = 31 // outgoing-webhook bot "Echo Bot"
	genericBot     chatcore.UserID   = 32 // generic bot
	secondBot      chatcore.UserID   = 33 // second outgoing-webhook bot "Second Bot"
	generalChannel chatcore.StreamID = 61
	echoToken                        = "EchoToken0123456789abcdefghijklm"
)

// botServices maps a bot to the services it calls.
type botServices map[chatcore.UserID][]chatcore.BotService

// newWebhookWorld builds a World over a memory store holding a small
// organization whose bots call the given services, with webhook delivery
// configured by o and the Service's log in the returned buffer; delivery
// stops when the test ends.
func newWebhookWorld(tb testing.TB, o webhooks.Options, services botServices) (*chattest.World, *syncbuf.Buffer) {
	tb.Helper()
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	w := chattest.New(tb, chattest.At(time.Unix(1767225600, 0)), chattest.ExternalURL("https://chat.example.test"),
		chattest.With(webhooks.Delivery(o), chatcore.WithLogger(log)))
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = w.Svc.Shutdown(ctx)
	})
	seedWebhookWorld(tb, w, services)
	return w, logs
}

// seedWebhookWorld stores the realm of newWebhookWorld, its users and
// channel, and the bots' services.
func seedWebhookWorld(tb testing.TB, w *chattest.World, services botServices) {
	tb.Helper()
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		if err := tx.CreateRealm(ctx, &chatcore.Realm{ID: webhookRealm, StringID: "acme", Name: "Acme"}); err != nil {
			return err
		}
		users := []chatcore.User{
			{ID: botOwner, Email: "olivia@acme.test", FullName: "Olivia Owner", Role: chatcore.RoleOwner},
			{ID: mark, Email: "mark@acme.test", FullName: "Mark Member", Role: chatcore.RoleMember},
			{ID: nina, Email: "nina@acme.test", FullName: "Nina Other", Role: chatcore.RoleMember},
			{ID: echoBot, Email: "echo-bot@acme.test", FullName: "Echo Bot", Role: chatcore.RoleMember,
				IsBot: true, BotType: chatcore.BotTypeOutgoingWebhook, BotOwnerID: botOwner},
			{ID: genericBot, Email: "generic-bot@acme.test", FullName: "Generic Bot", Role: chatcore.RoleMember,
				IsBot: true, BotType: chatcore.BotTypeGeneric, BotOwnerID: botOwner},
			{ID: secondBot, Email: "second-bot@acme.test", FullName: "Second Bot", Role: chatcore.RoleMember,
				IsBot: true, BotType: chatcore.BotTypeOutgoingWebhook, BotOwnerID: botOwner},
		}
		for i := range users {
			u := &users[i]
			u.RealmID, u.IsActive, u.AvatarSource = webhookRealm, true, "G"
			u.APIKeyHash = "hash-" + u.Email
			u.Settings = chatcore.DefaultSettings()
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
		}
		for bot, list := range services {
			for _, s := range list {
				s.BotID = bot
				if err := tx.CreateBotService(ctx, &s); err != nil {
					return err
				}
			}
		}
		ch := &chatcore.Stream{ID: generalChannel, RealmID: webhookRealm, Name: "general", HistoryPublicToSubscribers: true}
		if err := tx.CreateStream(ctx, ch); err != nil {
			return err
		}
		for _, u := range []chatcore.UserID{botOwner, mark, nina} {
			if err := tx.PutSubscription(ctx, chatcore.Subscription{StreamID: generalChannel, UserID: u, Active: true}); err != nil {
				return err
			}
		}
		return nil
	})
}

// bodies returns the request bodies the stored message id, mentioning the
// users in mentioned, triggers (one per service).
func bodies(tb testing.TB, w *chattest.World, id chatcore.MessageID, mentioned []chatcore.UserID) ([]string, error) {
	tb.Helper()
	m := chattest.Read(tb, w.Base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Message, error) {
		return tx.Message(ctx, id)
	})
	hooks, err := w.Svc.OutgoingWebhooks(tb.Context(), m, mentioned)
	var out []string
	for _, h := range hooks {
		body, err := webhooks.RequestBody(&h)
		if err != nil {
			return nil, err
		}
		out = append(out, string(body))
	}
	return out, err
}

// generic returns one generic-interface service calling u.
func generic(u string) []chatcore.BotService {
	return []chatcore.BotService{{Name: "echo", BaseURL: u, Token: echoToken, Interface: "generic"}}
}

// sendChannel sends content to general > topic as sender.
func sendChannel(t *testing.T, w *chattest.World, sender chatcore.UserID, topic, content string) chatcore.MessageID {
	t.Helper()
	is := is.New(t)
	id, err := w.Svc.SendMessage(t.Context(), sender, chatcore.SendMessageRequest{
		Type: "stream", To: new("general"), Topic: new(topic), Content: content,
	})
	is.NoErr(err) // the channel message is sent
	return id
}

// sendDirect sends a direct message from sender to the users in to.
func sendDirect(t *testing.T, w *chattest.World, sender chatcore.UserID, to []chatcore.UserID, content string) chatcore.MessageID {
	t.Helper()
	is := is.New(t)
	b, _ := json.Marshal(to)
	id, err := w.Svc.SendMessage(t.Context(), sender, chatcore.SendMessageRequest{
		Type: "private", To: new(string(b)), Content: content,
	})
	is.NoErr(err) // the direct message is sent
	return id
}

// drain waits for every queued delivery to finish (and stops delivery).
func drain(t *testing.T, w *chattest.World) {
	t.Helper()
	is := is.New(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	is.NoErr(w.Svc.Shutdown(ctx)) // deliveries finish in time
}

// messagesAfter returns the messages with ids above after, oldest first.
func messagesAfter(t *testing.T, w *chattest.World, after chatcore.MessageID) []chatcore.Message {
	t.Helper()
	return chattest.Read(t, w.Base, func(ctx context.Context, tx chatcore.Tx) ([]chatcore.Message, error) {
		return tx.Messages(ctx, chatcore.MessageQuery{RealmID: webhookRealm, AfterID: after})
	})
}

// recorder is an integration server that records requests and answers with
// the function's status and body.
type recorder struct {
	mu       sync.Mutex
	requests []recorded
	answer   func(r *http.Request) (int, string)
	srv      *httptest.Server
}

type recorded struct {
	header http.Header
	body   []byte
}

func newRecorder(t *testing.T, answer func(r *http.Request) (int, string)) *recorder {
	rec := &recorder{answer: answer}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.requests = append(rec.requests, recorded{header: r.Header.Clone(), body: body})
		rec.mu.Unlock()
		status, out := rec.answer(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, out)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (rec *recorder) all() []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.requests)
}

func answer(status int, body string) func(*http.Request) (int, string) {
	return func(*http.Request) (int, string) { return status, body }
}

// fast are delivery options for tests: private addresses allowed (httptest
// listens on loopback), short timeouts and retry delays.
func fast() webhooks.Options {
	return webhooks.Options{AllowPrivate: true, Timeout: 2 * time.Second, RetryDelay: time.Millisecond}
}

func keys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// The exact field sets of the payload: Zulip sends the message in its
// message-list format, without flags, and leaves out stream_id for a direct
// message and the edit fields of a message never edited or moved.
var (
	payloadKeys = []string{"bot_email", "bot_full_name", "data", "message", "token", "trigger"}
	// channel message never edited: no edit_history / last_edit_timestamp / last_moved_timestamp
	channelMessageKeys = []string{"avatar_url", "client", "content", "content_type", "display_recipient", "id",
		"is_me_message", "reactions", "recipient_id", "rendered_content", "sender_email", "sender_full_name",
		"sender_id", "sender_realm_str", "stream_id", "subject", "submessages", "timestamp", "topic_links", "type"}
	// direct message: no stream_id
	directMessageKeys = slices.DeleteFunc(slices.Clone(channelMessageKeys), func(k string) bool { return k == "stream_id" })
)

func TestWebhookPayloadChannel(t *testing.T) {
	is := is.New(t)
	rec := newRecorder(t, answer(200, `{"response_not_required": true}`))
	w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL + "/hook")})
	id := sendChannel(t, w, mark, "lunch", "@**Echo Bot** pizza at *noon*?")
	drain(t, w)

	reqs := rec.all()
	is.Equal(len(reqs), 1)                                                                  // one POST for one mention
	is.Equal(reqs[0].header.Get("Content-Type"), "application/json")                        // JSON body
	is.Equal(reqs[0].header.Get("User-Agent"), "ChatcoreOutgoingWebhook/"+chatcore.Version) // names chatcore and its version

	var p map[string]any
	is.NoErr(json.Unmarshal(reqs[0].body, &p))            // the body is JSON
	is.Equal(keys(p), payloadKeys)                        // exactly the payload fields
	is.Equal(p["bot_email"], "echo-bot@acme.test")        // the bot's e-mail
	is.Equal(p["bot_full_name"], "Echo Bot")              // the bot's name
	is.Equal(p["data"], "@**Echo Bot** pizza at *noon*?") // raw Markdown
	is.Equal(p["trigger"], "mention")                     // a channel mention
	is.Equal(p["token"], echoToken)                       // the service token

	m := p["message"].(map[string]any)
	is.Equal(keys(m), channelMessageKeys)                             // exactly the message-list fields of a never-edited channel message
	is.Equal(m["id"], float64(id))                                    // the triggering message
	is.Equal(m["type"], "stream")                                     // channel message
	is.Equal(m["content"], "@**Echo Bot** pizza at *noon*?")          // raw Markdown content
	is.Equal(m["content_type"], "text/x-markdown")                    // Markdown, not HTML
	is.True(strings.HasPrefix(m["rendered_content"].(string), "<p>")) // HTML rendering
	is.Equal(m["display_recipient"], "general")                       // channel name
	is.Equal(m["stream_id"], float64(generalChannel))                 // channel id
	is.Equal(m["subject"], "lunch")                                   // the topic
	is.Equal(m["sender_id"], float64(mark))                           // sender id
	is.Equal(m["sender_email"], "mark@acme.test")                     // sender e-mail
	is.Equal(m["sender_full_name"], "Mark Member")                    // sender name
	is.Equal(m["sender_realm_str"], "acme")                           // realm string id
	is.Equal(m["timestamp"], float64(1767225600))                     // send time from the clock
	is.Equal(m["is_me_message"], false)                               // not /me
	is.Equal(m["reactions"], []any{})                                 // no reactions yet
	is.Equal(m["submessages"], []any{})                               // no submessages
	is.Equal(m["topic_links"], []any{})                               // no linkifiers
	is.Equal(m["client"], "API")                                      // the sending client
}

func TestWebhookPayloadDirect(t *testing.T) {
	is := is.New(t)
	rec := newRecorder(t, answer(200, `""`))
	w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL)})
	sendDirect(t, w, mark, []chatcore.UserID{echoBot, nina}, "hello bot")
	drain(t, w)

	reqs := rec.all()
	is.Equal(len(reqs), 1) // one POST for the group DM
	var p map[string]any
	is.NoErr(json.Unmarshal(reqs[0].body, &p)) // the body is JSON
	is.Equal(p["trigger"], "direct_message")   // DM trigger
	m := p["message"].(map[string]any)
	is.Equal(keys(m), directMessageKeys) // no stream_id for DMs, no edit fields
	is.Equal(m["type"], "private")       // direct message
	is.Equal(m["subject"], "")           // DMs have an empty subject
	is.Equal(m["display_recipient"], []any{
		map[string]any{"id": float64(mark), "email": "mark@acme.test", "full_name": "Mark Member", "is_mirror_dummy": false},
		map[string]any{"id": float64(nina), "email": "nina@acme.test", "full_name": "Nina Other", "is_mirror_dummy": false},
		map[string]any{"id": float64(echoBot), "email": "echo-bot@acme.test", "full_name": "Echo Bot", "is_mirror_dummy": false},
	}) // every participant, by id

	// The Go type decodes display_recipient into participants.
	var typed outgoing.Payload
	is.NoErr(json.Unmarshal(reqs[0].body, &typed)) // decodes
	dr, ok := typed.Message.DisplayRecipient.([]outgoing.DisplayRecipient)
	is.True(ok)                                                                                                       // typed participants
	is.Equal(len(dr), 3)                                                                                              // three participants
	is.Equal(dr[2], outgoing.DisplayRecipient{ID: int64(echoBot), Email: "echo-bot@acme.test", FullName: "Echo Bot"}) // the bot
}

func TestWebhookTriggers(t *testing.T) {
	tests := []struct {
		name string
		send func(t *testing.T, w *chattest.World)
		// want is the number of requests per bot.
		want map[chatcore.UserID]int
	}{
		{"channel mention", func(t *testing.T, w *chattest.World) { sendChannel(t, w, mark, "t", "hi @**Echo Bot**") },
			map[chatcore.UserID]int{echoBot: 1}},
		{"no mention", func(t *testing.T, w *chattest.World) { sendChannel(t, w, mark, "t", "Echo Bot, are you there?") },
			map[chatcore.UserID]int{}},
		{"mention in inline code", func(t *testing.T, w *chattest.World) { sendChannel(t, w, mark, "t", "type `@**Echo Bot**` to call it") },
			map[chatcore.UserID]int{}},
		{"mention in a code block", func(t *testing.T, w *chattest.World) {
			sendChannel(t, w, mark, "t", "```\n@**Echo Bot** help\n```")
		}, map[chatcore.UserID]int{}},
		{"sent by a bot", func(t *testing.T, w *chattest.World) { sendChannel(t, w, genericBot, "t", "@**Echo Bot** ping") },
			map[chatcore.UserID]int{}},
		{"two bots mentioned", func(t *testing.T, w *chattest.World) {
			sendChannel(t, w, mark, "t", "@**Echo Bot** and @**Second Bot**")
		}, map[chatcore.UserID]int{echoBot: 1, secondBot: 1}},
		{"mentioned twice", func(t *testing.T, w *chattest.World) { sendChannel(t, w, mark, "t", "@**Echo Bot** @**Echo Bot**") },
			map[chatcore.UserID]int{echoBot: 1}},
		{"1:1 direct message", func(t *testing.T, w *chattest.World) { sendDirect(t, w, mark, []chatcore.UserID{echoBot}, "hi") },
			map[chatcore.UserID]int{echoBot: 1}},
		{"group DM with two bots", func(t *testing.T, w *chattest.World) {
			sendDirect(t, w, mark, []chatcore.UserID{echoBot, secondBot}, "hi all")
		}, map[chatcore.UserID]int{echoBot: 1, secondBot: 1}},
		{"DM without bots", func(t *testing.T, w *chattest.World) {
			sendDirect(t, w, mark, []chatcore.UserID{nina}, "@**Echo Bot**")
		},
			map[chatcore.UserID]int{}},
		{"DM from a bot", func(t *testing.T, w *chattest.World) { sendDirect(t, w, genericBot, []chatcore.UserID{echoBot}, "hi") },
			map[chatcore.UserID]int{}},
		{"deactivated bot", func(t *testing.T, w *chattest.World) {
			err := w.Store.Update(t.Context(), func(tx chatcore.Tx) error {
				u, err := tx.User(t.Context(), echoBot)
				if err != nil {
					return err
				}
				u.IsActive = false
				return tx.UpdateUser(t.Context(), u)
			})
			is.New(t).NoErr(err) // bot deactivated
			sendChannel(t, w, mark, "t", "@**Echo Bot** hi")
		}, map[chatcore.UserID]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			echo := newRecorder(t, answer(200, `{"response_not_required": true}`))
			second := newRecorder(t, answer(200, `{"response_not_required": true}`))
			w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(echo.srv.URL), secondBot: generic(second.srv.URL)})
			tt.send(t, w)
			drain(t, w)
			is.Equal(len(echo.all()), tt.want[echoBot])     // requests to Echo Bot
			is.Equal(len(second.all()), tt.want[secondBot]) // requests to Second Bot
		})
	}
}

func TestWebhookEveryServiceIsCalled(t *testing.T) {
	is := is.New(t)
	a := newRecorder(t, answer(200, `{"content": "from a"}`))
	b := newRecorder(t, answer(200, `{"content": "from b"}`))
	w, _ := newWebhookWorld(t, fast(), botServices{echoBot: {
		{Name: "a", BaseURL: a.srv.URL, Token: "tokenA", Interface: "generic"},
		{Name: "b", BaseURL: b.srv.URL, Token: "tokenB", Interface: "generic"},
	}})
	id := sendChannel(t, w, mark, "t", "@**Echo Bot** both")
	drain(t, w)
	is.Equal(len(a.all()), 1) // first service called
	is.Equal(len(b.all()), 1) // second service called
	var pa, pb outgoing.Payload
	is.NoErr(json.Unmarshal(a.all()[0].body, &pa)) // payload a decodes
	is.NoErr(json.Unmarshal(b.all()[0].body, &pb)) // payload b decodes
	is.Equal(pa.Token, "tokenA")                   // each service gets its own token
	is.Equal(pb.Token, "tokenB")                   // each service gets its own token
	var replies []string
	for _, m := range messagesAfter(t, w, id) {
		replies = append(replies, m.Content)
	}
	slices.Sort(replies)
	is.Equal(replies, []string{"from a", "from b"}) // both replies posted
}

func TestWebhookSlackInterface(t *testing.T) {
	is := is.New(t)
	rec := newRecorder(t, answer(200, `{"text": "slack reply"}`))
	w, _ := newWebhookWorld(t, fast(), botServices{echoBot: {{Name: "s", BaseURL: rec.srv.URL, Token: "slackTok", Interface: "slack"}}})
	id := sendChannel(t, w, mark, "deploys", "@**Echo Bot** status")
	dm := sendDirect(t, w, mark, []chatcore.UserID{echoBot}, "status?")
	drain(t, w)

	reqs := rec.all()
	is.Equal(len(reqs), 1)                                                            // DMs are not sent to Slack-style services
	is.Equal(reqs[0].header.Get("Content-Type"), "application/x-www-form-urlencoded") // form-encoded
	form, err := url.ParseQuery(string(reqs[0].body))
	is.NoErr(err) // a valid form
	want := url.Values{
		"token": {"slackTok"}, "team_id": {"T1"}, "team_domain": {"chat.example.test"},
		"channel_id": {"C61"}, "channel_name": {"general"}, "thread_ts": {"1767225600"},
		"timestamp": {"1767225600"}, "user_id": {"U12"}, "user_name": {"Mark Member"},
		"text": {"@**Echo Bot** status"}, "trigger_word": {"mention"}, "service_id": {"31"},
	}
	is.Equal(form, want) // Zulip's Slack fields

	var channelReply, dmReply string
	for _, m := range messagesAfter(t, w, id) {
		if m.ID == dm {
			continue
		}
		if m.Type == chatcore.MessageTypeStream {
			channelReply = m.Content
		} else {
			dmReply = m.Content
		}
	}
	is.Equal(channelReply, "slack reply")                                                // reply taken from "text"
	is.Equal(dmReply, "Failure! Slack outgoing webhooks don't support direct messages.") // DMs refused in the conversation
}

func TestWebhookBotkitRoundTrip(t *testing.T) {
	is := is.New(t)
	var got *outgoing.Payload
	var mu sync.Mutex
	h := botkit.Handler(echoToken, func(_ context.Context, p *outgoing.Payload) (string, error) {
		mu.Lock()
		got = p
		mu.Unlock()
		return "echo: " + botkit.Command(p), nil
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(srv.URL)})
	id := sendChannel(t, w, mark, "t", "@**Echo Bot**   what's up?")
	drain(t, w)
	ms := messagesAfter(t, w, id)
	is.Equal(len(ms), 1)                        // the bot answered
	is.Equal(ms[0].Content, "echo: what's up?") // with the mention stripped
	mu.Lock()
	defer mu.Unlock()
	is.Equal(got.Message.ID, int64(id))               // the handler saw the triggering message
	is.Equal(got.Message.DisplayRecipient, "general") // channel name as a string
	is.Equal(got.Trigger, outgoing.TriggerMention)    // mention trigger
}

func TestWebhookPayloadEditedMessage(t *testing.T) {
	is := is.New(t)
	w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic("http://192.0.2.1/")})
	edited := time.Unix(1767229200, 0)
	moved := time.Unix(1767232800, 0)
	var editedID, movedID chatcore.MessageID
	err := w.Store.Update(t.Context(), func(tx chatcore.Tx) error {
		st, err := tx.Stream(t.Context(), generalChannel)
		if err != nil {
			return err
		}
		m := &chatcore.Message{
			RealmID: webhookRealm, SenderID: mark, Type: chatcore.MessageTypeStream, RecipientID: st.RecipientID,
			StreamID: generalChannel, Topic: "", Content: "@**Echo Bot** v2", RenderedContent: "<p>v2</p>",
			Client: "website", SentAt: time.Unix(1767225600, 0), LastEditedAt: edited,
			EditHistory: []chatcore.EditHistoryEntry{{UserID: mark, Timestamp: edited, PrevContent: "v1", PrevRenderedContent: "<p>v1</p>"}},
		}
		if err := tx.CreateMessage(t.Context(), m); err != nil {
			return err
		}
		editedID = m.ID
		old := "old topic"
		n := &chatcore.Message{
			RealmID: webhookRealm, SenderID: mark, Type: chatcore.MessageTypeStream, RecipientID: st.RecipientID,
			StreamID: generalChannel, Topic: "new topic", Content: "@**Echo Bot** moved", RenderedContent: "<p>moved</p>",
			Client: "website", SentAt: time.Unix(1767225600, 0), LastMovedAt: moved,
			EditHistory: []chatcore.EditHistoryEntry{{UserID: botOwner, Timestamp: moved, PrevTopic: &old, Topic: new("new topic")}},
		}
		if err := tx.CreateMessage(t.Context(), n); err != nil {
			return err
		}
		movedID = n.ID
		return nil
	})
	is.NoErr(err) // messages stored

	message := func(id chatcore.MessageID) map[string]any {
		bodies, err := bodies(t, w, id, []chatcore.UserID{echoBot})
		is.NoErr(err)            // payload built
		is.Equal(len(bodies), 1) // one service
		var p map[string]any
		is.NoErr(json.Unmarshal([]byte(bodies[0]), &p)) // JSON
		return p["message"].(map[string]any)
	}

	m := message(editedID)
	is.Equal(keys(m), slices.Sorted(slices.Values(append(slices.Clone(channelMessageKeys), "edit_history", "last_edit_timestamp")))) // edited: edit fields present, not moved
	is.Equal(m["last_edit_timestamp"], float64(1767229200))                                                                          // last edit time
	is.Equal(m["subject"], "")                                                                                                       // the empty topic is sent as ""
	is.Equal(m["edit_history"], []any{map[string]any{
		"user_id": float64(mark), "timestamp": float64(1767229200),
		"prev_content": "v1", "prev_rendered_content": "<p>v1</p>",
	}}) // content edit entry

	m = message(movedID)
	is.Equal(keys(m), slices.Sorted(slices.Values(append(slices.Clone(channelMessageKeys), "edit_history", "last_moved_timestamp")))) // moved only: no last_edit_timestamp
	is.Equal(m["last_moved_timestamp"], float64(1767232800))                                                                          // move time
	is.Equal(m["edit_history"], []any{map[string]any{
		"user_id": float64(botOwner), "timestamp": float64(1767232800),
		"prev_topic": "old topic", "topic": "new topic",
	}}) // topic move entry
}
