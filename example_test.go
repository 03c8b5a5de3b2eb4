package chatcore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/store/memory"
)

// Example shows the usual start: a Service over a store, an organization
// loaded from a fixture, a request authenticated by e-mail and API key, and
// an operation carried out as that user.
func Example() {
	ctx := context.Background()
	svc := chatcore.New(memory.New())

	org := `{"realms": [{
	  "id": 1, "string_id": "acme", "name": "Acme Corp",
	  "users": [
	    {"id": 11, "email": "olivia@acme.test", "full_name": "Olivia Owner", "role": "owner",
	     "api_key": "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"},
	    {"id": 12, "email": "max@acme.test", "full_name": "Max Member", "role": "member",
	     "api_key": "bB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"}
	  ]}]}`
	if err := fixture.Load(ctx, svc, strings.NewReader(org)); err != nil {
		fmt.Println("load:", err)
		return
	}

	// What an HTTP adapter does with a Basic-auth header.
	owner, err := svc.Authenticate(ctx, "olivia@acme.test", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY")
	if err != nil {
		fmt.Println("auth:", err)
		return
	}
	if err := accounts.DeactivateUser(ctx, svc, owner.ID, 12, accounts.DeactivateUserRequest{}); err != nil {
		fmt.Println("deactivate:", err)
		return
	}
	member, err := accounts.User(ctx, svc, owner.ID, 12)
	if err != nil {
		fmt.Println("user:", err)
		return
	}
	fmt.Println(member.FullName, "active:", member.IsActive)

	// The deactivated user's key stops working at once.
	_, err = svc.Authenticate(ctx, "max@acme.test", "bB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY")
	if e, ok := errors.AsType[*chatcore.Error](err); ok {
		fmt.Println(e.Code, e.Msg)
	}

	// Zulip's rules are enforced: the only owner cannot be deactivated.
	err = accounts.DeactivateUser(ctx, svc, owner.ID, owner.ID, accounts.DeactivateUserRequest{})
	if e, ok := errors.AsType[*chatcore.Error](err); ok {
		fmt.Println(e.Code, e.Msg)
	}
	// Output:
	// Max Member active: false
	// UNAUTHORIZED Account is deactivated
	// BAD_REQUEST Cannot deactivate the only organization owner
}
