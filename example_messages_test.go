package chatcore_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/store/memory"
)

func ExampleService_SendMessage() {
	ctx := context.Background()
	store := memory.New()
	svc := chatcore.New(store)

	// Seed a realm with an administrator, a member and a public channel.
	var admin, hamlet chatcore.User
	err := store.Update(ctx, func(tx chatcore.Tx) error {
		realm := chatcore.Realm{StringID: "example", Name: "Example"}
		if err := tx.CreateRealm(ctx, &realm); err != nil {
			return err
		}
		admin = chatcore.User{RealmID: realm.ID, Email: "iago@example.com", FullName: "Iago",
			Role: chatcore.RoleAdministrator, IsActive: true, Settings: chatcore.DefaultSettings()}
		hamlet = chatcore.User{RealmID: realm.ID, Email: "hamlet@example.com", FullName: "King Hamlet",
			Role: chatcore.RoleMember, IsActive: true, Settings: chatcore.DefaultSettings()}
		for _, u := range []*chatcore.User{&admin, &hamlet} {
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
		}
		return tx.CreateStream(ctx, &chatcore.Stream{RealmID: realm.ID, Name: "Denmark", HistoryPublicToSubscribers: true})
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// A linkifier turns "#123" into an issue link, in content and in topics.
	if _, err := linkifiers.Add(ctx, svc, admin.ID, `#(?P<id>[0-9]+)`, "https://tracker.example.com/{id}"); err != nil {
		fmt.Println(err)
		return
	}

	id, err := svc.SendMessage(ctx, admin.ID, chatcore.SendMessageRequest{
		Type: "stream", To: new("Denmark"), Topic: new("bug #7"),
		Content: "@**King Hamlet** please look at #123",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	msg, raw, err := messages.One(ctx, svc, hamlet.ID, id, messages.OneRequest{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(raw)
	fmt.Println(msg.Content)
	fmt.Println(msg.TopicLinks[0].URL)

	// Refusals carry Zulip's code and message.
	_, err = svc.SendMessage(ctx, admin.ID, chatcore.SendMessageRequest{
		Type: "stream", To: new("Elsinore"), Topic: new("t"), Content: "hi"})
	if e, ok := errors.AsType[*chatcore.Error](err); ok {
		fmt.Println(e.Code, e.Msg)
	}
	// Output:
	// @**King Hamlet** please look at #123
	// <p><span class="user-mention" data-user-id="2">@King Hamlet</span> please look at <a href="https://tracker.example.com/123">#123</a></p>
	// https://tracker.example.com/7
	// STREAM_DOES_NOT_EXIST Channel 'Elsinore' does not exist
}
