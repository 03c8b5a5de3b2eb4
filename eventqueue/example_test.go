package eventqueue_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/reactions"
	"github.com/chatcore/chatcore/store/memory"
)

// ExampleHub_Open registers an event queue for a user and reads its events
// as typed Go values, as a bot or a client library does over
// POST /register and GET /events.
func ExampleHub_Open() {
	ctx := context.Background()
	svc := chatcore.New(memory.New())
	org := `{"realms": [{"id": 1, "string_id": "acme", "name": "Acme",
	  "users": [
	    {"id": 11, "email": "ada@acme.test", "full_name": "Ada", "role": "owner", "api_key": "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"},
	    {"id": 12, "email": "max@acme.test", "full_name": "Max", "api_key": "bB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"}],
	  "channels": [{"id": 61, "name": "general", "subscribers": [11, 12]}]}]}`
	if err := fixture.Load(ctx, svc, strings.NewReader(org)); err != nil {
		fmt.Println(err)
		return
	}
	hub := eventqueue.New(svc, eventqueue.Options{}) // one per process
	defer hub.Close()
	q, err := hub.Open(ctx, 12, eventqueue.RegisterRequest{
		Queue: &eventqueue.QueueOptions{EventTypes: []string{"message", "reaction"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Ada writes and reacts; Max's queue hears of both.
	id, err := svc.SendMessage(ctx, 11, chatcore.SendMessageRequest{Type: "stream", To: new("general"), Topic: new("hello"), Content: "Hi **Max**"})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := reactions.Add(ctx, svc, 11, id, reactions.AddRequest{EmojiName: "wave"}); err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	n := 0
	for qe, err := range q.Events(ctx) {
		if eventqueue.IsBadQueue(err) {
			fmt.Println("queue gone: register again")
			return
		}
		ev, err := eventqueue.Decode(qe)
		if err != nil {
			fmt.Println(err)
			return
		}
		switch ev := ev.(type) {
		case *eventqueue.MessageEvent:
			fmt.Println("message from", ev.Message.SenderFullName+":", ev.Message.Content)
		case *eventqueue.ReactionEvent:
			fmt.Println(ev.User.FullName, "reacted", ev.EmojiName, "on", ev.MessageID == id)
		}
		if n++; n == 2 {
			break
		}
	}
	// Output:
	// message from Ada: Hi **Max**
	// Ada reacted wave on true
}
