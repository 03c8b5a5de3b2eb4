package channels_test

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/store/memory"
)

func ExampleDeleteTopic() {
	ctx := context.Background()
	store := memory.New()
	svc := chatcore.New(store)

	// Seed a realm, an administrator and a channel with a topic of three messages.
	var admin chatcore.User
	var channel chatcore.Stream
	err := store.Update(ctx, func(tx chatcore.Tx) error {
		realm := chatcore.Realm{StringID: "example", Name: "Example"}
		if err := tx.CreateRealm(ctx, &realm); err != nil {
			return err
		}
		admin = chatcore.User{RealmID: realm.ID, Email: "iago@example.com", FullName: "Iago",
			Role: chatcore.RoleAdministrator, IsActive: true, Settings: chatcore.DefaultSettings()}
		if err := tx.CreateUser(ctx, &admin); err != nil {
			return err
		}
		channel = chatcore.Stream{RealmID: realm.ID, Name: "Denmark", HistoryPublicToSubscribers: true}
		if err := tx.CreateStream(ctx, &channel); err != nil {
			return err
		}
		for _, text := range []string{"one", "two", "three"} {
			m := chatcore.Message{RealmID: realm.ID, SenderID: admin.ID, Type: chatcore.MessageTypeStream,
				RecipientID: channel.RecipientID, StreamID: channel.ID, Topic: "Castle", Content: text}
			if err := tx.CreateMessage(ctx, &m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Topics match case-insensitively. Complete is false only when the time
	// budget ran out; then the caller repeats the request.
	res, err := channels.DeleteTopic(ctx, svc, admin.ID, channel.ID, "castle")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("complete:", res.Complete)

	// Refusals are *chatcore.Error values with Zulip's code and message.
	_, err = channels.DeleteTopic(ctx, svc, admin.ID, 12345, "castle")
	fmt.Println(chatcore.ErrorCode(err), err.(*chatcore.Error).Msg)
	// Output:
	// complete: true
	// BAD_REQUEST Invalid channel ID
}
