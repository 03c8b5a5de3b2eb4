package messages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/store/memory"
)

// ExampleGet reads the newest messages of one topic, as GET /messages with
// a narrow does.
func ExampleGet() {
	ctx := context.Background()
	svc := chatcore.New(memory.New())
	org := `{"realms": [{"id": 1, "string_id": "acme", "name": "Acme",
	  "users": [{"id": 11, "email": "ada@acme.test", "full_name": "Ada", "role": "owner",
	             "api_key": "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"}],
	  "channels": [{"id": 61, "name": "general", "subscribers": [11]}],
	  "messages": [
	    {"id": 1001, "sender_id": 11, "channel_id": 61, "topic": "lunch", "content": "Pizza?", "timestamp": 1767225600},
	    {"id": 1002, "sender_id": 11, "channel_id": 61, "topic": "deploys", "content": "v2 is out", "timestamp": 1767225660},
	    {"id": 1003, "sender_id": 11, "channel_id": 61, "topic": "lunch", "content": "At **noon**", "timestamp": 1767225720}
	  ]}]}`
	if err := fixture.Load(ctx, svc, strings.NewReader(org)); err != nil {
		fmt.Println(err)
		return
	}
	term := func(op, operand string) messages.NarrowTerm {
		raw, _ := json.Marshal(operand)
		return messages.NarrowTerm{Operator: op, Operand: raw}
	}
	res, err := messages.Get(ctx, svc, 11, messages.Request{
		Anchor:    new("newest"),
		NumBefore: new(10),
		NumAfter:  new(0),
		Narrow:    []messages.NarrowTerm{term("channel", "general"), term("topic", "lunch")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Messages {
		fmt.Println(m.ID, m.Subject, m.Content)
	}
	fmt.Println("found newest:", res.FoundNewest)
	// Output:
	// 1001 lunch <p>Pizza?</p>
	// 1003 lunch <p>At <strong>noon</strong></p>
	// found newest: true
}
