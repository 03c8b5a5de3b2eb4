package httpadapter_test

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// strongPassword passes the Service's default password policy.
const strongPassword = "Correct-Horse-Battery-42"

// joinKey is an invitation key in a sign-up link.
var joinKey = regexp.MustCompile(`/join/([a-z0-9]{24})/`)

// apiKeyOnPage finds the API key the sign-up page shows.
var apiKeyOnPage = regexp.MustCompile(`id="api-key">([A-Za-z0-9]{32})<`)

// page fetches (GET) or posts a form to (POST) a sign-up page and returns
// status and body.
func page(t *testing.T, e *env, method, path string, form url.Values) (int, string) {
	t.Helper()
	is := is.New(t)
	var res *http.Response
	var err error
	if method == http.MethodPost {
		res, err = e.srv.Client().PostForm(e.srv.URL+path, form)
	} else {
		res, err = e.srv.Client().Get(e.srv.URL + path)
	}
	is.NoErr(err) // the server answers
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	is.NoErr(err)
	is.Equal(res.Header.Get("Content-Type"), "text/html; charset=utf-8") // a web page, not JSON
	return res.StatusCode, string(body)
}

// lastLink returns the invitation link of the newest e-mail to addr.
func lastLink(t *testing.T, e *env, addr string) string {
	t.Helper()
	mails := e.w.Mail.All()
	for i := len(mails) - 1; i >= 0; i-- {
		if mails[i].To == addr {
			m := joinKey.FindStringSubmatch(mails[i].Body)
			if m == nil {
				t.Fatalf("no link in %q", mails[i].Body)
			}
			return "/join/" + m[1] + "/"
		}
	}
	t.Fatalf("no e-mail to %s", addr)
	return ""
}

// signUp posts the sign-up form and returns the API key the page shows.
func signUp(t *testing.T, e *env, link, email, name string) string {
	t.Helper()
	status, body := page(t, e, http.MethodPost, link, url.Values{"email": {email}, "full_name": {name}, "password": {strongPassword}})
	if status != 200 {
		t.Fatalf("sign-up: %d %s", status, body)
	}
	m := apiKeyOnPage.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no API key on the page: %s", body)
	}
	return m[1]
}

// TestInvitationSignUpFlow is the end-to-end flow of issue 36: an owner
// invites a person by e-mail, the link's page creates the account (and
// shows an API key), the new person logs in with POST /fetch_api_key and
// the password they chose and posts in the invitation's channel; a
// multi-use link is used twice, each time through the confirmation link it
// mails to the address given; a revoked link is refused.
func TestInvitationSignUpFlow(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			invitationSignUpFlow(t, startAdapter(t, w, logs, logger, httpadapter.Options{}))
		})
	}
}

func invitationSignUpFlow(t *testing.T, e *env) {
	is := is.New(t)

	// The owner invites Nina to #general (61) as a member.
	res := e.do(t, request{method: "POST", path: "/invites", auth: &owner, enc: urlEncoded,
		params: params("invitee_emails", "Nina <nina@example.test>", "stream_ids", "[61]", "invite_expires_in_minutes", "60")})
	wantSuccess(t, res)
	link := lastLink(t, e, "nina@example.test")

	status, body := page(t, e, http.MethodGet, link, nil)
	is.Equal(status, 200)                                   // the form
	is.True(strings.Contains(body, "nina@example.test"))    // for the invited address
	is.True(strings.Contains(body, `name="password"`))      // asking for a password
	is.True(strings.Contains(body, "Olivia Owner invited")) // naming the inviter

	// A weak password is refused on the page, and nothing is created.
	status, body = page(t, e, http.MethodPost, link, url.Values{"full_name": {"Nina New"}, "password": {"abc"}})
	is.Equal(status, 400)                                        // refused
	is.True(strings.Contains(body, "The password is too weak.")) // with the policy's message
	is.True(strings.Contains(body, `name="full_name"`))          // the form again
	is.True(signUp(t, e, link, "", "Nina New") != "")            // the page shows a key

	res = e.do(t, request{method: "POST", path: "/fetch_api_key", enc: urlEncoded,
		params: params("username", "nina@example.test", "password", strongPassword)})
	wantSuccess(t, res) // she logs in with the password she chose
	is.Equal(res.body["email"], "nina@example.test")
	key, _ := res.body["api_key"].(string)
	nina := &cred{"nina@example.test", key}
	res = e.do(t, request{method: "GET", path: "/users/me", auth: nina})
	wantSuccess(t, res) // the fetched key works
	id := num(t, res.body["user_id"])
	is.Equal(res.body["full_name"], "Nina New")                    // the name from the page
	is.Equal(num(t, res.body["role"]), int64(chatcore.RoleMember)) // the invitation's role
	res = e.do(t, request{method: "GET", path: "/users/" + strconv.FormatInt(id, 10) + "/subscriptions/61", auth: nina})
	wantSuccess(t, res)
	is.Equal(res.body["is_subscribed"], true) // subscribed to the invitation's channel
	res = e.do(t, request{method: "POST", path: "/messages", auth: nina, enc: urlEncoded,
		params: params("type", "stream", "to", "general", "topic", "hello", "content", "Hi all, I just joined!")})
	wantSuccess(t, res) // and posts there

	// The inviter hears of it from the notification bot.
	found := false
	for _, m := range e.w.MessageIDs(t, chatcore.MessageQuery{RealmID: 1}) {
		if msg := e.w.Message(t, m); strings.Contains(msg.Content, "accepted your invitation") {
			found = true
		}
	}
	is.True(found) // the referrer's notice

	// The link is used up.
	status, body = page(t, e, http.MethodGet, link, nil)
	is.Equal(status, 404)                                                            // refused
	is.True(strings.Contains(body, "expired, has been revoked or was already used")) // with a clear page

	// A multi-use link for guests, used twice.
	res = e.do(t, request{method: "POST", path: "/invites/multiuse", auth: &owner, enc: urlEncoded,
		params: params("stream_ids", "[61]", "invite_as", "600")})
	wantSuccess(t, res)
	u, err := url.Parse(res.body["invite_link"].(string))
	is.NoErr(err) // a URL
	multi := u.Path
	status, body = page(t, e, http.MethodGet, multi, nil)
	is.Equal(status, 200)                               // the form
	is.True(strings.Contains(body, `name="email"`))     // asks for the address
	is.True(!strings.Contains(body, `name="password"`)) // and nothing else yet
	for i, who := range []string{"first", "second"} {
		addr := who + "@example.test"
		// The multi-use page only mails the address a confirmation link.
		status, body = page(t, e, http.MethodPost, multi, url.Values{"email": {addr}, "full_name": {"Guest"}, "password": {strongPassword}})
		is.Equal(status, 200)                                // accepted
		is.True(strings.Contains(body, "Check your e-mail")) // and says where to look
		is.True(!apiKeyOnPage.MatchString(body))             // no account yet
		res = e.do(t, request{method: "GET", path: "/users/" + addr, auth: &owner})
		wantError(t, res, 400, "BAD_REQUEST", "No such user")
		confirm := lastLink(t, e, addr)
		is.True(confirm != multi) // a link of its own
		status, body = page(t, e, http.MethodGet, confirm, nil)
		is.Equal(status, 200)                              // the single-use form
		is.True(strings.Contains(body, addr))              // for the confirmed address
		is.True(strings.Contains(body, `name="password"`)) // asking for a password
		key := signUp(t, e, confirm, "", "Guest "+strconv.Itoa(i+1))
		res = e.do(t, request{method: "GET", path: "/users/me", auth: &cred{addr, key}})
		wantSuccess(t, res)
		is.Equal(num(t, res.body["role"]), int64(chatcore.RoleGuest)) // the link's role
		res = e.do(t, request{method: "POST", path: "/messages", auth: &cred{addr, key}, enc: urlEncoded,
			params: params("type", "stream", "to", "general", "topic", "hello", "content", "hi from "+who)})
		wantSuccess(t, res) // a guest posts in the link's channel
	}
	// The same address again: the same answer, but no mail and no account.
	sent := len(e.w.Mail.All())
	status, body = page(t, e, http.MethodPost, multi, url.Values{"email": {"first@example.test"}})
	is.Equal(status, 200)                                // the same page
	is.True(strings.Contains(body, "Check your e-mail")) // as for a new address
	is.Equal(len(e.w.Mail.All()), sent)                  // nothing mailed
	// A malformed address is refused on the page.
	status, body = page(t, e, http.MethodPost, multi, url.Values{"email": {"nobody"}})
	is.Equal(status, 400)                                           // refused
	is.True(strings.Contains(body, "Enter a valid email address.")) // with the reason

	// A revoked invitation's link is refused.
	res = e.do(t, request{method: "POST", path: "/invites", auth: &owner, enc: urlEncoded,
		params: params("invitee_emails", "late@example.test", "stream_ids", "[61]")})
	wantSuccess(t, res)
	late := lastLink(t, e, "late@example.test")
	res = e.do(t, request{method: "GET", path: "/invites", auth: &owner})
	wantSuccess(t, res)
	var lateID int64
	for _, v := range res.body["invites"].([]any) {
		if inv := v.(map[string]any); inv["email"] == "late@example.test" {
			lateID = num(t, inv["id"])
		}
	}
	is.True(lateID != 0) // listed
	wantSuccess(t, e.do(t, request{method: "DELETE", path: "/invites/" + strconv.FormatInt(lateID, 10), auth: &owner}))
	status, body = page(t, e, http.MethodGet, late, nil)
	is.Equal(status, 404)                                        // refused
	is.True(strings.Contains(body, "Invitation link not valid")) // a clear page
	status, _ = page(t, e, http.MethodPost, late, url.Values{"full_name": {"Late"}, "password": {strongPassword}})
	is.Equal(status, 404) // and no account
	res = e.do(t, request{method: "GET", path: "/users/late@example.test", auth: &owner})
	wantError(t, res, 400, "BAD_REQUEST", "No such user")

	// The multi-use link revoked: refused too.
	res = e.do(t, request{method: "GET", path: "/invites", auth: &owner})
	wantSuccess(t, res)
	var multiID int64
	for _, v := range res.body["invites"].([]any) {
		if inv := v.(map[string]any); inv["is_multiuse"] == true {
			multiID = num(t, inv["id"])
		}
	}
	wantSuccess(t, e.do(t, request{method: "DELETE", path: "/invites/multiuse/" + strconv.FormatInt(multiID, 10), auth: &owner}))
	status, _ = page(t, e, http.MethodGet, multi, nil)
	is.Equal(status, 404) // refused
	res = e.do(t, request{method: "DELETE", path: "/invites/multiuse/" + strconv.FormatInt(multiID, 10), auth: &owner})
	wantError(t, res, 400, "BAD_REQUEST", "Invitation has already been revoked")
}
