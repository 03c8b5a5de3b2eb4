package httpadapter_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/syncbuf"
	"github.com/matryer/is"
)

// Credentials of the fixture (testdata/fixture.json).
var (
	owner     = cred{"owner@acme.test", "ownerKEY00000000000000000000000a"}
	admin     = cred{"admin@acme.test", "adminKEY00000000000000000000000b"}
	moderator = cred{"mod@acme.test", "modKEY0000000000000000000000000c"}
	member    = cred{"member@acme.test", "memberKEY0000000000000000000000d"}
	guest     = cred{"guest@acme.test", "guestKEY00000000000000000000000e"}
	gone      = cred{"gone@acme.test", "goneKEY000000000000000000000000f"}
	bot       = cred{"bot@acme.test", "botKEY0000000000000000000000000h"}
	hookBot   = cred{"hook@acme.test", "hookKEY000000000000000000000000i"}
	otherBoss = cred{"boss@other.test", "otherKEY00000000000000000000000j"}
)

type cred struct{ email, key string }

// basic returns the Authorization header value for c.
func (c cred) basic() string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(c.email+":"+c.key))
}

// encoding is how a request carries its parameters.
type encoding int

const (
	inQuery    encoding = iota // the query string (zulip-js for GET/PATCH/DELETE)
	urlEncoded                 // an application/x-www-form-urlencoded body (Python client)
	multiPart                  // a multipart/form-data body (zulip-js POST)
)

func (e encoding) String() string {
	return [...]string{"query", "urlencoded", "multipart"}[e]
}

var encodings = []encoding{inQuery, urlEncoded, multiPart}

// env is a running adapter over a chattest World loaded with a fixture.
type env struct {
	w   *chattest.World
	srv *httptest.Server
	log *syncbuf.Buffer
	h   http.Handler // the adapter, when a test needs to look inside it
}

// newWorld builds a World over store (nil: a new memory store) whose Service
// tells the time by the system clock, as an embedder's does, and logs into
// the returned buffer; svcOpts come last, so they win. It loads the JSON fixture
// at path into the store unless path is "".
func newWorld(tb testing.TB, store chatcore.Store, path string, svcOpts ...chatcore.Option) (*chattest.World, *syncbuf.Buffer, *slog.Logger) {
	tb.Helper()
	is := is.New(tb)
	logs := &syncbuf.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	if store == nil {
		store = chattest.Memory(tb)
	}
	w := chattest.New(tb, chattest.OnStore(store), chattest.With(append([]chatcore.Option{
		chatcore.WithClock(chatcore.ClockFunc(time.Now)),
		chatcore.WithLogger(logger),
	}, svcOpts...)...))
	if path != "" {
		svc := w.Svc
		f, err := os.Open(path)
		is.NoErr(err) // the fixture exists
		defer f.Close()
		is.NoErr(fixture.Load(tb.Context(), svc, f)) // the fixture loads
	}
	return w, logs, logger
}

// startAdapter starts the adapter over w with opts (logging to logger unless opts
// name a logger); the server stops when the test ends.
func startAdapter(tb testing.TB, w *chattest.World, logs *syncbuf.Buffer, logger *slog.Logger, opts httpadapter.Options) *env {
	tb.Helper()
	if opts.Logger == nil {
		opts.Logger = logger
	}
	srv := httptest.NewServer(httpadapter.New(w.Svc, opts))
	tb.Cleanup(srv.Close)
	return &env{w: w, srv: srv, log: logs}
}

// newEnv starts an adapter (with opts) over a fresh memory store loaded with
// testdata/fixture.json.
func newEnv(tb testing.TB, opts httpadapter.Options, svcOpts ...chatcore.Option) *env {
	tb.Helper()
	w, logs, logger := newWorld(tb, nil, "testdata/fixture.json", svcOpts...)
	return startAdapter(tb, w, logs, logger, opts)
}

// request is one request to send.
type request struct {
	method string
	path   string // below /api/v1 unless it starts with /accounts or raw is set
	raw    bool   // path is the server's own (/user_uploads/..., not below /api/v1)
	auth   *cred
	params url.Values
	enc    encoding
	header map[string]string
}

// response is a received response.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// do sends r and decodes the JSON response.
func (e *env) do(tb testing.TB, r request) *response {
	tb.Helper()
	is := is.New(tb)
	u := e.srv.URL
	if strings.HasPrefix(r.path, "/accounts") || r.raw {
		u += r.path
	} else {
		u += "/api/v1" + r.path
	}
	var body io.Reader
	contentType := ""
	if len(r.params) > 0 {
		switch r.enc {
		case inQuery:
			sep := "?"
			if strings.Contains(u, "?") {
				sep = "&"
			}
			u += sep + r.params.Encode()
		case urlEncoded:
			body = strings.NewReader(r.params.Encode())
			contentType = "application/x-www-form-urlencoded"
		case multiPart:
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			names := make([]string, 0, len(r.params))
			for name := range r.params {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				for _, v := range r.params[name] {
					is.NoErr(mw.WriteField(name, v))
				}
			}
			is.NoErr(mw.Close())
			body = &buf
			contentType = mw.FormDataContentType()
		}
	}
	req, err := http.NewRequestWithContext(tb.Context(), r.method, u, body)
	is.NoErr(err) // the request is well formed
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if r.auth != nil {
		req.Header.Set("Authorization", r.auth.basic())
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	return e.send(tb, req)
}

// send sends a prepared request and decodes the JSON response.
func (e *env) send(tb testing.TB, req *http.Request) *response {
	tb.Helper()
	is := is.New(tb)
	res, err := e.srv.Client().Do(req)
	is.NoErr(err) // the server answers
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	is.NoErr(err) // the body reads
	out := &response{status: res.StatusCode, header: res.Header, raw: raw}
	if req.Method != http.MethodHead {
		is.Equal(res.Header.Get("Content-Type"), "application/json") // every answer is JSON
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&out.body); err != nil {
			tb.Fatalf("response is not a JSON object: %v: %s", err, raw)
		}
	}
	return out
}

// params builds url.Values from name, value pairs.
func params(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// wantSuccess asserts a 200 success envelope.
func wantSuccess(tb testing.TB, res *response) {
	tb.Helper()
	is := is.New(tb)
	if res.status != http.StatusOK {
		tb.Logf("body: %s", res.raw)
	}
	is.Equal(res.status, http.StatusOK)     // success status
	is.Equal(res.body["result"], "success") // success envelope
	is.Equal(res.body["msg"], "")           // empty msg on success
	_, hasCode := res.body["code"]
	is.True(!hasCode) // no error code on success
}

// wantError asserts an error envelope with the given status, code and msg.
func wantError(tb testing.TB, res *response, status int, code, msg string) {
	tb.Helper()
	is := is.New(tb)
	if res.status != status || res.body["msg"] != msg {
		tb.Logf("body: %s", res.raw)
	}
	is.Equal(res.status, status)          // error status
	is.Equal(res.body["result"], "error") // error envelope
	is.Equal(res.body["msg"], msg)        // Zulip's message
	is.Equal(res.body["code"], code)      // Zulip's code
	_, hasIgnored := res.body["ignored_parameters_unsupported"]
	is.True(!hasIgnored) // errors never report ignored parameters
}

// num returns a JSON number field as int64.
func num(tb testing.TB, v any) int64 {
	tb.Helper()
	n, ok := v.(json.Number)
	if !ok {
		tb.Fatalf("%v (%T) is not a number", v, v)
	}
	i, err := n.Int64()
	if err != nil {
		tb.Fatalf("%v is not an integer", v)
	}
	return i
}

// ignoredOf returns ignored_parameters_unsupported as strings (nil if absent).
func ignoredOf(res *response) []string {
	list, _ := res.body["ignored_parameters_unsupported"].([]any)
	var out []string
	for _, v := range list {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }
