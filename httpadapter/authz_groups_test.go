package httpadapter_test

import (
	"strconv"
	"testing"

	"github.com/matryer/is"
)

// The user group rows of the authorization matrix. The fixture's groups are
// 51 (acme's "support": the moderator and the member) and 52 (other's
// "crew"); loading adds each realm's system groups after them: acme's
// role:owners is 53 ... role:nobody 60, other's 61 ... 68. No group has
// stored settings, so only the realm's can_manage_all_groups (role:owners
// by default) manages 51 and 52, and can_create_groups (role:members)
// lets every non-guest create one.

var (
	invalidGroup = badRequest("Invalid user group")
	insufficient = badRequest("Insufficient permission")
)

// groupOr gives the object's outcome: ok for the caller's realm's group
// when allowed, "Insufficient permission" when not, "Invalid user group"
// for any other id.
func groupOr(allowed func(r authzRole) bool) func(authzRole, objKind, string) outcome {
	return func(r authzRole, k objKind, _ string) outcome {
		switch {
		case k != objPeer:
			return invalidGroup
		case !allowed(r):
			return insufficient
		}
		return ok200
	}
}

// isOwner reports whether r owns its realm (the owner of acme, the owner of other).
func isOwner(r authzRole) bool { return r.self == 11 || r.self == 21 }

// realmPeer is a user of r's realm who is in neither fixture group.
func realmPeer(r authzRole) string {
	if r.realm == other {
		return "21"
	}
	return "17"
}

// moderatorsGroup is the role:moderators system group of r's realm.
func moderatorsGroup(r authzRole) string {
	if r.realm == other {
		return "63"
	}
	return "55"
}

func userGroupAuthzCases() []authzCase {
	groupIDs := map[authzRealm][]int64{acme: {51, 53, 54, 55, 56, 57, 58, 59, 60}, other: {52, 61, 62, 63, 64, 65, 66, 67, 68}}
	group := shared("51", "52")
	return []authzCase{
		{
			route: "GET /api/v1/user_groups", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/user_groups"} },
			want: always(ok200),
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				is.Equal(listIDs(t, res, "user_groups", "id"), groupIDs[r.realm]) // the caller's realm's groups, system groups included
			},
		},
		{
			route: "POST /api/v1/user_groups/create", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/user_groups/create", enc: urlEncoded,
					params: params("name", "authz", "description", "made by the matrix", "members", "[]")}
			},
			want: func(r authzRole, _ objKind, _ string) outcome {
				if r.self == 15 {
					return insufficient // guests never create groups
				}
				return ok200 // can_create_groups is role:members
			},
		},
		{
			route: "PATCH /api/v1/user_groups/{user_group_id}", kinds: realmKinds, obj: group,
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/user_groups/" + id, enc: urlEncoded, params: params("description", "changed")}
			},
			want: groupOr(isOwner),
		},
		{
			route: "POST /api/v1/user_groups/{user_group_id}/deactivate", kinds: realmKinds, obj: group,
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/user_groups/" + id + "/deactivate", enc: urlEncoded}
			},
			want: groupOr(isOwner),
		},
		{
			route: "POST /api/v1/user_groups/{user_group_id}/members", kinds: realmKinds, obj: group,
			req: func(r authzRole, id string) request {
				return request{method: "POST", path: "/user_groups/" + id + "/members", enc: urlEncoded,
					params: params("add", "["+realmPeer(r)+"]")}
			},
			want: groupOr(isOwner),
		},
		{
			route: "POST /api/v1/user_groups/{user_group_id}/subgroups", kinds: realmKinds, obj: group,
			req: func(r authzRole, id string) request {
				return request{method: "POST", path: "/user_groups/" + id + "/subgroups", enc: urlEncoded,
					params: params("add", "["+moderatorsGroup(r)+"]")}
			},
			want: groupOr(isOwner),
		},
		{
			route: "GET /api/v1/user_groups/{user_group_id}/members", kinds: realmKinds, obj: group, readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/user_groups/" + id + "/members"}
			},
			want: groupOr(func(authzRole) bool { return true }),
		},
		{
			route: "GET /api/v1/user_groups/{user_group_id}/members/{user_id}", kinds: realmKinds, obj: group, readOnly: true,
			req: func(r authzRole, id string) request {
				return request{method: "GET", path: "/user_groups/" + id + "/members/" + strconv.FormatInt(r.self, 10)}
			},
			want: groupOr(func(authzRole) bool { return true }),
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				want := r.self == 13 || r.self == 14 // the members of support; crew's is not a caller
				is.Equal(res.body["is_user_group_member"], want)
			},
		},
		{
			route: "GET /api/v1/user_groups/{user_group_id}/subgroups", kinds: realmKinds, obj: group, readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/user_groups/" + id + "/subgroups"}
			},
			want: groupOr(func(authzRole) bool { return true }),
		},
	}
}
