package httpadapter_test

// fileAuthzCases are the matrix cases of uploads and custom emoji. The
// matrix's servers hold no uploads (and no file storage), so every
// authenticated caller gets the same answer for a file that is not there;
// who may read a file that is there is TestHTTPUploads' and TestAccess's.
func fileAuthzCases() []authzCase {
	notFound := outcome{404, "BAD_REQUEST", "File not found."}
	get := func(path string, raw bool) func(authzRole, string) request {
		return func(authzRole, string) request { return request{method: "GET", path: path, raw: raw} }
	}
	return []authzCase{
		{route: "POST /api/v1/user_uploads", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/user_uploads", enc: urlEncoded}
			},
			want: always(badRequest("You must specify a file to upload"))},
		{route: "GET /api/v1/user_uploads/{realm_id}/{path...}", kinds: noKinds, readOnly: true,
			req: get("/user_uploads/1/ab/x.txt", false), want: always(notFound)},
		{route: "GET /user_uploads/{realm_id}/{path...}", kinds: noKinds, readOnly: true,
			req: get("/user_uploads/1/ab/x.txt", true), want: always(notFound)},
		{route: "GET /user_uploads/thumbnail/{realm_id}/{path...}", kinds: noKinds, readOnly: true,
			req: get("/user_uploads/thumbnail/1/ab/x.png/840x560.png", true), want: always(notFound)},
		{route: "GET /user_uploads/temporary/{token}/{filename}", kinds: noKinds, readOnly: true, public: true,
			req: get("/user_uploads/temporary/bm9wZQ.c2ln/x.txt", true), want: always(badRequest("Invalid token"))},
		{route: "GET /api/v1/attachments", kinds: noKinds, readOnly: true,
			req: get("/attachments", false), want: always(ok200)},
		{route: "DELETE /api/v1/attachments/{attachment_id}", kinds: []objKind{objMissing},
			obj:  func(authzRole, objKind) string { return missingID },
			req:  func(_ authzRole, id string) request { return request{method: "DELETE", path: "/attachments/" + id} },
			want: always(badRequest("Invalid attachment"))},
		{route: "GET /api/v1/realm/emoji", kinds: noKinds, readOnly: true,
			req: get("/realm/emoji", false), want: always(ok200)},
		{route: "POST /api/v1/realm/emoji/{emoji_name}", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/realm/emoji/parrot", enc: urlEncoded}
			},
			want: always(badRequest("You must upload exactly one file."))},
		{route: "DELETE /api/v1/realm/emoji/{emoji_name}", kinds: noKinds,
			req:  func(authzRole, string) request { return request{method: "DELETE", path: "/realm/emoji/nope"} },
			want: always(badRequest("Emoji 'nope' does not exist"))},
		{route: "GET /user_avatars/{realm_id}/emoji/images/{file}", kinds: noKinds, readOnly: true, public: true,
			req: get("/user_avatars/1/emoji/images/1.png", true), want: always(notFound)},
	}
}
