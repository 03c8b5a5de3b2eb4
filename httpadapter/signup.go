package httpadapter

import (
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/invites"
)

// signUpPath is the page an invitation link opens (Zulip's /join/<key>/).
const signUpPath = "/join/{key}/"

// maxSignUpBody bounds the sign-up form.
const maxSignUpBody = 16 << 10

// signUpPage is the sign-up page: the form, a refusal, or the new account.
var signUpPage = template.Must(template.New("signup").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #222; }
label { display: block; margin-top: 1rem; font-weight: 600; }
input { width: 100%; padding: .5rem; font-size: 1rem; box-sizing: border-box; }
button { margin-top: 1.5rem; padding: .6rem 1.2rem; font-size: 1rem; }
.error { color: #a00; background: #fee; padding: .6rem; border-radius: 4px; }
code { background: #eee; padding: .2rem .4rem; word-break: break-all; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if .Gone}}
<p class="error" id="link-error">{{.Gone}}</p>
<p>Ask the person who invited you for a new invitation.</p>
{{else if .Sent}}
<p id="check-email">Check your e-mail. If <strong id="sent-email">{{.Email}}</strong> can join {{.RealmName}}, we sent it a link: open it to finish creating your account.</p>
<p>The link works for a limited time. Nothing arrived? Check your spam folder, or enter your address again on this page.</p>
{{else if .Done}}
<p id="welcome">Welcome to {{.RealmName}}, {{.Name}}! Your account <strong id="account-email">{{.Email}}</strong> is ready.</p>
<p>Your API key (shown only this once; keep it secret):</p>
<p><code id="api-key">{{.APIKey}}</code></p>
<p>Log in at <a id="login-link" href="{{.LoginURL}}">{{.LoginURL}}</a> with your e-mail address and password.</p>
{{else}}
<p>{{if .Inviter}}{{.Inviter}} invited you to join {{.RealmName}}.{{else}}You are invited to join {{.RealmName}}.{{end}}</p>
{{if .Error}}<p class="error" id="form-error">{{.Error}}</p>{{end}}
<form method="post" action="">
{{if .MultiUse}}<label for="email">E-mail address</label>
<input id="email" name="email" type="email" required maxlength="254" value="{{.Email}}">
<p><small>We will mail you a link to create your account.</small></p>
<button type="submit">Continue</button>
{{else}}<p>E-mail address: <strong id="invited-email">{{.Email}}</strong></p>
<label for="full_name">Full name</label>
<input id="full_name" name="full_name" required maxlength="100" value="{{.Name}}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required minlength="{{.MinLength}}" autocomplete="new-password">
<p><small>At least {{.MinLength}} characters, and not easy to guess.</small></p>
<button type="submit">Create account</button>{{end}}
</form>
{{end}}
</body>
</html>
`))

// signUpData fills signUpPage.
type signUpData struct {
	Title, RealmName, Inviter string
	Gone, Error               string
	MultiUse, Sent, Done      bool
	Email, Name               string
	APIKey, LoginURL          string
	MinLength                 int
}

// handleSignUp registers the sign-up page.
func (h *handler) handleSignUp() {
	h.mux.Handle(signUpPath, routeHandler(h.signUp))
}

// signUp serves the sign-up page of an invitation: GET shows the form;
// for an e-mail invitation (or the confirmation link a multi-use link
// mails) POST creates the account and shows its API key; for a multi-use
// link POST only takes the address and mails it a confirmation link
// ([invites.RequestConfirmation]), answering "check your e-mail" whether
// or not the address already has an account. A link that no longer works
// gets a page that says so (404).
func (h *handler) signUp(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	minLength, _ := h.svc.PasswordPolicy()
	d := signUpData{Title: "Create your account", MinLength: minLength}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, maxSignUpBody)
		if err := r.ParseForm(); err != nil {
			h.writeSignUp(w, r, http.StatusBadRequest, signUpData{Title: "Something went wrong", Gone: "The form could not be read."})
			return
		}
		d.Email, d.Name = strings.TrimSpace(r.PostForm.Get("email")), r.PostForm.Get("full_name")
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		h.writeSignUp(w, r, http.StatusMethodNotAllowed, signUpData{Title: "Something went wrong", Gone: "Method not allowed."})
		return
	}
	link, err := invites.LinkInfo(r.Context(), h.svc, key)
	if err != nil {
		h.signUpFailed(w, r, err, d)
		return
	}
	d.RealmName, d.Inviter, d.MultiUse = link.RealmName, link.InviterName, link.MultiUse
	if !link.MultiUse {
		d.Email = link.Email
	}
	if r.Method != http.MethodPost {
		h.writeSignUp(w, r, http.StatusOK, d)
		return
	}
	if link.MultiUse {
		if err := invites.RequestConfirmation(r.Context(), h.svc, key, d.Email); err != nil {
			h.signUpFailed(w, r, err, d)
			return
		}
		h.writeSignUp(w, r, http.StatusOK, signUpData{Title: "Check your e-mail", Sent: true, RealmName: link.RealmName, Email: d.Email})
		return
	}
	res, err := invites.SignUp(r.Context(), h.svc, key, invites.SignUpRequest{
		FullName: d.Name, Password: r.PostForm.Get("password"),
	})
	if err != nil {
		h.signUpFailed(w, r, err, d)
		return
	}
	h.writeSignUp(w, r, http.StatusOK, signUpData{
		Title: "Your account is ready", Done: true, RealmName: res.RealmName, Name: strings.TrimSpace(d.Name),
		Email: res.Email, APIKey: res.APIKey, LoginURL: h.opts.ExternalURL + "/",
	})
}

// signUpFailed shows a refused sign-up: a dead link's page, the form again
// with the rule's message, or a server failure.
func (h *handler) signUpFailed(w http.ResponseWriter, r *http.Request, err error, d signUpData) {
	if invites.IsLinkInvalid(err) {
		h.writeSignUp(w, r, http.StatusNotFound, signUpData{Title: "Invitation link not valid",
			Gone: "This invitation link has expired, has been revoked or was already used."})
		return
	}
	if e, ok := errors.AsType[*chatcore.Error](err); ok && e.Code == chatcore.CodeRealmDeactivated {
		h.writeSignUp(w, r, http.StatusNotFound, signUpData{Title: "Organization deactivated",
			Gone: "This organization has been deactivated: its invitation links no longer work."})
		return
	}
	if e, ok := errors.AsType[*chatcore.Error](err); ok && e.Kind == chatcore.KindInvalid {
		d.Error = e.Msg
		h.writeSignUp(w, r, http.StatusBadRequest, d)
		return
	}
	h.log.ErrorContext(r.Context(), "httpadapter: internal error", "method", r.Method, "path", "/join/", "err", err)
	h.writeSignUp(w, r, http.StatusInternalServerError, signUpData{Title: "Something went wrong", Gone: "Internal server error."})
}

// writeSignUp renders the page.
func (h *handler) writeSignUp(w http.ResponseWriter, r *http.Request, status int, d signUpData) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if err := signUpPage.Execute(w, d); err != nil {
		h.log.WarnContext(r.Context(), "httpadapter: rendering the sign-up page", "err", err)
	}
}
