package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/chatcore/chatcore"
)

// ceilingServer answers the floor comparison's requests with no store at
// all: net/http, HTTP Basic auth against an in-memory map of the generated
// users' API key hashes, the form parsed, and a fixed JSON answer per route.
// No correct server does less per request, so chatcore's rate over the
// ceiling's says what the store and Zulip's rules cost beyond HTTP and
// authentication.
type ceilingServer struct {
	base   string
	http   *http.Server
	served chan error
	// keys maps each user's folded e-mail to the stored form of their API
	// key (chatcore.HashAPIKey), as the store keeps it.
	keys map[string]string
	// lastID numbers the sends' answers.
	lastID atomic.Int64
}

// startCeiling serves the ceiling on 127.0.0.1 port 0 for the generated
// organization of clients clients (see orgUserIDs).
func startCeiling(clients int) (*ceilingServer, error) {
	c := &ceilingServer{served: make(chan error, 1), keys: map[string]string{}}
	for _, id := range orgUserIDs(clients) {
		c.keys[chatcore.FoldKey(email(id))] = chatcore.HashAPIKey(apiKey(id))
	}
	c.lastID.Store(anchorMessage)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("PATCH /api/v1/settings", c.answer(func() string {
		return `{"result":"success","msg":"","ignored_parameters_unsupported":[]}`
	}))
	mux.HandleFunc("POST /api/v1/messages", c.answer(func() string {
		return `{"result":"success","msg":"","id":` + strconv.FormatInt(c.lastID.Add(1), 10) + `,"automatic_new_visibility_policy":null}`
	}))
	mux.HandleFunc("POST /api/v1/messages/flags", c.answer(func() string {
		return `{"result":"success","msg":"","messages":[` + strconv.Itoa(anchorMessage) + `]}`
	}))
	mux.HandleFunc("GET /api/v1/events", c.answer(func() string { return `{"result":"success","msg":"","events":[]}` }))
	c.base = "http://" + ln.Addr().String()
	c.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { c.served <- c.http.Serve(ln) }()
	return c, nil
}

// answer returns the handler that authenticates the request, parses its
// form and writes body's answer.
func (c *ceilingServer) answer(body func() string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		email, key, ok := r.BasicAuth()
		if stored, known := c.keys[chatcore.FoldKey(email)]; !ok || !known || !keyMatches(stored, key) {
			floorError(w, http.StatusUnauthorized, "Invalid API key")
			return
		}
		if err := r.ParseForm(); err != nil {
			floorError(w, http.StatusBadRequest, "Malformed request")
			return
		}
		floorJSON(w, http.StatusOK, body())
	}
}

// keyMatches tells, in constant time, whether key's stored form is stored.
func keyMatches(stored, key string) bool {
	return stored != "" && subtle.ConstantTimeCompare([]byte(stored), []byte(chatcore.HashAPIKey(key))) == 1
}

// close stops serving.
func (c *ceilingServer) close(ctx context.Context) error {
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := c.http.Shutdown(shutdownCtx); err != nil {
		c.http.Close()
	}
	if err := <-c.served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
