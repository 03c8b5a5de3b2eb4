package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// The authorization matrix: every route the adapter serves × every kind of
// caller × the ownership of the object the request names, each cell with the
// status, code and msg Zulip answers, on the memory and the SQLite store.
// Every cell is also checked against the OpenAPI excerpt where it lists the
// route, an object of the other realm must answer byte for byte like a
// missing id, and no refused request may change anything. It runs over
// testdata/authz.json:
// realm acme (users 11–17, bots 31–32) and realm other (users 21–22), where
// each user owns message 10<uid>, scheduled message 20<uid>, reminder
// 30<uid> and draft 40<uid>.

// authzRealm says which realm a caller belongs to.
type authzRealm int

const (
	acme authzRealm = iota
	other
)

// authzRole is one kind of caller.
type authzRole struct {
	name  string
	auth  *cred // nil: no Authorization header
	self  int64 // the user id the objects are resolved for
	realm authzRealm
	admin bool // an administrator or owner of its realm
	bot   bool
	// fail is the 401 message for callers that never authenticate ("" for
	// those who do).
	fail string
	// webhook marks the incoming webhook bot: it authenticates on the routes
	// that allow incoming webhooks (authzCase.webhooks) and fails elsewhere.
	webhook bool
}

var authzRoles = []authzRole{
	{name: "owner", auth: &cred{"owner@acme.test", "ownerKEY00000000000000000000000a"}, self: 11, admin: true},
	{name: "administrator", auth: &cred{"admin@acme.test", "adminKEY00000000000000000000000b"}, self: 12, admin: true},
	{name: "moderator", auth: &cred{"mod@acme.test", "modKEY0000000000000000000000000c"}, self: 13},
	{name: "member", auth: &cred{"member@acme.test", "memberKEY0000000000000000000000d"}, self: 14},
	{name: "guest", auth: &cred{"guest@acme.test", "guestKEY00000000000000000000000e"}, self: 15},
	{name: "bot", auth: &cred{"bot@acme.test", "botKEY0000000000000000000000000h"}, self: 31, bot: true},
	{name: "deactivated", auth: &cred{"gone@acme.test", "goneKEY000000000000000000000000f"}, self: 16,
		fail: "Account is deactivated"},
	// The owner of the other realm: even an owner is a stranger to acme.
	{name: "other realm", auth: &cred{"boss@other.test", "otherKEY00000000000000000000000j"}, self: 21, realm: other, admin: true},
	{name: "webhook bot", auth: &cred{"hook@acme.test", "hookKEY000000000000000000000000i"}, self: 32, bot: true,
		webhook: true, fail: "This API is not available to incoming webhook bots."},
	{name: "no credentials", self: 14, fail: "Missing authorization header for basic auth"},
	{name: "bad key", auth: &cred{"member@acme.test", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}, self: 14,
		fail: "Invalid API key"},
}

// objKind is the relation between the caller and the object a request names.
type objKind int

const (
	objNone       objKind = iota // the request names no object
	objOwn                       // the caller's own object
	objPeer                      // someone else's object (or a shared one) in the caller's realm
	objOtherRealm                // an object of the other realm
	objMissing                   // an id nothing has
)

func (k objKind) String() string {
	return [...]string{"-", "own", "peer's", "other realm's", "missing"}[k]
}

// missingID is an id no object of any kind has.
const missingID = "999999"

// owned resolves the object of kind k among objects numbered base+<owner id>
// (messages 1000, scheduled messages 2000, reminders 3000, users 0). The peer
// is user 17 in acme and 22 in other.
func owned(base int64) func(r authzRole, k objKind) string {
	return func(r authzRole, k objKind) string {
		var id int64
		switch k {
		case objOwn:
			id = r.self
		case objPeer:
			id = 17
			if r.realm == other {
				id = 22
			}
		case objOtherRealm:
			id = 22
			if r.realm == other {
				id = 14
			}
		case objMissing:
			return missingID
		default:
			return ""
		}
		return strconv.FormatInt(base+id, 10)
	}
}

// shared resolves a realm-wide object (a channel or linkifier): objPeer is the
// caller's realm's, objOtherRealm the other realm's.
func shared(mine, theirs string) func(r authzRole, k objKind) string {
	return func(r authzRole, k objKind) string {
		switch k {
		case objPeer:
			if r.realm == other {
				return theirs
			}
			return mine
		case objOtherRealm:
			if r.realm == other {
				return mine
			}
			return theirs
		case objMissing:
			return missingID
		}
		return ""
	}
}

// channelName resolves a channel by name: "general" exists in both realms,
// "outside" only in other, "staff" only in acme.
func channelName(r authzRole, k objKind) string {
	switch k {
	case objPeer:
		return "general"
	case objOtherRealm:
		if r.realm == other {
			return "staff"
		}
		return "outside"
	}
	return "nonexistent"
}

// fixed resolves objPeer to one id for every caller.
func fixed(id string) func(authzRole, objKind) string {
	return func(authzRole, objKind) string { return id }
}

// outcome is what a cell expects: status 200 with a success envelope, or an
// error envelope with code and msg.
type outcome struct {
	status    int
	code, msg string
}

var ok200 = outcome{status: 200}

func badRequest(msg string) outcome { return outcome{400, "BAD_REQUEST", msg} }

// badNarrow is Zulip's BadNarrowOperatorError: HTTP 400, code BAD_NARROW.
func badNarrow(desc string) outcome {
	return outcome{400, "BAD_NARROW", "Invalid narrow operator: " + desc}
}

var (
	mustBeAdmin = outcome{400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator"}
	notForBots  = badRequest("This endpoint does not accept bot requests.")
)

// authzCase is one route (or one variant of it) with the objects it is tried on.
type authzCase struct {
	route string // the adapter's ServeMux pattern
	name  string // the variant, when a route has several
	kinds []objKind
	// obj resolves the object id for the caller (nil: objNone only).
	obj func(r authzRole, k objKind) string
	// req builds the request naming id.
	req func(r authzRole, id string) request
	// want is the expected outcome for an authenticated caller; callers that
	// fail authentication get their 401 on every non-public route.
	want func(r authzRole, k objKind, id string) outcome
	// check, if set, inspects a successful response further.
	check func(t *testing.T, r authzRole, res *response)
	// public routes do not authenticate; readOnly cases never write, so even
	// their successes share one server (a write's success gets a fresh one).
	public, readOnly bool
	// webhooks routes accept incoming webhook bots (Zulip's
	// allow_incoming_webhooks: POST /messages only).
	webhooks bool
}

// title names the case in subtest names.
func (c authzCase) title() string {
	if c.name == "" {
		return c.route
	}
	return c.route + " (" + c.name + ")"
}

// adminOr gives non-administrators (bots included) the administrator error,
// and administrators f's outcome.
func adminOr(f func(r authzRole, k objKind, id string) outcome) func(authzRole, objKind, string) outcome {
	return func(r authzRole, k objKind, id string) outcome {
		if !r.admin {
			return mustBeAdmin
		}
		return f(r, k, id)
	}
}

// foundOr succeeds for own and peer objects and gives miss otherwise.
func foundOr(miss outcome) func(authzRole, objKind, string) outcome {
	return func(_ authzRole, k objKind, _ string) outcome {
		if k == objOwn || k == objPeer {
			return ok200
		}
		return miss
	}
}

// onlyOwn succeeds for own objects and gives miss otherwise.
func onlyOwn(miss outcome) func(authzRole, objKind, string) outcome {
	return func(_ authzRole, k objKind, _ string) outcome {
		if k == objOwn {
			return ok200
		}
		return miss
	}
}

func always(o outcome) func(authzRole, objKind, string) outcome {
	return func(authzRole, objKind, string) outcome { return o }
}

var (
	allKinds     = []objKind{objOwn, objPeer, objOtherRealm, objMissing}
	realmKinds   = []objKind{objPeer, objOtherRealm, objMissing}
	noKinds      = []objKind{objNone}
	future       = "1893456000" // 2030-01-01, well ahead of the clock
	acmeUsers    = []int64{11, 12, 13, 14, 15, 16, 17, 31, 32}
	otherUsers   = []int64{21, 22}
	settingsBody = func(k objKind, id string) request {
		p := params("color_scheme", "2")
		if k != objNone {
			p.Set("target_users", `{"user_ids":[`+id+`],"skip_if_already_edited":false}`)
		}
		return request{params: p, enc: urlEncoded}
	}
)

// listIDs returns the id field of each object in the list under key.
func listIDs(t *testing.T, res *response, key, idField string) []int64 {
	t.Helper()
	list, ok := res.body[key].([]any)
	if !ok {
		t.Fatalf("%s is not a list: %s", key, res.raw)
	}
	ids := []int64{}
	for _, v := range list {
		ids = append(ids, num(t, v.(map[string]any)[idField]))
	}
	return ids
}

func authzCases() []authzCase {
	settings := func(path string) authzCase {
		return authzCase{
			route: "PATCH /api/v1" + path,
			name:  "own settings or target_users",
			kinds: []objKind{objNone, objOwn, objPeer, objOtherRealm, objMissing},
			obj:   owned(0),
			req: func(r authzRole, id string) request {
				k := objNone
				if id != "" {
					k = objOwn // any bulk edit; the id is what matters
				}
				req := settingsBody(k, id)
				req.method, req.path = "PATCH", path
				return req
			},
			want: func(r authzRole, k objKind, id string) outcome {
				switch {
				case r.bot:
					return notForBots // @human_users_only, before parameters
				case k == objNone:
					return ok200 // any human edits their own settings
				case !r.admin:
					return mustBeAdmin // bulk edits need an administrator
				case k == objOwn || k == objPeer:
					return ok200
				default:
					return badRequest("Invalid user ID: " + id)
				}
			},
		}
	}
	sendTo := func(name string, path string, extra ...string) authzCase {
		return authzCase{
			route: "POST /api/v1" + path, name: name, kinds: realmKinds, obj: shared("61", "71"), webhooks: path == "/messages",
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: path, enc: multiPart,
					params: params(append([]string{"type", "stream", "to", id, "topic", "authz", "content", "hello"}, extra...)...)}
			},
			want: func(_ authzRole, k objKind, id string) outcome {
				if k == objPeer {
					return ok200 // every member of a realm may post to its public channel
				}
				return outcome{400, "STREAM_DOES_NOT_EXIST", "Channel with ID '" + id + "' does not exist"}
			},
		}
	}
	linkifierIDs := map[authzRealm][]int64{acme: {4001, 4002}, other: {4101}}
	return append([]authzCase{
		{
			route: "GET /api/v1/server_settings", kinds: noKinds, public: true, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/server_settings"} },
			want: always(ok200),
		},
		{
			route: "POST /api/v1/fetch_api_key", kinds: noKinds, public: true, readOnly: true,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/fetch_api_key", enc: multiPart, params: params("username", "owner@acme.test", "password", "wrong")}
			},
			want: always(outcome{401, "AUTHENTICATION_FAILED", "Your username or password is incorrect"}),
		},
		{
			route: "GET /accounts/confirm_new_email/{key}", kinds: []objKind{objMissing}, public: true, readOnly: true,
			obj: fixed("nosuchkey"),
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/accounts/confirm_new_email/" + id}
			},
			want: always(outcome{404, "BAD_REQUEST", "The confirmation link has expired or been deactivated."}),
		},
		{
			route: "POST /api/v1/register", kinds: noKinds, // registers a queue: a write
			req:  func(authzRole, string) request { return request{method: "POST", path: "/register", enc: multiPart} },
			want: always(ok200),
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				is.Equal(num(t, res.body["user_id"]), r.self)                                           // the caller's own state
				is.Equal(listIDs(t, res, "realm_linkifiers", "id"), linkifierIDs[r.realm])              // the caller's realm's linkifiers only
				is.Equal(listIDs(t, res, "reminders", "reminder_id"), []int64{3000 + r.self})           // the caller's reminders only
				is.Equal(listIDs(t, res, "scheduled_messages", "scheduled_message_id"), scheduledOf(r)) // the caller's scheduled messages only
			},
		},
		{
			// Another user's queue is answered as a missing one
			// (TestHTTPEvents); here: a queue nobody has.
			route: "GET /api/v1/events", kinds: noKinds, readOnly: true,
			req: func(authzRole, string) request {
				return request{method: "GET", path: "/events", enc: urlEncoded, params: params("queue_id", "nope", "last_event_id", "-1")}
			},
			want: always(outcome{400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: nope"}),
		},
		{
			route: "DELETE /api/v1/events", kinds: noKinds, readOnly: true,
			req: func(authzRole, string) request {
				return request{method: "DELETE", path: "/events", enc: urlEncoded, params: params("queue_id", "nope")}
			},
			want: always(outcome{400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: nope"}),
		},
		{
			route: "POST /api/v1/typing", kinds: noKinds, readOnly: true,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/typing", enc: urlEncoded, params: params("op", "start", "to", "[]")}
			},
			want: always(badRequest("Empty 'to' list")),
		},
		settings("/settings"),
		{
			route: "PATCH /api/v1/settings", name: "target_users groups", kinds: realmKinds, obj: shared("51", "52"),
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/settings", enc: urlEncoded, params: params("color_scheme", "3",
					"target_users", `{"group_ids":[`+id+`],"skip_if_already_edited":true}`)}
			},
			want: func(r authzRole, k objKind, id string) outcome {
				switch {
				case r.bot:
					return notForBots
				case !r.admin:
					return mustBeAdmin
				case k == objPeer:
					return ok200
				}
				return badRequest("Invalid user group ID: " + id)
			},
		},
		settings("/settings/display"),
		settings("/settings/notifications"),
		{
			route: "POST /api/v1/streams/{stream_id}/delete_topic", kinds: realmKinds, obj: shared("61", "71"),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/streams/" + id + "/delete_topic", enc: multiPart, params: params("topic_name", "doomed")}
			},
			want: adminOr(func(_ authzRole, k objKind, _ string) outcome {
				if k == objPeer {
					return ok200
				}
				return badRequest("Invalid channel ID")
			}),
			check: func(t *testing.T, _ authzRole, res *response) {
				is := is.New(t)
				is.Equal(res.body["complete"], true) // the small topic goes in one batch
			},
		},
		{
			route: "GET /api/v1/streams/{stream_id}", kinds: realmKinds, obj: shared("61", "71"), readOnly: true,
			req:  func(_ authzRole, id string) request { return request{method: "GET", path: "/streams/" + id} },
			want: peerOr(badRequest("Invalid channel ID")),
		},
		{
			route: "GET /api/v1/users/me/{stream_id}/topics", kinds: realmKinds, obj: shared("61", "71"), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/users/me/" + id + "/topics"}
			},
			want: peerOr(badRequest("Invalid channel ID")),
		},
		{
			route: "GET /api/v1/streams", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/streams"} },
			want: always(ok200),
		},
		{
			route: "GET /api/v1/users/me/subscriptions", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/users/me/subscriptions"} },
			want: always(ok200),
		},
		{
			route: "POST /api/v1/users/me/subscriptions", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/users/me/subscriptions", enc: urlEncoded, params: params("subscriptions", `[{"name":"general"}]`)}
			},
			want: func(r authzRole, _ objKind, _ string) outcome {
				if r.self == 15 {
					return badRequest("Not allowed for guest users")
				}
				return ok200
			},
		},
		{
			route: "DELETE /api/v1/users/me/subscriptions", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "DELETE", path: "/users/me/subscriptions", enc: urlEncoded, params: params("subscriptions", `["general"]`)}
			},
			want: always(ok200),
		},
		{
			route: "POST /api/v1/users/me/subscriptions/properties", kinds: realmKinds, obj: shared("61", "71"),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/users/me/subscriptions/properties", enc: urlEncoded,
					params: params("subscription_data", `[{"stream_id":`+id+`,"property":"pin_to_top","value":true}]`)}
			},
			want: peerOr(badRequest("Invalid channel ID")),
		},
		sendTo("to a channel", "/messages"),
		{
			route: "POST /api/v1/messages", name: "to a channel by name", kinds: realmKinds, obj: channelName, webhooks: true,
			req: func(_ authzRole, name string) request {
				return request{method: "POST", path: "/messages", enc: urlEncoded,
					params: params("type", "stream", "to", name, "topic", "authz", "content", "hello")}
			},
			want: func(_ authzRole, k objKind, name string) outcome {
				if k == objPeer {
					return ok200
				}
				return outcome{400, "STREAM_DOES_NOT_EXIST", "Channel '" + name + "' does not exist"}
			},
		},
		{
			route: "POST /api/v1/messages", name: "direct message", kinds: allKinds, obj: owned(0), webhooks: true,
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/messages", enc: urlEncoded,
					params: params("type", "direct", "to", "["+id+"]", "content", "psst")}
			},
			want: func(_ authzRole, k objKind, id string) outcome {
				if k == objOwn || k == objPeer {
					return ok200 // a direct message to oneself or a realm mate
				}
				return badRequest("Invalid user ID " + id)
			},
		},
		{
			route: "POST /api/v1/messages/flags", kinds: allKinds, obj: owned(1000),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/messages/flags", enc: urlEncoded,
					params: params("messages", "["+id+"]", "op", "add", "flag", "starred")}
			},
			want: foundOr(badRequest("Invalid message(s)")),
		},
		{
			route: "POST /api/v1/messages/{message_id}/reactions", kinds: allKinds, obj: owned(1000),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/messages/" + id + "/reactions", enc: urlEncoded,
					params: params("emoji_name", "octopus")}
			},
			want: foundOr(badRequest("Invalid message(s)")),
		},
		{
			route: "DELETE /api/v1/messages/{message_id}/reactions", kinds: allKinds, obj: owned(1000),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/messages/" + id + "/reactions", enc: urlEncoded,
					params: params("emoji_name", "octopus")}
			},
			want: func(_ authzRole, k objKind, _ string) outcome {
				if k == objOwn || k == objPeer {
					return outcome{400, "REACTION_DOES_NOT_EXIST", "Reaction doesn't exist."} // nobody reacted yet
				}
				return badRequest("Invalid message(s)")
			},
		},
		{
			route: "GET /api/v1/messages/{message_id}/read_receipts", kinds: allKinds, obj: owned(1000), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/messages/" + id + "/read_receipts"}
			},
			want: foundOr(badRequest("Invalid message(s)")),
		},
		{
			route: "POST /api/v1/submessage", kinds: allKinds, obj: owned(1000),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/submessage", enc: urlEncoded,
					params: params("message_id", id, "msg_type", "widget", "content", `{"type":"vote"}`)}
			},
			want: func(_ authzRole, k objKind, _ string) outcome {
				switch k {
				case objOwn:
					return ok200 // the sender starts the submessages
				case objPeer:
					return badRequest("You cannot attach a submessage to this message.")
				}
				return badRequest("Invalid message(s)")
			},
		},
		{
			route: "GET /api/v1/drafts", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/drafts"} },
			want: always(ok200),
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				is.Equal(listIDs(t, res, "drafts", "id"), []int64{4000 + r.self}) // the caller's only
			},
		},
		{
			route: "POST /api/v1/drafts", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/drafts", enc: urlEncoded,
					params: params("drafts", `[{"type":"","to":[],"topic":"","content":"new"}]`)}
			},
			want: always(ok200),
		},
		{
			route: "PATCH /api/v1/drafts/{draft_id}", kinds: allKinds, obj: owned(4000),
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/drafts/" + id, enc: urlEncoded,
					params: params("draft", `{"type":"","to":[],"topic":"","content":"edited"}`)}
			},
			want: onlyOwn(outcome{404, "BAD_REQUEST", "Draft does not exist"}),
		},
		{
			route: "DELETE /api/v1/drafts/{draft_id}", kinds: allKinds, obj: owned(4000),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/drafts/" + id}
			},
			want: onlyOwn(outcome{404, "BAD_REQUEST", "Draft does not exist"}),
		},
		{
			route: "POST /api/v1/messages/flags/narrow", kinds: realmKinds, obj: shared("61", "71"),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/messages/flags/narrow", enc: urlEncoded,
					params: params("anchor", "newest", "num_before", "10", "num_after", "0", "op", "add", "flag", "read",
						"narrow", `[{"operator":"channel","operand":`+id+`}]`)}
			},
			want: func(_ authzRole, k objKind, _ string) outcome {
				if k == objPeer {
					return ok200
				}
				return badNarrow("unknown channel")
			},
		},
		{
			route: "GET /api/v1/messages/matches_narrow", name: "channel narrow", kinds: realmKinds, obj: shared("61", "71"), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/messages/matches_narrow", params: params("msg_ids", "[1021,1022,1062]",
					"narrow", `[{"operator":"channel","operand":`+id+`}]`)}
			},
			want: func(_ authzRole, k objKind, _ string) outcome {
				if k == objPeer {
					return ok200
				}
				return badNarrow("unknown channel")
			},
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				matches, _ := res.body["messages"].(map[string]any)
				for id := range matches {
					is.True((id == "1021" || id == "1022") == (r.realm == other)) // only the caller's realm's messages
					is.True(id != "1062" || r.admin)                              // the private channel only for its subscribers
				}
			},
		},
		{
			route: "GET /api/v1/messages", name: "channel narrow", kinds: realmKinds, obj: shared("61", "71"), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/messages", params: params("anchor", "newest", "num_before", "100", "num_after", "0",
					"narrow", `[{"operator":"channel","operand":`+id+`}]`)}
			},
			want: func(_ authzRole, k objKind, _ string) outcome {
				if k == objPeer {
					return ok200
				}
				return badNarrow("unknown channel")
			},
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				for _, id := range listIDs(t, res, "messages", "id") {
					is.True((id == 1021 || id == 1022) == (r.realm == other)) // only the caller's realm's messages
					is.True(id != 1062 || r.admin)                            // the private channel only for its subscribers
				}
			},
		},
		{
			route: "GET /api/v1/messages", name: "channel narrow by name", kinds: realmKinds, obj: channelName, readOnly: true,
			req: func(_ authzRole, name string) request {
				return request{method: "GET", path: "/messages", params: params("anchor", "newest", "num_before", "100", "num_after", "0",
					"narrow", `[{"operator":"channel","operand":"`+name+`"}]`)}
			},
			want: func(_ authzRole, k objKind, _ string) outcome {
				if k == objPeer {
					return ok200
				}
				return badNarrow("unknown channel")
			},
		},
		{
			route: "GET /api/v1/messages", name: "sender narrow", kinds: allKinds, obj: owned(0), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/messages", params: params("anchor", "newest", "num_before", "100", "num_after", "0",
					"narrow", `[{"operator":"sender","operand":`+id+`}]`)}
			},
			want: foundOr(badNarrow("unknown user")),
		},
		{
			route: "GET /api/v1/messages", name: "direct message narrow", kinds: allKinds, obj: owned(0), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/messages", params: params("anchor", "newest", "num_before", "100", "num_after", "0",
					"narrow", `[{"operator":"dm","operand":[`+id+`]}]`)}
			},
			want: func(_ authzRole, k objKind, id string) outcome {
				if k == objOwn || k == objPeer {
					return ok200
				}
				return badNarrow("unknown user ID " + id)
			},
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				for _, id := range listIDs(t, res, "messages", "id") {
					is.True(id != 1090 || r.self == 12) // others' direct messages never show
				}
			},
		},
		{
			route: "GET /api/v1/messages/{message_id}", kinds: allKinds, obj: owned(1000), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/messages/" + id}
			},
			want: foundOr(badRequest("Invalid message(s)")),
		},
		{
			route: "GET /api/v1/messages/{message_id}", name: "private channel", kinds: []objKind{objPeer}, obj: fixed("1062"), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/messages/" + id}
			},
			want: func(r authzRole, _ objKind, _ string) outcome {
				if r.admin && r.realm == acme {
					return ok200 // the owner and the administrator are subscribed
				}
				return badRequest("Invalid message(s)")
			},
		},
		{
			route: "GET /api/v1/messages/{message_id}", name: "others' direct message", kinds: []objKind{objPeer}, obj: fixed("1090"), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/messages/" + id}
			},
			want: func(r authzRole, _ objKind, _ string) outcome {
				if r.self == 12 {
					return ok200 // the recipient
				}
				return badRequest("Invalid message(s)") // not even the owner reads others' DMs
			},
		},
		{
			route: "GET /api/v1/messages/{message_id}/history", kinds: allKinds, obj: owned(1000), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/messages/" + id + "/history"}
			},
			want: foundOr(badRequest("Invalid message(s)")),
		},
		{
			// Every fixture message is older than the content edit limit, so
			// no edit succeeds: the refusals show the order of the checks.
			route: "PATCH /api/v1/messages/{message_id}", kinds: allKinds, obj: owned(1000), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/messages/" + id, params: params("content", "edited")}
			},
			want: func(_ authzRole, k objKind, _ string) outcome {
				switch k {
				case objOwn:
					return badRequest("The time limit for editing this message has passed")
				case objPeer:
					return badRequest("You don't have permission to edit this message")
				}
				return badRequest("Invalid message(s)")
			},
		},
		{
			route: "DELETE /api/v1/messages/{message_id}", kinds: allKinds, obj: owned(1000),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/messages/" + id}
			},
			want: func(r authzRole, k objKind, _ string) outcome {
				switch {
				case k != objOwn && k != objPeer:
					return badRequest("Invalid message(s)")
				case r.admin:
					return ok200 // administrators delete any message they can see
				case k == objOwn:
					return badRequest("The time limit for deleting this message has passed")
				}
				return badRequest("You don't have permission to delete this message")
			},
		},
		{
			route: "GET /api/v1/users/me", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/users/me"} },
			want: always(ok200),
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				is.Equal(num(t, res.body["user_id"]), r.self) // the caller
			},
		},
		{
			route: "GET /api/v1/users", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/users"} },
			want: always(ok200),
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				want := acmeUsers
				if r.realm == other {
					want = otherUsers
				}
				is.Equal(listIDs(t, res, "members", "user_id"), want) // exactly the caller's realm
			},
		},
		{
			route: "GET /api/v1/users/{user_id}", kinds: allKinds, obj: owned(0), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/users/" + id}
			},
			want: foundOr(badRequest("No such user")),
		},
		{
			route: "GET /api/v1/users/{email}", kinds: allKinds, obj: owned(0), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/users/user" + id + "@chatcore.invalid"}
			},
			want: foundOr(badRequest("No such user")),
		},
		{
			route: "POST /api/v1/users/me/presence", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/users/me/presence", enc: urlEncoded, params: params("status", "active")}
			},
			want: func(r authzRole, _ objKind, _ string) outcome {
				if r.bot {
					return notForBots // @human_users_only
				}
				return ok200
			},
		},
		{
			route: "GET /api/v1/realm/presence", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/realm/presence"} },
			want: func(authzRole, objKind, string) outcome { return ok200 },
		},
		{
			route: "GET /api/v1/users/{user_id_or_email}/presence", kinds: allKinds, obj: owned(0), readOnly: true,
			req: func(_ authzRole, id string) request {
				return request{method: "GET", path: "/users/" + id + "/presence"}
			},
			want: func(r authzRole, k objKind, id string) outcome {
				switch {
				case k == objOtherRealm || k == objMissing:
					return badRequest("No such user")
				case k == objOwn && r.bot:
					return badRequest("Presence is not supported for bot users.")
				}
				return badRequest("No presence data for " + id) // nobody reported in
			},
		},
		{
			route: "DELETE /api/v1/users/{user_id}", kinds: allKinds, obj: owned(0),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/users/" + id, enc: urlEncoded}
			},
			want: func(r authzRole, k objKind, _ string) outcome {
				switch {
				case k == objOtherRealm || k == objMissing:
					return badRequest("No such user") // looked up first
				case k == objOwn && r.bot:
					return badRequest("No such user") // bots are not deactivated here
				case !r.admin:
					return badRequest("Insufficient permission")
				case k == objOwn && r.self != 12:
					return badRequest("Cannot deactivate the only organization owner")
				default:
					return ok200 // an administrator may deactivate a member, or themselves
				}
			},
		},
		{
			route: "GET /api/v1/scheduled_messages", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/scheduled_messages"} },
			want: always(ok200),
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				is.Equal(listIDs(t, res, "scheduled_messages", "scheduled_message_id"), scheduledOf(r)) // the caller's only
			},
		},
		sendTo("to a channel", "/scheduled_messages", "scheduled_delivery_timestamp", future),
		{
			route: "POST /api/v1/scheduled_messages", name: "direct message", kinds: allKinds, obj: owned(0),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/scheduled_messages", enc: urlEncoded,
					params: params("type", "direct", "to", "["+id+"]", "content", "later", "scheduled_delivery_timestamp", future)}
			},
			want: func(_ authzRole, k objKind, id string) outcome {
				if k == objOwn || k == objPeer {
					return ok200
				}
				return badRequest("Invalid user ID " + id)
			},
		},
		{
			route: "DELETE /api/v1/scheduled_messages/{scheduled_message_id}", kinds: allKinds, obj: owned(2000),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/scheduled_messages/" + id}
			},
			want: onlyOwn(outcome{404, "BAD_REQUEST", "Scheduled message does not exist"}),
		},
		{
			route: "PATCH /api/v1/scheduled_messages/{scheduled_message_id}", kinds: allKinds, obj: owned(2000),
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/scheduled_messages/" + id, enc: urlEncoded, params: params("content", "edited")}
			},
			want: onlyOwn(outcome{404, "BAD_REQUEST", "Scheduled message does not exist"}),
		},
		{
			route: "DELETE /api/v1/scheduled_messages/{scheduled_message_id}", name: "a reminder id", kinds: []objKind{objOwn},
			obj: owned(3000),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/scheduled_messages/" + id}
			},
			want: always(outcome{404, "BAD_REQUEST", "Scheduled message does not exist"}),
		},
		{
			route: "GET /api/v1/reminders", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/reminders"} },
			want: always(ok200),
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				is.Equal(listIDs(t, res, "reminders", "reminder_id"), []int64{3000 + r.self}) // the caller's only
			},
		},
		{
			route: "POST /api/v1/reminders", kinds: allKinds, obj: owned(1000),
			req: func(_ authzRole, id string) request {
				return request{method: "POST", path: "/reminders", enc: multiPart,
					params: params("message_id", id, "scheduled_delivery_timestamp", future)}
			},
			want: foundOr(badRequest("Invalid message(s)")),
		},
		{
			route: "DELETE /api/v1/reminders/{reminder_id}", kinds: allKinds, obj: owned(3000),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/reminders/" + id}
			},
			want: onlyOwn(outcome{404, "BAD_REQUEST", "Reminder does not exist"}),
		},
		{
			route: "DELETE /api/v1/reminders/{reminder_id}", name: "a scheduled message id", kinds: []objKind{objOwn},
			obj: owned(2000),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/reminders/" + id}
			},
			want: always(outcome{404, "BAD_REQUEST", "Reminder does not exist"}),
		},
		{
			route: "GET /api/v1/realm/linkifiers", kinds: noKinds, readOnly: true,
			req:  func(authzRole, string) request { return request{method: "GET", path: "/realm/linkifiers"} },
			want: always(ok200),
			check: func(t *testing.T, r authzRole, res *response) {
				is := is.New(t)
				is.Equal(listIDs(t, res, "linkifiers", "id"), linkifierIDs[r.realm]) // the caller's realm's only
			},
		},
		{
			route: "PATCH /api/v1/realm/linkifiers", kinds: realmKinds,
			obj: func(r authzRole, k objKind) string {
				// A full reordering of the caller's realm, or one whose last id
				// is replaced by another realm's or a missing one.
				ids := []string{"4002", "4001"}
				foreign := "4101"
				if r.realm == other {
					ids, foreign = []string{"4101"}, "4001"
				}
				switch k {
				case objOtherRealm:
					ids[len(ids)-1] = foreign
				case objMissing:
					ids[len(ids)-1] = missingID
				}
				return "[" + strings.Join(ids, ",") + "]"
			},
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/realm/linkifiers", params: params("ordered_linkifier_ids", id)}
			},
			want: adminOr(func(_ authzRole, k objKind, _ string) outcome {
				if k == objPeer {
					return ok200
				}
				return badRequest("The ordered list must enumerate all existing linkifiers exactly once")
			}),
		},
		{
			route: "POST /api/v1/realm/filters", kinds: noKinds,
			req: func(authzRole, string) request {
				return request{method: "POST", path: "/realm/filters", enc: multiPart,
					params: params("pattern", "T-(?P<n>[0-9]+)", "url_template", "https://t.example/{n}")}
			},
			want: adminOr(always(ok200)),
		},
		{
			route: "PATCH /api/v1/realm/filters/{filter_id}", kinds: realmKinds, obj: shared("4001", "4101"),
			req: func(_ authzRole, id string) request {
				return request{method: "PATCH", path: "/realm/filters/" + id,
					params: params("pattern", "T-(?P<n>[0-9]+)", "url_template", "https://t.example/{n}")}
			},
			want: adminOr(func(_ authzRole, k objKind, _ string) outcome {
				if k == objPeer {
					return ok200
				}
				return badRequest("Linkifier not found.")
			}),
		},
		{
			route: "DELETE /api/v1/realm/filters/{filter_id}", kinds: realmKinds, obj: shared("4001", "4101"),
			req: func(_ authzRole, id string) request {
				return request{method: "DELETE", path: "/realm/filters/" + id, enc: urlEncoded}
			},
			want: adminOr(func(_ authzRole, k objKind, _ string) outcome {
				if k == objPeer {
					return ok200
				}
				return badRequest("Linkifier not found.")
			}),
		},
	}, append(append(append(userGroupAuthzCases(), channelAdminAuthzCases()...), fileAuthzCases()...), avatarAuthzCases()...)...)
}

// scheduledOf is the scheduled messages the fixture gives r.
func scheduledOf(r authzRole) []int64 { return []int64{2000 + r.self} }

// authzBackend makes the stores the matrix runs on.
type authzBackend struct {
	name string
	// template is a SQLite database already holding the fixture, copied for
	// each fresh server ("" for the memory store).
	template string
	// pg is the PostgreSQL schema holding the fixture, copied for each fresh
	// server (nil for the other stores).
	pg *pgtest.Template
}

// newAuthzBackend prepares the named backend ("memory", "sqlite" or
// "postgres"; the last skips without CHATCORE_TEST_POSTGRES).
func newAuthzBackend(t *testing.T, name string) authzBackend {
	b := authzBackend{name: name}
	if name == "postgres" {
		b.pg = pgtest.NewTemplate(t, func(st *postgres.Store) {
			loadAuthzFixture(t, chatcore.New(st, chatcore.WithPasswordHasher(chattest.PlainHasher{})))
		})
	}
	if name == "sqlite" {
		is := is.New(t)
		b.template = filepath.Join(t.TempDir(), "template.db")
		db, err := sqlite.Open(t.Context(), b.template)
		is.NoErr(err)                                                                              // the template database opens
		loadAuthzFixture(t, chatcore.New(db, chatcore.WithPasswordHasher(chattest.PlainHasher{}))) // as newWorld's Service hashes
		is.NoErr(db.Close())                                                                       // closing checkpoints the WAL into the file
	}
	return b
}

// loadAuthzFixture loads testdata/authz.json into svc's store.
func loadAuthzFixture(tb testing.TB, svc *chatcore.Service) {
	tb.Helper()
	is := is.New(tb)
	f, err := os.Open("testdata/authz.json")
	is.NoErr(err) // the fixture exists
	defer f.Close()
	is.NoErr(fixture.Load(tb.Context(), svc, f)) // the fixture loads
	seedAuthzInvites(tb, svc.Store())
}

// newAuthzEnv starts an adapter over a fresh store of the backend holding
// testdata/authz.json.
func newAuthzEnv(tb testing.TB, b authzBackend) *env {
	tb.Helper()
	is := is.New(tb)
	store, fixture := chattest.Memory(tb), "testdata/authz.json"
	if b.pg != nil {
		store, fixture = b.pg.Open(tb), "" // a schema of its own holding a copy of the template
	}
	if b.template != "" {
		data, err := os.ReadFile(b.template)
		is.NoErr(err) // the template reads
		path := filepath.Join(tb.TempDir(), "authz.db")
		is.NoErr(os.WriteFile(path, data, 0o600)) // a copy of the loaded database
		db, err := sqlite.Open(tb.Context(), path)
		is.NoErr(err) // the copy opens
		store, fixture = db, ""
	}
	tb.Cleanup(func() { _ = store.Close() })
	w, logs, logger := newWorld(tb, store, fixture)
	if fixture != "" {
		seedAuthzInvites(tb, w.Store) // the templates hold them already
	}
	// The matrix's failing callers all come from one address: no throttle.
	return startAdapter(tb, w, logs, logger, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{Disabled: true}})
}

// authzSnapshot renders everything both realms hold (users with their
// settings and edit records, groups, channels, messages, scheduled messages
// and reminders, linkifiers) as JSON, to compare before and after requests.
func authzSnapshot(t *testing.T, e *env) string {
	t.Helper()
	is := is.New(t)
	ctx := t.Context()
	state := map[string]any{}
	err := e.w.Store.View(ctx, func(tx chatcore.Tx) error {
		for _, realm := range []chatcore.RealmID{1, 2} {
			key := func(what string) string { return fmt.Sprintf("%d/%s", realm, what) }
			users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: realm})
			if err != nil {
				return err
			}
			state[key("users")] = users
			for _, u := range users {
				edited, err := tx.EditedSettings(ctx, u.ID)
				if err != nil {
					return err
				}
				state[key(fmt.Sprintf("edited/%d", u.ID))] = edited
			}
			groups, err := tx.Groups(ctx, realm)
			if err != nil {
				return err
			}
			streams, err := tx.Streams(ctx, realm)
			if err != nil {
				return err
			}
			msgs, err := tx.Messages(ctx, chatcore.MessageQuery{RealmID: realm})
			if err != nil {
				return err
			}
			scheduled, err := tx.ScheduledMessages(ctx, chatcore.ScheduledFilter{RealmID: realm})
			if err != nil {
				return err
			}
			linkifiers, err := tx.Linkifiers(ctx, realm)
			if err != nil {
				return err
			}
			state[key("groups")], state[key("streams")], state[key("messages")] = groups, streams, msgs
			state[key("scheduled")], state[key("linkifiers")] = scheduled, linkifiers
			invs, err := authzInvites(ctx, tx, realm)
			if err != nil {
				return err
			}
			state[key("invites")] = invs
		}
		return nil
	})
	is.NoErr(err) // the store reads
	data, err := json.MarshalIndent(state, "", " ")
	is.NoErr(err) // the state encodes
	return string(data)
}

// cellKey names one cell of the matrix.
type cellKey struct {
	c    int // index into authzCases
	role string
	kind objKind
}

// cellResult is what one cell answered, with the object id it named.
type cellResult struct {
	res *response
	id  string
}

func TestAuthorizationMatrix(t *testing.T) {
	spec(t) // every cell is checked against the OpenAPI excerpt
	cases := append(append(authzCases(), personalAuthzCases()...), peopleAuthzCases()...)
	t.Run("covers every route", func(t *testing.T) {
		is := is.New(t)
		var covered []string
		for _, c := range cases {
			covered = append(covered, c.route)
		}
		slices.Sort(covered)
		covered = slices.Compact(covered)
		served := httpadapter.RoutePatterns()
		slices.Sort(served)
		is.Equal(covered, served) // the matrix names exactly the routes the adapter serves
	})

	for _, backend := range []string{"memory", "sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel() // each backend has servers and stores of its own
			runAuthzMatrix(t, cases, newAuthzBackend(t, backend))
		})
	}
}

// runAuthzMatrix runs every cell on the backend. Cells that succeed on a
// route that writes get a fresh server each; all other cells (reads and every
// refusal) share one server, whose whole state must be unchanged at the end:
// a refused request changes nothing.
func runAuthzMatrix(t *testing.T, cases []authzCase, backend authzBackend) {
	shared := newAuthzEnv(t, backend)
	before := authzSnapshot(t, shared)
	results := map[cellKey]cellResult{}
	cells := 0
	for ci, c := range cases {
		t.Run(c.title(), func(t *testing.T) {
			for _, r := range authzRoles {
				for _, k := range c.kinds {
					t.Run(r.name+"/"+k.String(), func(t *testing.T) {
						id := ""
						if c.obj != nil {
							id = c.obj(r, k)
						}
						want := c.want(r, k, id)
						if !c.public && r.fail != "" && !(r.webhook && c.webhooks) {
							want = outcome{401, "UNAUTHORIZED", r.fail}
						}
						e := shared
						if !c.readOnly && want.status == 200 {
							e = newAuthzEnv(t, backend)
						}
						req := c.req(r, id)
						req.auth = r.auth
						res := e.do(t, req)
						if res.status >= 500 {
							t.Logf("server log of the failed cell:\n%s", e.log.String())
						}
						cells++
						results[cellKey{ci, r.name, k}] = cellResult{res, id}
						if want.status == 200 {
							wantSuccess(t, res)
							if c.check != nil {
								c.check(t, r, res)
							}
						} else {
							wantError(t, res, want.status, want.code, want.msg)
						}
						if want.status == 401 {
							is.New(t).Equal(res.header.Get("WWW-Authenticate"), `Basic realm="zulip"`) // 401s challenge for Basic auth
						}
						checkSpecIfListed(t, c.route, res)
						is.New(t).True(!strings.Contains(e.log.String(), "internal error")) // no cell is a server failure
					})
				}
			}
		})
	}
	t.Logf("%d cells over %d routes and %d callers", cells, len(httpadapter.RoutePatterns()), len(authzRoles))

	t.Run("refused requests change nothing", func(t *testing.T) {
		is := is.New(t)
		after := authzSnapshot(t, shared)
		if after != before {
			t.Logf("before:\n%s\nafter:\n%s", before, after)
		}
		is.True(after == before) // the shared server saw only reads and refusals
	})

	// Another realm's object and a missing id must give the same answer, byte
	// for byte once the id itself is replaced.
	t.Run("other realm is indistinguishable from missing", func(t *testing.T) {
		compared := 0
		for key, theirs := range results {
			if key.kind != objOtherRealm {
				continue
			}
			missing, ok := results[cellKey{key.c, key.role, objMissing}]
			if !ok {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", cases[key.c].title(), key.role), func(t *testing.T) {
				is := is.New(t)
				if theirs.res.status == 200 {
					t.Fatalf("another realm's object was served: %s", theirs.res.raw)
				}
				is.Equal(theirs.res.status, missing.res.status) // same status
				a := strings.ReplaceAll(string(theirs.res.raw), theirs.id, "<id>")
				b := strings.ReplaceAll(string(missing.res.raw), missing.id, "<id>")
				is.Equal(a, b) // same body
			})
			compared++
		}
		t.Logf("%d pairs compared", compared)
		is.New(t).True(compared > 100) // every route with an object was compared
	})
}

// checkSpecIfListed validates res against the OpenAPI excerpt when the
// excerpt describes the route.
func checkSpecIfListed(t *testing.T, route string, res *response) {
	t.Helper()
	method, path, _ := strings.Cut(route, " ")
	template, ok := strings.CutPrefix(path, "/api/v1")
	if !ok {
		return
	}
	item := spec(t).Paths.Value(template)
	if item == nil || item.GetOperation(method) == nil {
		return
	}
	checkSpec(t, method, template, res)
}

// peerOr allows the request on the caller's realm's object and gives miss
// otherwise.
func peerOr(miss outcome) func(authzRole, objKind, string) outcome {
	return func(_ authzRole, k objKind, _ string) outcome {
		if k == objPeer {
			return ok200
		}
		return miss
	}
}
