// Package httpadapter serves a [chatcore.Service] over HTTP in the Zulip REST
// API's wire format, under /api/v1, so Zulip clients (the Python client,
// zulip-js, Zulip's bot server) work against it unchanged.
//
// It is a thin layer: it authenticates requests with HTTP Basic auth (e-mail
// and API key), collects parameters from the query string and a urlencoded or
// multipart body, calls the Service, and writes Zulip's JSON envelope. All
// rules live in the Service; the adapter only maps [chatcore.Error] kinds to
// HTTP statuses (see [New]).
package httpadapter

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
)

// DefaultMaxBodyBytes is the request body limit used when
// [Options.MaxBodyBytes] is zero.
const DefaultMaxBodyBytes = 1 << 20

// Options configures the handler returned by [New]. The zero value is usable.
type Options struct {
	// Logger receives internal errors (default slog.Default()).
	Logger *slog.Logger
	// MaxBodyBytes limits request bodies; larger ones are refused with 413.
	// Zero or negative means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// RateLimit, when non-nil (with positive Requests and Per), limits each
	// authenticated user's requests; excess requests get 429 RATE_LIMIT_HIT.
	RateLimit *RateLimit
	// ExternalURL is the server's base URL as clients reach it, reported as
	// realm_url (default "http://127.0.0.1:9991"). Give the Service the same
	// URL (chatcore.WithExternalURL) so links in e-mails and reminders match.
	ExternalURL string
	// Realm is the string id of the realm GET /server_settings describes
	// (default: the realm with the lowest id).
	Realm string
	// Now tells the time for rate limiting (default time.Now).
	Now func() time.Time
}

// handler is the http.Handler New returns.
type handler struct {
	svc     *chatcore.Service
	opts    Options
	log     *slog.Logger
	mux     *http.ServeMux
	limits  *limiters
	maxBody int64
}

// New returns an http.Handler that serves svc under /api/v1 (plus the e-mail
// confirmation link /accounts/confirm_new_email/{key}). It is safe for
// concurrent use.
//
// Every response is JSON in Zulip's envelope. A [*chatcore.Error] is answered
// with the status of its Kind (Invalid 400, NotFound 404, Forbidden 403,
// Unauthenticated 401 with WWW-Authenticate, RateLimited 429 with Retry-After,
// Conflict 409), its code, message and Data; any other error is logged and
// answered with a bare 500 "Internal server error". Unknown paths (including
// non-numeric ids) get a JSON 404, known paths with another method a JSON 405
// listing allowed_methods.
func New(svc *chatcore.Service, opts Options) http.Handler {
	h := &handler{
		svc:     svc,
		opts:    opts,
		log:     cmp.Or(opts.Logger, slog.Default()),
		mux:     http.NewServeMux(),
		maxBody: opts.MaxBodyBytes,
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	if h.opts.ExternalURL == "" {
		h.opts.ExternalURL = "http://127.0.0.1:9991"
	}
	h.opts.ExternalURL = strings.TrimRight(h.opts.ExternalURL, "/")
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	if opts.RateLimit != nil && opts.RateLimit.Requests > 0 && opts.RateLimit.Per > 0 {
		h.limits = newLimiters(*opts.RateLimit, now)
	}
	for _, rt := range h.routes() {
		h.mux.Handle(rt.pattern, h.wrap(rt))
	}
	return h
}

// ServeHTTP dispatches r, answering unmatched requests with a JSON 404 or 405.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mh, pattern := h.mux.Handler(r)
	if pattern != "" {
		h.mux.ServeHTTP(w, r)
		return
	}
	// No route: run the mux's own answer against a recorder to learn whether
	// it is a 405 (and which methods are allowed) or a 404.
	rec := &headerRecorder{header: http.Header{}}
	mh.ServeHTTP(rec, r)
	if rec.status == http.StatusMethodNotAllowed {
		var allowed []string
		for m := range strings.SplitSeq(rec.header.Get("Allow"), ",") {
			if m = strings.TrimSpace(m); m != "" {
				allowed = append(allowed, m)
			}
		}
		h.writeError(w, r, &methodNotAllowedError{allowed: allowed})
		return
	}
	h.writeError(w, r, notFound())
}

// headerRecorder captures the status and headers of a response and discards its body.
type headerRecorder struct {
	header http.Header
	status int
}

func (r *headerRecorder) Header() http.Header { return r.header }
func (r *headerRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}
func (r *headerRecorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return len(b), nil
}

// access is who may call a route.
type access int

const (
	public    access = iota // no authentication
	authed                  // any authenticated user or bot
	humanOnly               // authenticated humans (Zulip's @human_users_only)
	adminOnly               // administrators and owners (@require_realm_admin), checked before parameters
)

// route is one endpoint.
type route struct {
	// pattern is a ServeMux pattern without the /api/v1 prefix unless it starts
	// with "/accounts".
	pattern string
	access  access
	// ids are the path wildcards that must be positive decimal ids; anything
	// else is a 404, as in Zulip where such paths match no route.
	ids []string
	// untyped routes never report ignored parameters (Zulip views that are not
	// @typed_endpoint, e.g. DELETE /realm/filters/{filter_id}).
	untyped bool
	fn      func(ctx context.Context, c *call) (map[string]any, error)
}

// call is one request in progress.
type call struct {
	h      *handler
	r      *http.Request
	user   *chatcore.User // nil on public routes
	params url.Values
	// ignored collects the parameters no decoder read; nil until decode runs.
	ignored []string
	decoded bool
}

// wrap turns a route into an http.Handler: id check, authentication, rate
// limit, role check, parameter collection, then the route's function.
func (h *handler) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, name := range rt.ids {
			if _, ok := chatcore.ParseID[int64](r.PathValue(name)); !ok {
				h.writeError(w, r, notFound())
				return
			}
		}
		c := &call{h: h, r: r}
		if rt.access != public {
			u, err := h.authenticate(r)
			if err != nil {
				h.writeError(w, r, err)
				return
			}
			c.user = u
			if h.limits != nil {
				if err := h.limits.allow(w, u.ID); err != nil {
					h.writeError(w, r, err)
					return
				}
			}
			switch {
			case rt.access == humanOnly && u.IsBot:
				h.writeError(w, r, chatcore.BadRequest("This endpoint does not accept bot requests."))
				return
			case rt.access == adminOnly && !u.Role.IsAdmin():
				h.writeError(w, r, errMustBeAdmin())
				return
			}
		}
		params, err := collectParams(w, r, h.maxBody)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		c.params = params
		fields, err := rt.fn(r.Context(), c)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		var ignored []string
		if !rt.untyped {
			if c.decoded {
				ignored = c.ignored
			} else {
				ignored = paramNames(c.params)
			}
		}
		h.writeSuccess(w, r, fields, ignored)
	})
}

// paramNames returns the sorted names of params.
func paramNames(params url.Values) []string {
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func errMustBeAdmin() *chatcore.Error {
	return &chatcore.Error{
		Code: chatcore.CodeUnauthorizedPrincipal,
		Kind: chatcore.KindInvalid,
		Msg:  "Must be an organization administrator",
	}
}

// pathID returns the validated id in the named path wildcard.
func pathID[T ~int64](c *call, name string) T {
	id, _ := chatcore.ParseID[T](c.r.PathValue(name))
	return id
}

// decode fills dst from the request parameters with chatcore's strict Zulip
// decoder and records the parameters dst has no field for.
func (c *call) decode(dst any) error {
	ignored, err := chatcore.DecodeParams(c.params, dst)
	if err != nil {
		return err
	}
	c.ignored = ignored
	c.decoded = true
	return nil
}
