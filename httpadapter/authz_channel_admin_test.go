package httpadapter_test

import (
	"testing"

	"github.com/matryer/is"
)

// The channel administration rows of the authorization matrix: realm
// administrators administer every channel they may know of; nobody else
// does, as no fixture channel has a can_administer_channel_group.

var cannotAdminister = badRequest("You do not have permission to administer this channel.")

// channelAdminOr gives "Invalid channel ID" for a channel the caller's
// realm does not have, the refusal to non-administrators, and ok.
func channelAdminOr(r authzRole, k objKind, _ string) outcome {
	switch {
	case k != objPeer:
		return badRequest("Invalid channel ID")
	case !r.admin:
		return cannotAdminister
	}
	return ok200
}

func channelAdminAuthzCases() []authzCase {
	defaultCase := func(method string) authzCase {
		return authzCase{
			route: method + " /api/v1/default_streams", kinds: realmKinds, obj: shared("61", "71"),
			req: func(_ authzRole, id string) request {
				return request{method: method, path: "/default_streams", enc: urlEncoded, params: params("stream_id", id)}
			},
			want: adminOr(peerOr(badRequest("Invalid channel ID"))),
		}
	}
	return []authzCase{
		defaultCase("POST"),
		defaultCase("DELETE"),
		{
			route: "POST /api/v1/default_streams", name: "private channel", kinds: []objKind{objPeer}, obj: fixed("62"),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/default_streams", enc: urlEncoded, params: params("stream_id", id)}
			},
			want: adminOr(func(r authzRole, _ objKind, _ string) outcome {
				if r.realm == other {
					return badRequest("Invalid channel ID")
				}
				return badRequest("Private channels cannot be made default.")
			}),
		},
		{
			route: "PATCH /api/v1/realm", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "PATCH", path: "/realm", enc: urlEncoded, params: params("name", "Renamed", "require_unique_names", "true")}
			},
			want: adminOr(always(ok200)),
		},
		{
			route: "PATCH /api/v1/realm", name: "an owners' group setting", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "PATCH", path: "/realm", enc: urlEncoded,
					params: params("can_invite_users_group", `{"new":{"direct_members":[],"direct_subgroups":[]}}`)}
			},
			want: adminOr(func(r authzRole, _ objKind, _ string) outcome {
				if r.self == 11 || r.self == 21 {
					return ok200
				}
				return mustBeOwner
			}),
		},
		{
			route: "PATCH /api/v1/realm/user_settings_defaults", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "PATCH", path: "/realm/user_settings_defaults", enc: urlEncoded, params: params("color_scheme", "2")}
			},
			want: adminOr(always(ok200)),
		},
		{
			// A success deactivates the realm; succeeding cells get a fresh
			// server each, so the other cells never see it.
			route: "POST /api/v1/realm/deactivate", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/realm/deactivate"}
			},
			want: func(r authzRole, _ objKind, _ string) outcome {
				if r.self == 11 || r.self == 21 { // the realms' owners
					return ok200
				}
				return mustBeOwner
			},
		},
		{
			route: "PATCH /api/v1/streams/{stream_id}", name: "public channel", kinds: realmKinds, obj: shared("61", "71"),
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/streams/" + id, enc: urlEncoded, params: params("description", "changed")}
			},
			want: channelAdminOr,
		},
		{
			route: "PATCH /api/v1/streams/{stream_id}", name: "private channel", kinds: []objKind{objPeer}, obj: fixed("62"),
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/streams/" + id, enc: urlEncoded, params: params("new_name", "crew")}
			},
			want: func(r authzRole, _ objKind, _ string) outcome {
				if r.realm == other || !r.admin {
					return badRequest("Invalid channel ID") // another realm's, or private and not subscribed
				}
				return ok200
			},
		},
		{
			route: "DELETE /api/v1/streams/{stream_id}", kinds: realmKinds, obj: shared("61", "71"),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/streams/" + id, enc: urlEncoded}
			},
			want: channelAdminOr,
		},
		{
			route: "GET /api/v1/streams/{stream_id}/members", kinds: realmKinds, obj: shared("61", "71"), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/streams/" + id + "/members"}
			},
			want: peerOr(badRequest("Invalid channel ID")),
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				want := []int64{11, 12, 13, 14, 15, 17, 31}
				if r.realm == other {
					want = []int64{21, 22}
				}
				got := []int64{}
				for _, v := range res.body["subscribers"].([]any) {
					got = append(got, num(t, v))
				}
				is.Equal(got, want) // the active subscribers
			},
		},
	}
}
