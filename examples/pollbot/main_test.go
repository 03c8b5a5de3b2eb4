package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

func TestPollbotAnswersDirectMessages(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w := open(t)
		c := w.SeedCast(t)
		hub := eventqueue.New(w.Svc, eventqueue.Options{})
		t.Cleanup(hub.Close)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- serve(ctx, hub, w.Svc, c.Bot.ID, slog.New(slog.DiscardHandler)) }()

		// The bot's queue must exist before the message is sent.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			n := chattest.Read(t, w.Base, func(ctx context.Context, tx chatcore.Tx) (int, error) {
				qs, err := tx.EventQueues(ctx, chatcore.EventQueueFilter{UserID: c.Bot.ID})
				return len(qs), err
			})
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the bot registered no queue")
			}
		}
		member, err := hub.Open(ctx, c.Member.ID, eventqueue.RegisterRequest{Sections: []string{}, Queue: &eventqueue.QueueOptions{EventTypes: []string{"message"}}})
		is.NoErr(err) // the member's queue
		to := "[" + jsonText(c.Bot.ID) + "]"
		_, err = w.Svc.SendMessage(ctx, c.Member.ID, chatcore.SendMessageRequest{Type: "private", To: &to, Content: "hello bot"})
		is.NoErr(err) // a direct message to the bot
		var reply string
		for ev, err := range member.Events(ctx) {
			is.NoErr(err) // events arrive
			var m messageEvent
			is.NoErr(ev.Decode(&m))
			if m.Message.SenderID == c.Bot.ID {
				reply = m.Message.Content
				break
			}
		}
		is.Equal(reply, "You said: hello bot") // the bot answered
		cancel()
		is.NoErr(<-done) // the bot stops with its context
	})
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }
