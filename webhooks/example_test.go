package webhooks_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/botkit"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/outgoing"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/chatcore/chatcore/webhooks"
)

// An organization with one user, one outgoing-webhook bot and one channel.
const webhookExampleFixture = `{"realms": [{"id": 1, "string_id": "acme", "name": "Acme",
  "users": [{"id": 11, "email": "olivia@acme.test", "full_name": "Olivia", "role": "owner",
             "api_key": "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"}],
  "bots": [{"id": 31, "email": "echo-bot@acme.test", "full_name": "Echo Bot", "owner_id": 11,
            "api_key": "zY1xW9vU7tS5rQ3pN1mL9kJ7hG5fE3dB", "bot_type": "outgoing_webhook",
            "service": {"base_url": "BOT_URL", "token": "s3cretToken", "interface": "generic"}}],
  "channels": [{"id": 61, "name": "general", "subscribers": [11]}]}]}`

// ExampleDelivery runs an integration built with botkit and lets a
// message that mentions its bot trigger it; the bot's reply lands in the topic.
func ExampleDelivery() {
	ctx := context.Background()

	// The integration: answers every verified payload.
	integration := httptest.NewServer(botkit.Handler("s3cretToken",
		func(_ context.Context, p *outgoing.Payload) (string, error) {
			return "You said: " + botkit.Command(p), nil
		}))
	defer integration.Close()

	st := memory.New()
	svc := chatcore.New(st, webhooks.Delivery(webhooks.Options{
		AllowPrivate: true, // the integration listens on 127.0.0.1
	}))
	org := strings.Replace(webhookExampleFixture, "BOT_URL", integration.URL, 1)
	if err := fixture.Load(ctx, svc, strings.NewReader(org)); err != nil {
		fmt.Println(err)
		return
	}

	id, err := svc.SendMessage(ctx, 11, chatcore.SendMessageRequest{
		Type: "stream", To: new("general"), Topic: new("greetings"), Content: "@**Echo Bot** hello",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Shutdown waits for queued deliveries, and so for the bot's reply.
	if err := svc.Shutdown(ctx); err != nil {
		fmt.Println(err)
		return
	}

	_ = st.View(ctx, func(tx chatcore.Tx) error {
		replies, err := tx.Messages(ctx, chatcore.MessageQuery{RealmID: 1, AfterID: id})
		for _, m := range replies {
			fmt.Printf("%s > %s: %s (from user %d)\n", "general", m.Topic, m.Content, m.SenderID)
		}
		return err
	})
	// Output:
	// general > greetings: You said: hello (from user 31)
}
