package channels

import (
	"context"

	"github.com/chatcore/chatcore"
)

// StreamsState returns the streams section of POST /register for viewer,
// read in tx: the channels GET /streams lists by default (public ones,
// except for guests, and the viewer's own), every channel for an
// administrator, as Zulip's fetch_initial_state_data asks do_get_streams
// (include_all for realm administrators); archived channels left out.
func StreamsState(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, viewer *chatcore.User) ([]View, error) {
	all := viewer.Role.IsAdmin()
	return list(ctx, svc, tx, viewer, ListRequest{IncludeAll: &all})
}
