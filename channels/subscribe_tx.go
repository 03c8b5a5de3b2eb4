package channels

import (
	"context"

	"github.com/chatcore/chatcore"
)

// SubscribeInTx subscribes every target to every channel inside the
// caller's transaction, as POST /users/me/subscriptions does for channels
// that exist (colours from Zulip's palette, a returning subscriber keeping
// their settings), and queues the subscription add and peer_add events on
// fx. It checks no permission: the caller has (an invitation names the
// channels an account joins). actor is who subscribes them.
func SubscribeInTx(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, actor *chatcore.User, channels []*chatcore.Stream, targets []*chatcore.User) error {
	res := SubscribeResult{Subscribed: map[string][]string{}, AlreadySubscribed: map[string][]string{}}
	return addSubscriptions(ctx, svc, tx, fx, actor, channels, targets, nil, &res)
}
