package httpadapter_test

import (
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/slicex"
	"github.com/matryer/is"
)

// TestHTTPDefaultChannels: POST and DELETE /default_streams change the
// default_streams section of /register.
func TestHTTPDefaultChannels(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	defaults := func() []int64 {
		t.Helper()
		res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
			params: params("fetch_event_types", `["default_streams"]`)})
		wantSuccess(t, res)
		var ids []int64
		for _, id := range res.body["realm_default_streams"].([]any) {
			ids = append(ids, num(t, id))
		}
		return slicex.OrEmpty(ids)
	}
	is.Equal(defaults(), []int64{}) // none yet
	res := e.do(t, request{method: "POST", path: "/default_streams", auth: &admin, enc: urlEncoded, params: params("stream_id", "61")})
	wantSuccess(t, res)
	is.Equal(defaults(), []int64{61}) // added
	res = e.do(t, request{method: "POST", path: "/default_streams", auth: &admin, enc: urlEncoded, params: params("stream_id", "999999")})
	wantError(t, res, 400, "BAD_REQUEST", "Invalid channel ID")
	res = e.do(t, request{method: "POST", path: "/default_streams", auth: &admin, enc: urlEncoded})
	wantError(t, res, 400, "REQUEST_VARIABLE_MISSING", "Missing 'stream_id' argument")
	res = e.do(t, request{method: "DELETE", path: "/default_streams", auth: &admin, enc: urlEncoded, params: params("stream_id", "61")})
	wantSuccess(t, res)
	is.Equal(defaults(), []int64{}) // removed

	// An archived channel stops being a default channel.
	wantSuccess(t, e.do(t, request{method: "POST", path: "/default_streams", auth: &admin, enc: urlEncoded, params: params("stream_id", "61")}))
	is.Equal(defaults(), []int64{61})
	wantSuccess(t, e.do(t, request{method: "DELETE", path: "/streams/61", auth: &admin, enc: urlEncoded}))
	is.Equal(defaults(), []int64{}) // archived, no longer a default
}
