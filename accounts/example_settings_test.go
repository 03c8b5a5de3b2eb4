package accounts_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/store/memory"
)

// printSettingsEvents prints the type, property and value of each published event.
type printSettingsEvents struct{}

func (printSettingsEvents) Publish(_ context.Context, evs []chatcore.Event) {
	for _, e := range evs {
		fmt.Println("event:", e.Data["type"], e.Data["property"], e.Data["value"], e.UserIDs)
	}
}

func ExampleUpdateSettings() {
	ctx := context.Background()
	store := memory.New()
	svc := chatcore.New(store, chatcore.WithEventSink(printSettingsEvents{}))

	// A realm with one user.
	var hamlet chatcore.UserID
	err := store.Update(ctx, func(tx chatcore.Tx) error {
		r := &chatcore.Realm{StringID: "zulip", Name: "Zulip"}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		u := &chatcore.User{RealmID: r.ID, Email: "hamlet@example.com", FullName: "King Hamlet",
			Role: chatcore.RoleMember, IsActive: true, Settings: chatcore.DefaultSettings()}
		err := tx.CreateUser(ctx, u)
		hamlet = u.ID
		return err
	})
	if err != nil {
		panic(err)
	}

	// A partial update: nil fields are left alone. The Service validates it
	// and applies it in one transaction (httpadapter decodes the same struct
	// from PATCH /settings parameters).
	req := accounts.SettingsUpdate{ColorScheme: new(2), Timezone: new("America/Montreal")}
	if err := accounts.UpdateSettings(ctx, svc, hamlet, req); err != nil {
		panic(err)
	}

	// Bad values come back as *chatcore.Error with Zulip's code and message.
	err = accounts.UpdateSettings(ctx, svc, hamlet, accounts.SettingsUpdate{Emojiset: new("apple")})
	if e, ok := errors.AsType[*chatcore.Error](err); ok {
		fmt.Println(e.Code, e.Msg)
	}
	// Output:
	// event: user_settings color_scheme 2 [1]
	// event: user_settings timezone America/Toronto [1]
	// event: realm_user <nil> <nil> [1]
	// BAD_REQUEST Invalid emojiset: Value error, Not in the list of possible values
}
