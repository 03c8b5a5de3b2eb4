package httpadapter_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// The authorization matrix's cells for people, bots and invitations. The
// fixture gets invitations of its own (seedAuthzInvites): every user of
// both realms has sent e-mail invitation 50<uid> and multi-use link 60<uid>.

// authzInviters are the users seedAuthzInvites gives invitations.
var authzInviters = map[chatcore.RealmID][]chatcore.UserID{1: {11, 12, 13, 14, 15, 16, 17, 31}, 2: {21, 22}}

// seedAuthzInvites writes the fixture's invitations into the store.
func seedAuthzInvites(tb testing.TB, st chatcore.Store) {
	tb.Helper()
	ctx := context.Background()
	err := st.Update(ctx, func(tx chatcore.Tx) error {
		for realm, users := range authzInviters {
			for _, u := range users {
				for _, multi := range []bool{false, true} {
					inv := &chatcore.Invite{ID: chatcore.InviteID(5000 + int64(u)), RealmID: realm, Key: fmt.Sprintf("inv%d", u),
						Email: fmt.Sprintf("invitee%d@example.test", u), InviterID: u, InviteAs: chatcore.RoleMember,
						CreatedAt: time.Now().Truncate(time.Second)}
					if multi {
						inv.ID, inv.Key, inv.Email, inv.MultiUse = inv.ID+1000, fmt.Sprintf("multi%d", u), "", true
					}
					if err := tx.CreateInvite(ctx, inv); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	is.New(tb).NoErr(err) // the invitations are written
}

// authzInvites lists both realms' invitations for the snapshot.
func authzInvites(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID) ([]chatcore.Invite, error) {
	return tx.Invites(ctx, chatcore.InviteFilter{RealmID: realm})
}

var (
	mustBeOwner  = outcome{400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner"}
	notForGuests = badRequest("Not allowed for guest users")
)

// memberOr gives guests and bots Zulip's @require_member_or_admin refusals
// and everyone else f's outcome.
func memberOr(f func(r authzRole, k objKind, id string) outcome) func(authzRole, objKind, string) outcome {
	return func(r authzRole, k objKind, id string) outcome {
		switch {
		case r.self == 15:
			return notForGuests
		case r.bot:
			return notForBots
		}
		return f(r, k, id)
	}
}

// ownedInvite is the outcome of changing another's invitation: its
// inviter and administrators may.
func ownedInvite(miss outcome) func(authzRole, objKind, string) outcome {
	return memberOr(func(r authzRole, k objKind, _ string) outcome {
		switch {
		case k == objOwn:
			return ok200
		case k == objPeer && r.admin:
			return ok200
		case k == objPeer:
			return mustBeAdmin
		}
		return miss
	})
}

// generalOf is the id of the caller's realm's public channel.
func generalOf(r authzRole) string {
	if r.realm == other {
		return "71"
	}
	return "61"
}

func peopleAuthzCases() []authzCase {
	botIDs := shared("31", "22") // acme's bot; the other realm has only humans
	botCell := func(miss outcome) func(authzRole, objKind, string) outcome {
		return func(r authzRole, k objKind, _ string) outcome {
			if k == objPeer && r.realm == acme && r.admin {
				return ok200 // administrators (the owner owns it too)
			}
			if k == objPeer && r.realm == acme {
				return badRequest("Insufficient permission")
			}
			return miss
		}
	}
	noBot := badRequest("No such bot")
	return []authzCase{
		{
			route: "POST /api/v1/users", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/users", enc: urlEncoded,
					params: params("email", "newcomer@example.test", "password", "Correct-Horse-Battery-42", "full_name", "New Comer")}
			},
			want: func(r authzRole, _ objKind, _ string) outcome {
				switch {
				case !r.admin:
					return outcome{400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator"}
				case r.name == "administrator" && r.realm == acme:
					return ok200 // the fixture grants can_create_users to acme's administrator only
				}
				return badRequest("User not authorized to create users")
			},
			check: func(t *testing.T, _ authzRole, res *response) {
				is.New(t).True(num(t, res.body["user_id"]) > 0) // the new account's id
			},
		},
		{
			route: "PATCH /api/v1/users/{user_id}", name: "full_name", kinds: allKinds, obj: owned(0),
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/users/" + id, enc: urlEncoded, params: params("full_name", "Renamed Person")}
			},
			want: adminOr(foundOr(badRequest("No such user"))),
		},
		{
			route: "PATCH /api/v1/users/{user_id}", name: "role to owner", kinds: realmKinds, obj: owned(0),
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/users/" + id, enc: urlEncoded, params: params("role", "100")}
			},
			want: adminOr(func(r authzRole, k objKind, _ string) outcome {
				switch {
				case k != objPeer:
					return badRequest("No such user")
				case r.self != 11 && r.self != 21:
					return mustBeOwner // only owners make owners
				}
				return ok200
			}),
		},
		{
			route: "PATCH /api/v1/users/{user_id}", name: "own role to member", kinds: []objKind{objOwn}, obj: owned(0),
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/users/" + id, enc: urlEncoded, params: params("role", "400")}
			},
			want: adminOr(func(r authzRole, _ objKind, _ string) outcome {
				if r.self == 11 || r.self == 21 {
					return badRequest("The owner permission cannot be removed from the only organization owner.")
				}
				return ok200 // an administrator may step down
			}),
		},
		{
			route: "POST /api/v1/users/{user_id}/reactivate", kinds: realmKinds, obj: shared("16", "22"),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/users/" + id + "/reactivate"}
			},
			want: adminOr(func(r authzRole, k objKind, _ string) outcome {
				switch {
				case k == objPeer && r.realm == acme:
					return ok200 // the deactivated user comes back
				case k == objPeer:
					return badRequest("User is already active")
				}
				return badRequest("No such user")
			}),
		},
		{
			route: "GET /api/v1/users/{user_id}/subscriptions/{stream_id}", name: "channels", kinds: realmKinds, obj: shared("61", "71"), readOnly: true,
			req: func(r authzRole, id string) request {
				return request{method: "GET", path: fmt.Sprintf("/users/%d/subscriptions/%s", r.self, id)}
			},
			want: peerOr(badRequest("Invalid channel ID")),
			check: func(t *testing.T, _ authzRole, res *response) {
				is.New(t).Equal(res.body["is_subscribed"], true) // every caller is subscribed to their general
			},
		},
		{
			route: "GET /api/v1/users/{user_id}/subscriptions/{stream_id}", name: "users", kinds: allKinds, obj: owned(0), readOnly: true,
			req: func(r authzRole, id string) request {
				return request{method: "GET", path: "/users/" + id + "/subscriptions/" + generalOf(r)}
			},
			want: foundOr(badRequest("No such user")),
		},
		{
			route: "POST /api/v1/users/me/api_key/regenerate", kinds: noKinds,
			req: func(authzRole, string) request { return request{method: "POST", path: "/users/me/api_key/regenerate"} },
			want: func(r authzRole, _ objKind, _ string) outcome {
				if r.bot {
					return notForBots
				}
				return ok200
			},
			check: func(t *testing.T, _ authzRole, res *response) {
				is.New(t).True(chatcore.ValidAPIKey(res.body["api_key"].(string))) // a fresh key
			},
		},
		{
			route: "GET /api/v1/bots", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/bots"} },
			want: always(ok200),
			check: func(t *testing.T, r authzRole, res *response) {
				want := []int64{}
				if r.self == 11 {
					want = []int64{31, 32} // the owner's bots
				}
				is.New(t).Equal(listIDs(t, res, "bots", "user_id"), want) // the caller's own active bots only
			},
		},
		{
			route: "POST /api/v1/bots", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/bots", enc: urlEncoded, params: params("full_name", "Authz Bot", "short_name", "authz")}
			},
			want: memberOr(always(ok200)),
			check: func(t *testing.T, _ authzRole, res *response) {
				is.New(t).True(chatcore.ValidAPIKey(res.body["api_key"].(string))) // the bot's key, shown once
			},
		},
		{
			route: "PATCH /api/v1/bots/{bot_id}", kinds: realmKinds, obj: botIDs,
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/bots/" + id, enc: urlEncoded, params: params("full_name", "Renamed Bot")}
			},
			want: botCell(noBot),
		},
		{
			route: "PATCH /api/v1/bots/{bot_id}", name: "a human", kinds: []objKind{objPeer}, obj: fixed("17"),
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/bots/" + id, enc: urlEncoded, params: params("full_name", "Renamed Bot")}
			},
			want: always(noBot),
		},
		{
			route: "DELETE /api/v1/bots/{bot_id}", kinds: realmKinds, obj: botIDs,
			req:  func(_ authzRole, id string) request { return request{method: "DELETE", path: "/bots/" + id} },
			want: botCell(noBot),
		},
		{
			route: "POST /api/v1/bots/{bot_id}/api_key/regenerate", kinds: realmKinds, obj: botIDs,
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/bots/" + id + "/api_key/regenerate"}
			},
			want: botCell(noBot),
		},
		{
			route: "GET /api/v1/invites", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/invites"} },
			want: memberOr(always(ok200)),
			check: func(t *testing.T, r authzRole, res *response) {
				want := []int64{5000 + r.self, 6000 + r.self}
				if r.admin {
					want = nil
					for _, u := range authzInviters[chatcore.RealmID(r.realm+1)] {
						want = append(want, 5000+int64(u))
					}
					for _, u := range authzInviters[chatcore.RealmID(r.realm+1)] {
						want = append(want, 6000+int64(u))
					}
				}
				is.New(t).Equal(listIDs(t, res, "invites", "id"), want) // administrators see the realm's, others their own
			},
		},
		{
			route: "POST /api/v1/invites", kinds: realmKinds, obj: shared("61", "71"),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/invites", enc: urlEncoded,
					params: params("invitee_emails", "newbie@example.test", "stream_ids", "["+id+"]")}
			},
			want: memberOr(func(_ authzRole, k objKind, id string) outcome {
				if k == objPeer {
					return ok200
				}
				return badRequest("Invalid channel ID " + id + ". No invites were sent.")
			}),
		},
		{
			route: "POST /api/v1/invites", name: "as owner", kinds: noKinds,
			req: func(r authzRole, _ string) request {
				return request{method: "POST", path: "/invites", enc: urlEncoded,
					params: params("invitee_emails", "boss@example.test", "stream_ids", "["+generalOf(r)+"]", "invite_as", "100")}
			},
			want: memberOr(func(r authzRole, _ objKind, _ string) outcome {
				if r.self == 11 || r.self == 21 {
					return ok200
				}
				return mustBeOwner
			}),
		},
		{
			route: "DELETE /api/v1/invites/{invite_id}", kinds: allKinds, obj: owned(5000),
			req:  func(_ authzRole, id string) request { return request{method: "DELETE", path: "/invites/" + id} },
			want: ownedInvite(badRequest("No such invitation")),
		},
		{
			route: "DELETE /api/v1/invites/{invite_id}", name: "a multi-use link's id", kinds: []objKind{objOwn}, obj: owned(6000),
			req:      func(_ authzRole, id string) request { return request{method: "DELETE", path: "/invites/" + id} },
			want:     memberOr(always(badRequest("No such invitation"))),
			readOnly: true,
		},
		{
			route: "POST /api/v1/invites/{invite_id}/resend", kinds: allKinds, obj: owned(5000),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/invites/" + id + "/resend"}
			},
			want: ownedInvite(badRequest("No such invitation")),
		},
		{
			route: "POST /api/v1/invites/multiuse", kinds: noKinds,
			req: func(r authzRole, _ string) request {
				return request{method: "POST", path: "/invites/multiuse", enc: urlEncoded, params: params("stream_ids", "["+generalOf(r)+"]")}
			},
			want: memberOr(func(r authzRole, _ objKind, _ string) outcome {
				if r.admin {
					return ok200
				}
				return badRequest("Insufficient permission")
			}),
			check: func(t *testing.T, _ authzRole, res *response) {
				_, ok := res.body["invite_link"].(string)
				is.New(t).True(ok) // the link
			},
		},
		{
			route: "DELETE /api/v1/invites/multiuse/{invite_id}", kinds: allKinds, obj: owned(6000),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/invites/multiuse/" + id}
			},
			want: ownedInvite(badRequest("Invalid invitation ID.")),
		},
	}
}
