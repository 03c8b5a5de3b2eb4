package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/botkit"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/outgoing"
	"github.com/chatcore/chatcore/webhooks"
	"github.com/matryer/is"
)

func TestHTTPPeople(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	create := func(auth *cred, email, pw string) *response {
		return e.do(t, request{method: "POST", path: "/users", auth: auth, enc: urlEncoded,
			params: params("email", email, "password", pw, "full_name", "Created Person")})
	}
	t.Run("create", func(t *testing.T) {
		is := is.New(t)
		e.w.Events.Reset()
		res := create(&admin, "created@example.test", strongPassword)
		wantSuccess(t, res)
		id := chatcore.UserID(num(t, res.body["user_id"]))
		u := e.w.User(t, id)
		is.Equal(u.Role, chatcore.RoleMember) // a member
		is.True(u.IsActive && !u.IsBot)       // an active human
		ok, err := e.w.Svc.VerifyPassword(t.Context(), u.PasswordHash, strongPassword)
		is.NoErr(err)
		is.True(ok) // with the password
		adds := e.w.Events.OfType("realm_user", "op", "add")
		is.True(len(adds) >= 1) // realm_user add
		person := adds[0].Data["person"].(chatcore.UserView)
		is.Equal(person.UserID, id)                    // names the new user
		is.Equal(person.Email, "created@example.test") // whose address everyone may see by default
		is.True(person.ProfileData != nil)             // a human's profile data (empty)
		wantError(t, create(&admin, "created@example.test", strongPassword), 400, "BAD_REQUEST", "Email 'created@example.test' already in use")
		wantError(t, create(&admin, "weak@example.test", "abc"), 400, "BAD_REQUEST", "The password is too weak.")
		wantError(t, create(&admin, "not an address", strongPassword), 400, "BAD_REQUEST", "Bad name or username")
		wantError(t, create(&moderator, "x@example.test", strongPassword), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
		wantError(t, create(&owner, "x@example.test", strongPassword), 400, "BAD_REQUEST", "User not authorized to create users") // an owner without can_create_users
		res = e.do(t, request{method: "POST", path: "/users", auth: &admin, enc: urlEncoded, params: params("email", "y@example.test")})
		wantError(t, res, 400, "REQUEST_VARIABLE_MISSING", "Missing 'password' argument")

		// A created account joins the realm's default channels, as Zulip's.
		is.True(!isSubscribed(t, e, id, 61))
		wantSuccess(t, e.do(t, request{method: "POST", path: "/default_streams", auth: &admin, enc: urlEncoded, params: params("stream_id", "61")}))
		res = create(&admin, "defaults@example.test", strongPassword)
		wantSuccess(t, res)
		is.True(isSubscribed(t, e, chatcore.UserID(num(t, res.body["user_id"])), 61)) // subscribed to the default channel
	})
	patch := func(auth *cred, id int64, kv ...string) *response {
		return e.do(t, request{method: "PATCH", path: "/users/" + strconv.FormatInt(id, 10), auth: auth, enc: urlEncoded, params: params(kv...)})
	}
	t.Run("roles and the last owner", func(t *testing.T) {
		is := is.New(t)
		wantError(t, patch(&admin, 14, "role", "100"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner")
		wantError(t, patch(&admin, 11, "role", "400"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner")
		wantError(t, patch(&owner, 14, "role", "250"), 400, "BAD_REQUEST", "Invalid role")
		wantError(t, patch(&owner, 11, "role", "400"), 400, "BAD_REQUEST", "The owner permission cannot be removed from the only organization owner.")
		e.w.Events.Reset()
		wantSuccess(t, patch(&owner, 14, "role", "100")) // a second owner
		ups := e.w.Events.OfType("realm_user", "op", "update")
		is.Equal(len(ups), 1)                                                                                       // one update
		is.Equal(ups[0].Data["person"], map[string]any{"user_id": chatcore.UserID(14), "role": chatcore.RoleOwner}) // the new role
		wantSuccess(t, patch(&owner, 11, "role", "200"))                                                            // now the first may step down
		is.Equal(e.w.User(t, 11).Role, chatcore.RoleAdministrator)
		mia := cred{"member@acme.test", member.key}
		wantError(t, patch(&mia, 14, "role", "400"), 400, "BAD_REQUEST", "The owner permission cannot be removed from the only organization owner.")
		wantSuccess(t, patch(&mia, 11, "role", "100")) // the new owner restores the old
		wantSuccess(t, patch(&owner, 14, "role", "400"))
	})
	t.Run("full name", func(t *testing.T) {
		is := is.New(t)
		wantSuccess(t, patch(&admin, 17, "full_name", "  Target Renamed "))
		is.Equal(e.w.User(t, 17).FullName, "Target Renamed")  // trimmed
		wantSuccess(t, patch(&admin, 17, "full_name", "   ")) // blank: ignored
		is.Equal(e.w.User(t, 17).FullName, "Target Renamed")  // unchanged
		wantError(t, patch(&admin, 17, "full_name", "a@b"), 400, "BAD_REQUEST", "Invalid characters in name!")
		wantError(t, patch(&admin, 17, "profile_data", `[{"id":1,"value":"x"}]`), 400, "BAD_REQUEST", "Field id 1 not found.")
		wantError(t, patch(&member, 17, "full_name", "x"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
		wantError(t, patch(&admin, 17, "full_name", strings.Repeat("n", 401)), 400, "BAD_REQUEST", "Name too long!")
		wantError(t, patch(&admin, 17, "full_name", strings.Repeat("n", 101)), 400, "BAD_REQUEST", "Name too long!")
	})
	t.Run("reactivate", func(t *testing.T) {
		is := is.New(t)
		e.w.Events.Reset()
		wantSuccess(t, e.do(t, request{method: "POST", path: "/users/16/reactivate", auth: &admin}))
		is.True(e.w.User(t, 16).IsActive) // back
		ups := e.w.Events.OfType("realm_user", "op", "update")
		is.Equal(len(ups), 1)
		is.Equal(ups[0].Data["person"], map[string]any{"user_id": chatcore.UserID(16), "is_active": true})
		wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &gone})) // the old key works again
		wantError(t, e.do(t, request{method: "POST", path: "/users/16/reactivate", auth: &admin}), 400, "BAD_REQUEST", "User is already active")
		wantError(t, e.do(t, request{method: "POST", path: "/users/21/reactivate", auth: &admin}), 400, "BAD_REQUEST", "No such user")
	})
	t.Run("subscription status", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/users/14/subscriptions/61", auth: &member})
		wantSuccess(t, res)
		is.Equal(res.body["is_subscribed"], true)
		res = e.do(t, request{method: "GET", path: "/users/31/subscriptions/61", auth: &member})
		wantSuccess(t, res)
		is.Equal(res.body["is_subscribed"], false) // the bot is not subscribed
		wantError(t, e.do(t, request{method: "GET", path: "/users/14/subscriptions/71", auth: &member}), 400, "BAD_REQUEST", "Invalid channel ID")
		wantError(t, e.do(t, request{method: "GET", path: "/users/21/subscriptions/61", auth: &member}), 400, "BAD_REQUEST", "No such user")
		res = e.do(t, request{method: "GET", path: "/users/14/subscriptions/abc", auth: &member})
		is.Equal(res.status, 404) // not an id: no such path
		res = e.do(t, request{method: "GET", path: "/users/14/whatever/61", auth: &member})
		is.Equal(res.status, 404) // nor this
	})
	t.Run("own API key", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "POST", path: "/users/me/api_key/regenerate", auth: &guest})
		wantSuccess(t, res)
		key := res.body["api_key"].(string)
		is.True(chatcore.ValidAPIKey(key) && key != guest.key)                                                                 // a new key
		wantError(t, e.do(t, request{method: "GET", path: "/users/me", auth: &guest}), 401, "UNAUTHORIZED", "Invalid API key") // the old one is dead
		wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &cred{guest.email, key}}))
		wantError(t, e.do(t, request{method: "POST", path: "/users/me/api_key/regenerate", auth: &bot}), 400, "BAD_REQUEST", "This endpoint does not accept bot requests.")
	})
}

func TestHTTPBots(t *testing.T) {
	var hits atomic.Int32
	var token atomic.Value // the token the bot's service gets at creation
	token.Store("")
	integration := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p outgoing.Payload
		if json.NewDecoder(r.Body).Decode(&p) != nil || p.Token != token.Load().(string) {
			http.Error(w, "bad payload", http.StatusBadRequest)
			return
		}
		hits.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]string{"content": "pong: " + botkit.Command(&p)})
	}))
	defer integration.Close()
	e := newEnv(t, httpadapter.Options{}, webhooks.Delivery(webhooks.Options{AllowPrivate: true}))
	is := is.New(t)
	add := func(auth *cred, kv ...string) *response {
		return e.do(t, request{method: "POST", path: "/bots", auth: auth, enc: urlEncoded, params: params(kv...)})
	}
	e.w.Events.Reset()
	res := add(&member, "full_name", "Helper Bot", "short_name", "helper")
	wantSuccess(t, res)
	id := num(t, res.body["user_id"])
	key := res.body["api_key"].(string)
	b := e.w.User(t, chatcore.UserID(id))
	is.True(b.IsBot && b.BotType == chatcore.BotTypeGeneric && b.BotOwnerID == 14) // a generic bot of the member
	is.Equal(b.Email, "helper-bot@chatcore.invalid")                               // the external URL names no domain
	adds := e.w.Events.OfType("realm_bot", "op", "add")
	is.Equal(len(adds), 1)                                         // realm_bot add
	is.Equal(adds[0].UserIDs, []chatcore.UserID{14, 11, 12})       // to the owner and the administrators
	is.Equal(len(e.w.Events.OfType("realm_user", "op", "add")), 1) // and realm_user add
	bcred := &cred{b.Email, key}
	wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: bcred})) // the key works

	res = e.do(t, request{method: "GET", path: "/bots", auth: &member})
	wantSuccess(t, res)
	is.Equal(listIDs(t, res, "bots", "user_id"), []int64{id}) // the member's bots
	is.Equal(res.body["bots"].([]any)[0].(map[string]any)["username"], b.Email)

	res = e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("fetch_event_types", `["realm_bot"]`)})
	wantSuccess(t, res)
	is.Equal(listIDs(t, res, "realm_bots", "user_id"), []int64{id}) // realm_bots: the member's own bots
	res = e.do(t, request{method: "POST", path: "/register", auth: &admin, enc: urlEncoded, params: params("fetch_event_types", `["realm_bot"]`)})
	wantSuccess(t, res)
	is.Equal(listIDs(t, res, "realm_bots", "user_id"), []int64{31, 32, id}) // an administrator's: every active bot
	res = e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("fetch_event_types", `["realm_user"]`)})
	wantSuccess(t, res)
	_, has := res.body["realm_bots"]
	is.True(!has) // only when asked for

	wantError(t, add(&member, "full_name", "Other", "short_name", "helper"), 400, "BAD_REQUEST", "Username already in use")
	wantError(t, add(&member, "full_name", "Helper Bot", "short_name", "helper2"), 400, "BAD_REQUEST", "Name is already in use!")
	wantError(t, add(&member, "full_name", "X", "short_name", "x", "bot_type", "4"), 400, "BAD_REQUEST", "Invalid bot type")
	wantError(t, add(&member, "full_name", "X", "short_name", "  "), 400, "BAD_REQUEST", "Bad name or username")
	wantError(t, add(&member, "full_name", "X", "short_name", "x", "bot_type", "3", "payload_url", `"ftp://x"`), 400, "BAD_REQUEST", "payload_url is not a URL")
	wantError(t, add(&guest, "full_name", "X", "short_name", "x"), 400, "BAD_REQUEST", "Not allowed for guest users")

	sid := strconv.FormatInt(id, 10)
	patch := func(auth *cred, kv ...string) *response {
		return e.do(t, request{method: "PATCH", path: "/bots/" + sid, auth: auth, enc: urlEncoded, params: params(kv...)})
	}
	res = patch(&member, "full_name", "Helper Renamed")
	wantSuccess(t, res)
	is.Equal(res.body["full_name"], "Helper Renamed")
	wantError(t, patch(&moderator, "full_name", "Nope"), 400, "BAD_REQUEST", "Insufficient permission")
	wantError(t, patch(&member, "role", "200"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
	wantError(t, patch(&member, "bot_owner_id", "31"), 400, "BAD_REQUEST", "Failed to change owner, bots can't own other bots")
	wantError(t, patch(&member, "bot_owner_id", "21"), 400, "BAD_REQUEST", "Failed to change owner, no such user")
	wantError(t, patch(&member, "bot_owner_id", "16"), 400, "BAD_REQUEST", "Failed to change owner, user is deactivated")
	wantSuccess(t, patch(&member, "bot_owner_id", "13"))
	is.Equal(e.w.User(t, chatcore.UserID(id)).BotOwnerID, chatcore.UserID(13)) // the moderator owns it now
	wantError(t, patch(&member, "full_name", "Mine again?"), 400, "BAD_REQUEST", "Insufficient permission")

	res = e.do(t, request{method: "POST", path: "/bots/" + sid + "/api_key/regenerate", auth: &moderator})
	wantSuccess(t, res)
	newKey := res.body["api_key"].(string)
	wantError(t, e.do(t, request{method: "GET", path: "/users/me", auth: bcred}), 401, "UNAUTHORIZED", "Invalid API key")
	wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &cred{b.Email, newKey}}))

	wantSuccess(t, e.do(t, request{method: "DELETE", path: "/bots/" + sid, auth: &admin}))
	is.True(!e.w.User(t, chatcore.UserID(id)).IsActive) // deactivated
	wantError(t, e.do(t, request{method: "DELETE", path: "/bots/" + sid, auth: &admin}), 400, "BAD_REQUEST", "User is deactivated")
	wantError(t, e.do(t, request{method: "DELETE", path: "/bots/17", auth: &admin}), 400, "BAD_REQUEST", "No such bot")
	wantSuccess(t, e.do(t, request{method: "POST", path: "/users/" + sid + "/reactivate", auth: &admin})) // bots come back the users' way

	t.Run("outgoing webhook delivers", func(t *testing.T) {
		is := is.New(t)
		payload, _ := json.Marshal(integration.URL)
		res := add(&owner, "full_name", "Echo", "short_name", "echo", "bot_type", "3", "payload_url", string(payload), "interface_type", "1")
		wantSuccess(t, res)
		echo := chatcore.UserID(num(t, res.body["user_id"]))
		services := botServices(t, e, echo)
		is.Equal(len(services), 1)                       // one service
		is.Equal(services[0].BaseURL, integration.URL)   // at the payload URL
		is.True(chatcore.ValidAPIKey(services[0].Token)) // with a fresh token
		token.Store(services[0].Token)
		res = e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
			params: params("type", "stream", "to", "general", "topic", "bots", "content", "@**Echo** ping")})
		wantSuccess(t, res)
		trigger := chatcore.MessageID(num(t, res.body["id"]))
		is.NoErr(e.w.Svc.Shutdown(t.Context())) // waits for the delivery
		is.Equal(hits.Load(), int32(1))         // the integration was called
		var reply *chatcore.Message
		for _, mid := range e.w.MessageIDs(t, chatcore.MessageQuery{RealmID: 1, AfterID: trigger}) {
			reply = e.w.Message(t, mid)
		}
		is.True(reply != nil)                 // the bot answered
		is.Equal(reply.SenderID, echo)        // as itself
		is.Equal(reply.Content, "pong: ping") // with the integration's answer
		is.Equal(reply.Topic, "bots")         // in the topic
	})
}

// botServices reads a bot's services from the store.
func botServices(t *testing.T, e *env, bot chatcore.UserID) []chatcore.BotService {
	t.Helper()
	var out []chatcore.BotService
	is.New(t).NoErr(e.w.Store.View(t.Context(), func(tx chatcore.Tx) error {
		var err error
		out, err = tx.BotServices(t.Context(), bot)
		return err
	}))
	return out
}

func TestHTTPInvites(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	invite := func(auth *cred, emails string, kv ...string) *response {
		return e.do(t, request{method: "POST", path: "/invites", auth: auth, enc: urlEncoded,
			params: params(append([]string{"invitee_emails", emails, "stream_ids", "[61]"}, kv...)...)})
	}
	t.Run("refusals", func(t *testing.T) {
		is := is.New(t)
		before := len(e.w.Mail.All())
		res := invite(&member, "member@acme.test, fresh@example.test")
		wantError(t, res, 400, "INVITATION_FAILED", "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!")
		is.Equal(res.body["sent_invitations"], true)
		is.Equal(res.body["errors"], []any{[]any{"member@acme.test", "Already has an account.", false}})
		is.Equal(len(e.w.Mail.All()), before+1) // fresh@ was invited
		res = invite(&member, "gone@acme.test")
		wantError(t, res, 400, "INVITATION_FAILED", "We weren't able to invite anyone.")
		is.Equal(res.body["errors"], []any{[]any{"gone@acme.test", "Account has been deactivated.", true}})
		res = invite(&member, "ok@example.test, not-an-address")
		wantError(t, res, 400, "INVITATION_FAILED", "Some emails did not validate, so we didn't send any invitations.")
		is.Equal(res.body["sent_invitations"], false)
		is.Equal(len(e.w.Mail.All()), before+1) // nothing more sent
		wantError(t, invite(&member, " , "), 400, "BAD_REQUEST", "You must specify at least one email address.")
		res = e.do(t, request{method: "POST", path: "/invites", auth: &member, enc: urlEncoded, params: params("invitee_emails", "a@example.test", "stream_ids", "[]")})
		wantError(t, res, 400, "BAD_REQUEST", "You must specify at least one channel for invitees to join.")
		wantError(t, invite(&member, "a@example.test", "invite_as", "200"), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
		wantError(t, invite(&member, "a@example.test", "invite_as", "7"), 400, "BAD_REQUEST", "Invalid invite_as")
		wantError(t, invite(&member, "a@example.test", "invite_expires_in_minutes", "0"), 400, "BAD_REQUEST", "Invalid invite_expires_in_minutes")
		res = e.do(t, request{method: "POST", path: "/invites/multiuse", auth: &member, enc: urlEncoded})
		wantError(t, res, 400, "BAD_REQUEST", "Insufficient permission")
	})
	t.Run("list, resend, revoke", func(t *testing.T) {
		is := is.New(t)
		wantSuccess(t, invite(&moderator, "mods-friend@example.test", "invite_expires_in_minutes", "null"))
		res := e.do(t, request{method: "GET", path: "/invites", auth: &moderator})
		wantSuccess(t, res)
		list := res.body["invites"].([]any)
		is.Equal(len(list), 1) // a non-administrator sees their own
		inv := list[0].(map[string]any)
		is.Equal(inv["email"], "mods-friend@example.test")
		is.Equal(inv["expiry_date"], nil)                               // never expires
		is.Equal(num(t, inv["invited_by_user_id"]), int64(13))          // by the moderator
		is.Equal(num(t, inv["invited_as"]), int64(chatcore.RoleMember)) // as a member
		is.Equal(inv["is_multiuse"], false)
		sid := strconv.FormatInt(num(t, inv["id"]), 10)
		res = e.do(t, request{method: "GET", path: "/invites", auth: &admin})
		wantSuccess(t, res)
		is.Equal(len(res.body["invites"].([]any)), 2) // administrators see the realm's (fresh@ too)
		before := len(e.w.Mail.All())
		wantError(t, e.do(t, request{method: "POST", path: "/invites/" + sid + "/resend", auth: &member}), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
		wantSuccess(t, e.do(t, request{method: "POST", path: "/invites/" + sid + "/resend", auth: &admin}))
		mails := e.w.Mail.All()
		is.Equal(len(mails), before+1)                               // sent again
		is.Equal(mails[len(mails)-1].To, "mods-friend@example.test") // to the invitee
		wantSuccess(t, e.do(t, request{method: "DELETE", path: "/invites/" + sid, auth: &moderator}))
		wantError(t, e.do(t, request{method: "DELETE", path: "/invites/" + sid, auth: &moderator}), 400, "BAD_REQUEST", "No such invitation")
		wantError(t, e.do(t, request{method: "POST", path: "/invites/" + sid + "/resend", auth: &moderator}), 400, "BAD_REQUEST", "No such invitation")
	})
	t.Run("daily limit", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/invites", auth: &admin})
		wantSuccess(t, res)
		sent := 2 // fresh@ and mods-friend@ (revoked invitations still count)
		for batch := 0; sent < 3000; batch++ {
			n := min(1000, 3000-sent)
			var addrs []string
			for i := range n {
				addrs = append(addrs, fmt.Sprintf("bulk%d-%d@example.test", batch, i))
			}
			wantSuccess(t, invite(&admin, strings.Join(addrs, "\n")))
			sent += n
		}
		res = invite(&admin, "one-too-many@example.test")
		wantError(t, res, 400, "INVITATION_FAILED", "To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.")
		is.Equal(res.body["daily_limit_reached"], true)
		var many []string
		for i := range 1001 {
			many = append(many, fmt.Sprintf("x%d@example.test", i))
		}
		wantError(t, invite(&admin, strings.Join(many, ",")), 400, "BAD_REQUEST", "invitee_emails is too long (limit: 1000 items)")
	})
}

// isSubscribed reports whether user is an active subscriber of channel st.
func isSubscribed(t *testing.T, e *env, user chatcore.UserID, st chatcore.StreamID) bool {
	t.Helper()
	var ok bool
	err := e.w.Svc.View(t.Context(), func(tx chatcore.Tx) error {
		var err error
		ok, err = chatcore.IsSubscribed(t.Context(), tx, st, user)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ok
}
