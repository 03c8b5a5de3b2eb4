package httpadapter_test

// The authorization matrix's cells of a user's own settings: topic
// policies, muted users, status and alert words.
func personalAuthzCases() []authzCase {
	muted := func(method string) func(authzRole, string) request {
		return func(_ authzRole, id string) request {
			return request{method: method, path: "/users/me/muted_users/" + id, enc: urlEncoded}
		}
	}
	words := func(method string) func(authzRole, string) request {
		return func(authzRole, string) request {
			return request{method: method, path: "/users/me/alert_words", enc: urlEncoded, params: params("alert_words", `["authz"]`)}
		}
	}
	return []authzCase{
		{
			route: "POST /api/v1/user_topics", kinds: realmKinds, obj: shared("61", "71"),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/user_topics", enc: urlEncoded,
					params: params("stream_id", id, "topic", "authz", "visibility_policy", "1")}
			},
			want: peerOr(badRequest("Invalid channel ID")),
		},
		{
			route: "POST /api/v1/users/me/{collection}/{muted_user_id}", kinds: allKinds, obj: owned(0), req: muted("POST"),
			want: func(_ authzRole, k objKind, _ string) outcome {
				switch k {
				case objOwn:
					return badRequest("Cannot mute self")
				case objPeer:
					return ok200
				}
				return badRequest("No such user")
			},
		},
		{
			route: "DELETE /api/v1/users/me/{collection}/{muted_user_id}", kinds: allKinds, obj: owned(0), req: muted("DELETE"),
			want: func(_ authzRole, k objKind, _ string) outcome {
				if k == objOwn || k == objPeer {
					return badRequest("User is not muted") // nobody is muted in the fixture
				}
				return badRequest("No such user")
			},
		},
		{
			route: "POST /api/v1/users/me/status", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/users/me/status", enc: urlEncoded, params: params("status_text", "authz")}
			},
			want: always(ok200),
		},
		{
			route: "GET /api/v1/users/{user_id}/status", kinds: allKinds, obj: owned(0), readOnly: true,
			req: func(_ authzRole, id string) request { return request{method: "GET", path: "/users/" + id + "/status"} },
			want: func(_ authzRole, k objKind, _ string) outcome {
				if k == objOwn || k == objPeer {
					return ok200
				}
				return badRequest("No such user")
			},
		},
		{
			route: "GET /api/v1/users/me/alert_words", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/users/me/alert_words"} },
			want: always(ok200),
		},
		{route: "POST /api/v1/users/me/alert_words", kinds: noKinds, req: words("POST"), want: always(ok200)},
		{route: "DELETE /api/v1/users/me/alert_words", kinds: noKinds, req: words("DELETE"), want: always(ok200)},
	}
}
