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
	"strconv"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/wire"
	"github.com/chatcore/chatcore/metrics"
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
	// AuthThrottle limits failed authentications per client address and per
	// client address and e-mail (on by default; valid keys are never
	// refused) and says whether a proxy header names the client.
	AuthThrottle AuthThrottle
	// ExternalURL overrides the server's base URL as clients reach it,
	// reported as realm_url. Leave it empty: the adapter takes the Service's
	// (chatcore.WithExternalURL, read through Service.ExternalURL), so that
	// every link is built from one setting; New logs a warning when it is
	// set and differs from the Service's.
	//
	// Deprecated: set the URL once, with chatcore.WithExternalURL.
	ExternalURL string
	// Realm is the string id of the realm GET /server_settings describes
	// (default: the realm with the lowest id).
	Realm string
	// Now tells the time for rate limiting (default time.Now).
	Now func() time.Time
	// Events registers event queues and answers their polls (default: a
	// new eventqueue.Hub over the Service, with the in-process bus). Give
	// the server's Hub when it has one, to close it or give it a Bus.
	Events *eventqueue.Hub
	// LogRequests writes one line per request to Logger at info level
	// (warning for a 5xx): request_id, method, route (the pattern, e.g.
	// /api/v1/messages/{message_id}), status, duration, bytes, client and,
	// when authenticated, user_id. Never a key, a password or a query.
	LogRequests bool
	// Metrics, when set, records every request by route pattern, method
	// and status (see package metrics); register it in a Prometheus
	// registry served on a listener of its own.
	Metrics *metrics.Metrics
	// ReadyTimeout bounds the store read of GET /readyz (zero:
	// DefaultReadyTimeout).
	ReadyTimeout time.Duration
}

// handler is the http.Handler New returns.
type handler struct {
	svc     *chatcore.Service
	events  *eventqueue.Hub
	opts    Options
	log     *slog.Logger
	mux     *http.ServeMux
	limits  *limiters
	maxBody int64

	// authFails throttles failed authentications (auth.go); when off it
	// counts nothing but still tells the client address for the log.
	authFails *authThrottle
	// readyTimeout: Options.ReadyTimeout or its default.
	readyTimeout time.Duration
}

// New returns an http.Handler that serves svc under /api/v1 (plus the e-mail
// confirmation link /accounts/confirm_new_email/{key} and the HTML sign-up
// page of invitation links, /join/{key}/). It is safe for concurrent use.
//
// Every response is JSON in Zulip's envelope. A [*chatcore.Error] is answered
// with the status of its Kind (Invalid 400, NotFound 404, Forbidden 403,
// Unauthenticated 401 with WWW-Authenticate, RateLimited 429 with Retry-After,
// Conflict 409, Unavailable 503 with Retry-After, as is any error wrapping
// [chatcore.ErrUnavailable]), its code, message and Data; any other error is
// logged and answered with a bare 500 "Internal server error". Unknown paths (including
// non-numeric, negative and out-of-range ids, whatever the method) get a JSON
// 404, known paths with another method a JSON 405 listing allowed_methods
// (before authentication, as in Zulip). OPTIONS on a known /api/v1 path is
// answered before authentication with 204 No Content and an Allow header
// listing the path's methods, as Zulip's rest_dispatch does. Id 0 is an id
// like any other: the Service answers it as missing.
//
// Incoming webhook bots may only call POST /api/v1/messages (Zulip's
// allow_incoming_webhooks); anywhere else they get 401 "This API is not
// available to incoming webhook bots."
func New(svc *chatcore.Service, opts Options) http.Handler {
	h := &handler{
		svc:     svc,
		opts:    opts,
		log:     slog.New(requestIDHandler{cmp.Or(opts.Logger, slog.Default()).Handler()}),
		mux:     http.NewServeMux(),
		maxBody: opts.MaxBodyBytes,
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	if h.events = opts.Events; h.events == nil {
		h.events = eventqueue.New(svc, eventqueue.Options{})
	}
	h.readyTimeout = cmp.Or(opts.ReadyTimeout, DefaultReadyTimeout)
	own := strings.TrimRight(svc.ExternalURL(), "/")
	if h.opts.ExternalURL = strings.TrimRight(h.opts.ExternalURL, "/"); h.opts.ExternalURL == "" {
		h.opts.ExternalURL = own
	} else if h.opts.ExternalURL != own {
		h.log.Warn("httpadapter: Options.ExternalURL differs from the Service's external URL; links in e-mails, reminders and notices use the Service's: set it once, with chatcore.WithExternalURL",
			"adapter", h.opts.ExternalURL, "service", own)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	if opts.RateLimit != nil && opts.RateLimit.Requests > 0 && opts.RateLimit.Per > 0 {
		h.limits = newLimiters(*opts.RateLimit, now)
	}
	h.authFails = newAuthThrottle(opts.AuthThrottle, now)
	for _, p := range groupRoutes(h.routes()) {
		h.handlePath(p)
	}
	h.handleSignUp()
	return h
}

// ServeHTTP dispatches r (see [handler.serve]), with a request id and, as
// Options say, a log line and metrics.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.observe(w, r, h.serve)
}

// serve dispatches r: /healthz and /readyz (see [handler.health]), then the
// routes. Whatever the mux would answer itself is a JSON 404
// instead: a path no route matches, and a path it would redirect (an unclean
// one such as /api/v1//users/me or /api/v1/./users/me): Zulip's URLconf
// matches the path as sent, so such paths match no route there either.
func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	if h.health(w, r) {
		return
	}
	if next, _ := h.mux.Handler(r); !isRoute(next) {
		h.writeError(w, r, notFound())
		return
	}
	h.mux.ServeHTTP(w, r)
}

// routeHandler is the handler of one path (see [handler.dispatch]); the mux's
// own answers (redirects, its 404 and 405) are other types.
type routeHandler func(w http.ResponseWriter, r *http.Request)

func (f routeHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { f(w, r) }

// isRoute reports whether next, as the mux chose it, is one of the adapter's
// path handlers.
func isRoute(next http.Handler) bool {
	_, ok := next.(routeHandler)
	return ok
}

// path is every route sharing one URL path, registered with the mux as one
// method-less pattern so that the path (ids included) is matched before the
// method, as in Zulip's URLconf and rest_dispatch: a malformed id is a 404
// whatever the method, a known path with another method a 405.
type path struct {
	path string
	// ids are the path wildcards that must be decimal ids (Zulip's <int:...>).
	ids      []string
	byMethod map[string]http.Handler
	// allowed are the methods the path accepts, sorted; HEAD is served by
	// the GET route and listed with it, as Zulip does.
	allowed []string
	// api is set for paths under /api/, which Zulip serves through
	// rest_dispatch (and so answers OPTIONS on).
	api bool
	// byName serves a value of the id wildcard byName.from that is not an
	// id (see [route.nameOf]); nil when no route does.
	byName *path
	// from and wildcard are set on a byName path: the id wildcard it stands
	// in for, and its own wildcard name, which receives the value.
	from, wildcard string
}

// groupRoutes groups routes by path, keeping the paths in first-seen order.
func groupRoutes(routes []route) []*path {
	var paths, named []*path
	index := map[string]*path{}
	byName := map[string]*path{} // by the path of the id route they stand in for
	for _, rt := range routes {
		method, p, ok := strings.Cut(rt.pattern, " ")
		if !ok {
			panic("httpadapter: route pattern without method: " + rt.pattern)
		}
		key, group := p, index
		if rt.nameOf != "" {
			start, end := strings.LastIndex(p, "{"), strings.LastIndex(p, "}")
			if start < 0 || end < start {
				panic("httpadapter: nameOf on a route without a wildcard: " + rt.pattern)
			}
			key, group = p[:start]+"{"+rt.nameOf+"}"+p[end+1:], byName
		}
		g := group[key]
		if g == nil {
			g = &path{path: p, byMethod: map[string]http.Handler{}, api: strings.HasPrefix(p, "/api/")}
			group[key] = g
			if rt.nameOf != "" {
				g.from, g.wildcard = rt.nameOf, p[strings.LastIndex(p, "{")+1:strings.LastIndex(p, "}")]
				named = append(named, g)
			} else {
				paths = append(paths, g)
			}
		}
		if _, dup := g.byMethod[method]; dup {
			panic("httpadapter: duplicate route " + rt.pattern)
		}
		g.byMethod[method] = rt.handler
		g.allowed = append(g.allowed, method)
		for _, id := range rt.ids {
			if !slices.Contains(g.ids, id) {
				g.ids = append(g.ids, id)
			}
		}
	}
	for key, g := range byName {
		idPath := index[key]
		if idPath == nil || !slices.Contains(idPath.ids, g.from) {
			panic("httpadapter: no id route " + key + " for " + g.path)
		}
		idPath.byName = g
	}
	for _, g := range slices.Concat(paths, named) {
		if get, ok := g.byMethod[http.MethodGet]; ok {
			if _, ok := g.byMethod[http.MethodHead]; !ok {
				g.byMethod[http.MethodHead] = get
				g.allowed = append(g.allowed, http.MethodHead)
			}
		}
		slices.Sort(g.allowed)
	}
	return paths
}

// dispatch returns the handler of one path: id check (404), OPTIONS (204),
// method check (405, before authentication as in Zulip), then the route.
func (h *handler) dispatch(p *path) http.Handler {
	return routeHandler(func(w http.ResponseWriter, r *http.Request) {
		p := p
		for _, name := range p.ids {
			if _, ok := parsePathID[int64](r.PathValue(name)); !ok {
				if p.byName != nil && p.byName.from == name {
					// Not an id: the path is its named twin's.
					r.SetPathValue(p.byName.wildcard, r.PathValue(name))
					p = p.byName
					break
				}
				h.writeError(w, r, notFound())
				return
			}
		}
		if info := infoOf(r.Context()); info != nil {
			info.route = p.path
		}
		if r.Method == http.MethodOptions && p.api {
			// Zulip's rest_dispatch answers OPTIONS itself, before
			// authentication: no content, the path's methods in Allow.
			w.Header().Set("Allow", strings.Join(p.allowed, ", "))
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next, ok := p.byMethod[r.Method]
		if !ok {
			h.writeError(w, r, &methodNotAllowedError{allowed: slices.Clone(p.allowed)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// parsePathID parses a path id as Zulip's <int:...> converter accepts it:
// one or more ASCII digits (so no sign), zero included, and it must fit T.
// Anything else is not an id (the path matches no route).
func parsePathID[T ~int64](s string) (T, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return T(n), true
}

// route is one endpoint.
type route struct {
	// pattern is a ServeMux pattern without the /api/v1 prefix unless it starts
	// with "/accounts".
	pattern string
	// public routes need no authentication.
	public bool
	// access is who may call a route that is not public, checked with
	// [chatcore.Authorize] before the parameters as Zulip's view decorators
	// do (@human_users_only, @require_realm_admin).
	access chatcore.Access
	// ids are the path wildcards that must be decimal ids (zero included);
	// anything else is a 404, as in Zulip where such paths match no route.
	ids []string
	// nameOf makes the route serve the values of the id wildcard nameOf
	// (of the route with the same path but that wildcard) that are not ids,
	// under the route's own wildcard name, as Zulip's users/<email> serves
	// what users/<int:user_id> does not match. It has no ids of its own.
	nameOf string
	// untyped routes never report ignored parameters (Zulip views that are not
	// @typed_endpoint, e.g. DELETE /realm/filters/{filter_id}).
	untyped bool
	// webhooks lets incoming webhook bots call the route (Zulip's
	// allow_incoming_webhooks flag in urls.py, set on POST /messages only);
	// on every other route they get a 401.
	webhooks bool
	fn       func(ctx context.Context, c *call) (map[string]any, error)
	// stream, when set instead of fn, answers the request itself after
	// authentication, without the parameter collection (which reads the
	// body whole): routes that stream a file in or out (uploads.go). An
	// error it returns before writing is answered in Zulip's envelope.
	stream func(w http.ResponseWriter, c *call) error
	// raw, when set instead of fn, writes the answer itself (an image, a
	// redirect) after the parameters are collected; an error it returns is
	// answered in the JSON envelope.
	raw func(ctx context.Context, c *call, w http.ResponseWriter) error
	// handler is fn wrapped by [handler.wrap]; set by routes.
	handler http.Handler
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

// wrap turns a route into an http.Handler: authentication, rate limit, role
// check, parameter collection, then the route's function. The path's ids were
// checked by [handler.dispatch].
func (h *handler) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &call{h: h, r: r}
		if !rt.public {
			u, err := h.authenticate(r, rt.webhooks)
			if err != nil {
				h.writeError(w, r, err)
				return
			}
			c.user = u
			if info := infoOf(r.Context()); info != nil {
				info.user = u.ID
			}
			if h.limits != nil {
				if err := h.limits.allow(w, u.ID); err != nil {
					h.writeError(w, r, err)
					return
				}
			}
			if err := chatcore.Authorize(u, rt.access); err != nil {
				h.writeError(w, r, err)
				return
			}
		}
		if rt.stream != nil {
			if err := rt.stream(w, c); err != nil {
				h.writeError(w, r, err)
			}
			return
		}
		params, err := collectParams(w, r, h.maxBody)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		c.params = params
		if rt.raw != nil {
			if err := rt.raw(r.Context(), c, w); err != nil {
				h.writeError(w, r, err)
			}
			return
		}
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

// pathID returns the id in the named path wildcard, validated by
// [handler.dispatch]; it may be zero (no object has it).
func pathID[T ~int64](c *call, name string) T {
	id, _ := parsePathID[T](c.r.PathValue(name))
	return id
}

// decode fills dst from the request parameters with chatcore's strict Zulip
// decoder and records the parameters dst has no field for.
func (c *call) decode(dst any) error {
	ignored, err := wire.DecodeParams(c.params, dst)
	if err != nil {
		return err
	}
	c.ignored = ignored
	c.decoded = true
	return nil
}
