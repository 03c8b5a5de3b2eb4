package httpadapter_test

// avatarAuthzCases are the matrix cases of avatars and the realm icon.
// Every caller changes only their own avatar, so each role gets the same
// answer; the matrix's servers have no file storage, and no avatar or icon
// is stored to serve.
func avatarAuthzCases() []authzCase {
	return []authzCase{
		{route: "POST /api/v1/users/me/avatar", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/users/me/avatar", enc: urlEncoded}
			},
			want: always(badRequest("You must upload exactly one avatar."))},
		{route: "DELETE /api/v1/users/me/avatar", kinds: noKinds,
			req:  func(authzRole, string) request { return request{method: "DELETE", path: "/users/me/avatar"} },
			want: always(ok200)},
		{route: "GET /user_avatars/{realm_id}/{file}", kinds: noKinds, readOnly: true, public: true,
			req: func(authzRole, string) request {
				return request{method: "GET", path: "/user_avatars/1/0123456789abcdef0123456789abcdef01234567.png", raw: true}
			},
			want: always(outcome{404, "BAD_REQUEST", "File not found."})},
		// The realm icon: administrators only, checked before the body is
		// read; the matrix's servers store no files.
		{route: "POST /api/v1/realm/icon", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/realm/icon", enc: urlEncoded}
			},
			want: adminOr(func(authzRole, objKind, string) outcome { return badRequest("You must upload exactly one icon.") })},
		{route: "DELETE /api/v1/realm/icon", kinds: noKinds,
			req:  func(authzRole, string) request { return request{method: "DELETE", path: "/realm/icon"} },
			want: adminOr(func(authzRole, objKind, string) outcome { return ok200 })},
		{route: "GET /user_avatars/{realm_id}/realm/icon.png", kinds: noKinds, readOnly: true, public: true,
			req: func(authzRole, string) request {
				return request{method: "GET", path: "/user_avatars/1/realm/icon.png", raw: true}
			},
			want: always(outcome{404, "BAD_REQUEST", "File not found."})},
	}
}
