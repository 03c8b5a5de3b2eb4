package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/dbarg"
)

// floorRealm is the realm of the generated organization (see orgFixture).
const floorRealm = 1

// floorServer is the simplest correct server for the requests the floor
// comparison sends, on the database of the real server: net/http, HTTP
// Basic auth by the user's e-mail and the SHA-256 of the key, and one
// statement per request (see floorDB for how each store is used). It is the
// floor chatcore's adapter is measured against, not a chat server: it
// enforces none of Zulip's other rules. At floorLoggedSendPath it also
// serves a variant of its send that logs the message's event as chatcore's
// event log does, and at floorUnorderedSendPath one that logs it without
// ordering the log (see eventLogging).
type floorServer struct {
	base   string
	http   *http.Server
	db     floorDB
	served chan error
}

// floorDB is the floor's database: each method runs one prepared statement.
type floorDB interface {
	// user returns the id and stored API key hash of the active user of the
	// realm with the folded e-mail, or errFloorNotFound.
	user(ctx context.Context, emailKey string) (id int64, keyHash string, err error)
	// channel returns the id and recipient id of the unarchived channel of
	// the realm with the folded name, or errFloorNotFound.
	channel(ctx context.Context, nameKey string) (id, recipient int64, err error)
	// setEnterSends updates the one column of the user.
	setEnterSends(ctx context.Context, user int64, enter bool) error
	// setStarred adds or removes the user's starred flag on the message;
	// adding to a message that does not exist returns errFloorNotFound.
	setStarred(ctx context.Context, user, message int64, star bool) error
	// events returns the entries of the user's event queue after id after
	// (at most 100, as JSON objects without their ids), or errFloorNotFound
	// for a queue that is not the user's.
	events(ctx context.Context, user int64, queue string, after int64) ([]floorEvent, error)
	// insertMessage inserts the message row and returns its id; with
	// m.log other than noEventLog it also appends the message's event to
	// chatcore's event log in the same transaction, as chatcore's store
	// appends it, or fails where that is not implemented (SQLite).
	insertMessage(ctx context.Context, m floorMessage) (int64, error)
	// loadChannelCount counts the messages in the load channel.
	loadChannelCount(ctx context.Context) (int, error)
	// serverProcess returns the process id of a database server process
	// serving one of the floor's connections, or 0 when the database runs
	// in this process.
	serverProcess(ctx context.Context) (int, error)
	close() error
}

// floorMessage is the row the floor inserts for a channel message.
type floorMessage struct {
	sender, recipient, channel int64
	topic, content, rendered   string
	sentAt                     time.Time
	// log says whether and how the message's event goes to the event log.
	log eventLogging
}

// eventLogging is how the floor logs a message's event.
type eventLogging int

const (
	// noEventLog logs nothing: the plain floor.
	noEventLog eventLogging = iota
	// orderedEventLog appends the event under the realm's append lock, as
	// chatcore's store does, so that the realm's log ids follow commit order.
	orderedEventLog
	// unorderedEventLog appends the same rows without the lock. The ids of
	// concurrent sends then need not follow commit order, and a poll could
	// pass over an entry that commits after a higher one: no correct server
	// logs so. It measures what the log's rows alone cost, a bound for any
	// server that logs the event in the send's transaction, however it
	// orders its log.
	unorderedEventLog
)

// floorLoggedSendPath and floorUnorderedSendPath are where the floor server
// serves POST /messages with the message's event logged, in order and
// unordered (see eventLogging).
const (
	floorLoggedSendPath    = "/floor/messages-with-event"
	floorUnorderedSendPath = "/floor/messages-with-unordered-event"
)

// floorEvent is an entry of chatcore's event log as the floor reads it.
type floorEvent struct {
	id   int64
	data []byte
}

// errFloorNotFound is what floorDB returns for a missing user or channel.
var errFloorNotFound = errors.New("floor: not found")

// startFloor opens the database db names (already created and migrated by
// the real server: a SQLite file, or a PostgreSQL database with the schema
// the real server uses) and serves the floor handlers on 127.0.0.1 port 0
// with a pool of conns connections for reading.
func startFloor(ctx context.Context, cfg config, conns int) (_ *floorServer, err error) {
	f := &floorServer{served: make(chan error, 1)}
	if dbarg.IsPostgres(cfg.db) {
		f.db, err = openPostgresFloor(ctx, cfg.db, cfg.pgSchema, conns)
	} else {
		f.db, err = openSQLiteFloor(ctx, cfg.db, conns)
	}
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.db.close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("PATCH /api/v1/settings", f.updateSettings)
	for path, log := range map[string]eventLogging{"/api/v1/messages": noEventLog,
		floorLoggedSendPath: orderedEventLog, floorUnorderedSendPath: unorderedEventLog} {
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) { f.sendMessage(w, r, log) })
	}
	mux.HandleFunc("POST /api/v1/messages/flags", f.updateFlags)
	mux.HandleFunc("GET /api/v1/events", f.getEvents)
	f.base = "http://" + ln.Addr().String()
	f.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { f.served <- f.http.Serve(ln) }()
	return f, nil
}

// close stops serving and closes the database.
func (f *floorServer) close(ctx context.Context) error {
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := f.http.Shutdown(shutdownCtx); err != nil {
		f.http.Close()
	}
	err := <-f.served
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return errors.Join(err, f.db.close())
}

// authenticate returns the id of the user the request's Basic credentials
// name, or writes a 401 and returns false. The key is compared by its stored
// form, the hex SHA-256 (chatcore.HashAPIKey), in constant time.
func (f *floorServer) authenticate(w http.ResponseWriter, r *http.Request) (int64, bool) {
	email, key, ok := r.BasicAuth()
	if ok {
		id, hash, err := f.db.user(r.Context(), chatcore.FoldKey(email))
		switch {
		case err == nil && keyMatches(hash, key):
			return id, true
		case err != nil && !errors.Is(err, errFloorNotFound):
			floorError(w, http.StatusInternalServerError, "Internal server error")
			return 0, false
		}
	}
	floorError(w, http.StatusUnauthorized, "Invalid API key")
	return 0, false
}

// formRequest authenticates a request with a form body and parses the form,
// or writes the error and returns false.
func (f *floorServer) formRequest(w http.ResponseWriter, r *http.Request) (int64, bool) {
	user, ok := f.authenticate(w, r)
	if !ok {
		return 0, false
	}
	if err := r.ParseForm(); err != nil {
		floorError(w, http.StatusBadRequest, "Malformed request")
		return 0, false
	}
	return user, true
}

// updateSettings answers PATCH /settings with enter_sends, the one setting it
// knows: one UPDATE of one column.
func (f *floorServer) updateSettings(w http.ResponseWriter, r *http.Request) {
	user, ok := f.formRequest(w, r)
	if !ok {
		return
	}
	enter, err := strconv.ParseBool(r.PostForm.Get("enter_sends"))
	if err != nil || len(r.PostForm) != 1 {
		floorError(w, http.StatusBadRequest, "Only enter_sends is supported")
		return
	}
	if err := f.db.setEnterSends(r.Context(), user, enter); err != nil {
		floorError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	floorJSON(w, http.StatusOK, `{"result":"success","msg":"","ignored_parameters_unsupported":[]}`)
}

// updateFlags answers POST /messages/flags for the starred flag of one
// message: one statement.
func (f *floorServer) updateFlags(w http.ResponseWriter, r *http.Request) {
	user, ok := f.formRequest(w, r)
	if !ok {
		return
	}
	var ids []int64
	form := r.PostForm
	op := form.Get("op")
	switch {
	case json.Unmarshal([]byte(form.Get("messages")), &ids) != nil || len(ids) != 1:
		floorError(w, http.StatusBadRequest, "Only one message is supported")
		return
	case form.Get("flag") != "starred":
		floorError(w, http.StatusBadRequest, "Only the starred flag is supported")
		return
	case op != "add" && op != "remove":
		floorError(w, http.StatusBadRequest, "Invalid op")
		return
	}
	err := f.db.setStarred(r.Context(), user, ids[0], op == "add")
	switch {
	case errors.Is(err, errFloorNotFound):
		floorError(w, http.StatusBadRequest, "Invalid message(s)")
		return
	case err != nil:
		floorError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	floorJSON(w, http.StatusOK, `{"result":"success","msg":"","messages":[`+strconv.FormatInt(ids[0], 10)+`]}`)
}

// getEvents answers GET /events with dont_block=true from chatcore's event
// log: the queue's owner checked and its entries after last_event_id read
// (the ids it answers are the log's). It is no event server: it never
// waits, advances no queue and keeps no heartbeat.
func (f *floorServer) getEvents(w http.ResponseWriter, r *http.Request) {
	user, ok := f.authenticate(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	after, err := strconv.ParseInt(q.Get("last_event_id"), 10, 64)
	switch {
	case err != nil || q.Get("queue_id") == "":
		floorError(w, http.StatusBadRequest, "queue_id and last_event_id are required")
		return
	case q.Get("dont_block") != "true":
		floorError(w, http.StatusBadRequest, "Only dont_block=true is supported")
		return
	}
	events, err := f.db.events(r.Context(), user, q.Get("queue_id"), max(after, 0))
	switch {
	case errors.Is(err, errFloorNotFound):
		floorError(w, http.StatusBadRequest, "Bad event queue ID: "+q.Get("queue_id"))
		return
	case err != nil:
		floorError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	b := []byte(`{"result":"success","msg":"","events":[`)
	for i, e := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `{"id":`...), e.id, 10)
		if len(e.data) > 2 { // the entry's other members
			b = append(append(b, ','), e.data[1:len(e.data)-1]...)
		}
		b = append(b, '}')
	}
	floorJSON(w, http.StatusOK, string(append(b, "]}"...)))
}

// sendMessage answers POST /messages to a channel named by "to": a channel
// lookup by name and one INSERT of the message row, with the
// HTML-escaped content as its rendering, and the message's event appended
// to the log as log says (see floorDB.insertMessage).
func (f *floorServer) sendMessage(w http.ResponseWriter, r *http.Request, log eventLogging) {
	user, ok := f.formRequest(w, r)
	if !ok {
		return
	}
	form := r.PostForm
	typ, to, topic, content := form.Get("type"), form.Get("to"), form.Get("topic"), form.Get("content")
	switch {
	case typ != "stream" && typ != "channel":
		floorError(w, http.StatusBadRequest, "Only channel messages are supported")
		return
	case to == "" || topic == "" || content == "":
		floorError(w, http.StatusBadRequest, "to, topic and content are required")
		return
	}
	channel, recipient, err := f.db.channel(r.Context(), chatcore.FoldKey(to))
	switch {
	case errors.Is(err, errFloorNotFound):
		floorError(w, http.StatusBadRequest, "Invalid channel name")
		return
	case err != nil:
		floorError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	id, err := f.db.insertMessage(r.Context(), floorMessage{sender: user, recipient: recipient, channel: channel,
		topic: topic, content: content, rendered: "<p>" + html.EscapeString(content) + "</p>", sentAt: time.Now(),
		log: log})
	if err != nil {
		floorError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	floorJSON(w, http.StatusOK, `{"result":"success","msg":"","id":`+strconv.FormatInt(id, 10)+`,"automatic_new_visibility_policy":null}`)
}

func floorError(w http.ResponseWriter, status int, msg string) {
	floorJSON(w, status, `{"result":"error","code":"BAD_REQUEST","msg":`+strconv.Quote(msg)+`}`)
}

func floorJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
