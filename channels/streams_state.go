package channels

import (
	"context"

	"github.com/chatcore/chatcore"
)

// RegisterState returns the two channel sections of POST /register for
// viewer, read in tx with one read of the realm's channels and subscriber
// lists for both (a large realm has tens of thousands of subscriptions):
//   - when streams, the stream section: the channels GET /streams lists by
//     default (public ones, except for guests, and the viewer's own), every
//     channel for an administrator, as Zulip's fetch_initial_state_data asks
//     do_get_streams (include_all for realm administrators); archived
//     channels left out;
//   - when subscriptions, the subscription section as [SubscriptionState]
//     computes it, with subscribers when withSubscribers.
//
// p, when not nil, holds the realm's permissions read in tx already. A
// section not asked for is nil. Errors are the store's.
func RegisterState(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, viewer *chatcore.User, p *chatcore.Permissions, streams, subscriptions, withSubscribers bool) ([]View, *State, error) {
	w, err := loadChannelWorld(ctx, tx, viewer, p)
	if err != nil {
		return nil, nil, err
	}
	var views []View
	if streams {
		all := viewer.Role.IsAdmin()
		if views, err = list(ctx, svc, tx, viewer, ListRequest{IncludeAll: &all}, w); err != nil {
			return nil, nil, err
		}
	}
	var state *State
	if subscriptions {
		if state, err = subscriptionState(ctx, svc, tx, w, withSubscribers); err != nil {
			return nil, nil, err
		}
	}
	return views, state, nil
}
