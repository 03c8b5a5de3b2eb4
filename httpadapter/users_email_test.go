package httpadapter_test

import (
	"strconv"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// TestLevel467Requests checks over HTTP what feature level 467 adds to the
// served routes, without the OpenAPI excerpt.
func TestLevel467Requests(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("include_subscribers=partial unquoted", func(t *testing.T) {
		for _, v := range []string{"partial", `"partial"`, "true"} {
			res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("include_subscribers", v)})
			wantSuccess(t, res)
		}
	})
	t.Run("GET /users/{email}", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/users/Target@acme.test", auth: &member})
		wantSuccess(t, res)
		is.Equal(num(t, res.body["user"].(map[string]any)["user_id"]), int64(17)) // found by address, any case
		res = e.do(t, request{method: "GET", path: "/users/abc", auth: &member})
		wantError(t, res, 400, "BAD_REQUEST", "No such user") // any non-id segment is an address
	})
	t.Run("an address path has only GET", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "DELETE", path: "/users/target@acme.test", auth: &admin})
		is.Equal(res.status, 405)                                   // users/<email> serves no DELETE
		is.Equal(res.body["allowed_methods"], []any{"GET", "HEAD"}) // only what chatcore serves there
	})
	t.Run("user_ids and max_message_id", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/users", auth: &member, params: params("user_ids", "[14,11,999]")})
		wantSuccess(t, res)
		is.Equal(len(res.body["members"].([]any)), 2) // the two users of the realm
		res = e.do(t, request{method: "GET", path: "/users/me", auth: &member})
		wantSuccess(t, res)
		_, ok := res.body["max_message_id"]
		is.True(ok) // /users/me carries max_message_id
	})
	t.Run("PATCH /scheduled_messages/{id}", func(t *testing.T) {
		id := scheduledID(t, e)
		res := e.do(t, request{method: "PATCH", path: "/scheduled_messages/" + strconv.FormatInt(id, 10), auth: &member, enc: urlEncoded, params: params("content", "edited")})
		wantSuccess(t, res)
		res = e.do(t, request{method: "PATCH", path: "/scheduled_messages/" + strconv.FormatInt(id, 10), auth: &member, enc: urlEncoded})
		wantError(t, res, 400, "BAD_REQUEST", "Nothing to change")
	})
}
