package main

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/chatcore/chatcore"
	_ "modernc.org/sqlite" // the driver store/sqlite uses, registered as "sqlite"
)

// floorRealm is the realm of the generated organization (see orgFixture).
const floorRealm = 1

// floorServer is the simplest correct server for the two requests the floor
// comparison sends, on the database file of the real server: net/http, HTTP
// Basic auth by the user's e-mail and the SHA-256 of the key through a
// read-only pool, one writer connection, synchronous=NORMAL, and one
// statement per request. It is the floor chatcore's adapter is measured
// against, not a chat server: it enforces none of Zulip's other rules.
type floorServer struct {
	base    string
	http    *http.Server
	readers *sql.DB
	writer  *sql.DB
	// Prepared statements: the user by e-mail and the channel by name on the
	// readers, the settings update and the message insert on the writer.
	user, channel, settings, insert *sql.Stmt
	served                          chan error
}

// floorDSN returns the data source name of the floor's pools, with the
// pragmas store/sqlite sets (WAL, synchronous=NORMAL, a 5 s busy timeout;
// query_only on the readers).
func floorDSN(path string, reader bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", "5000")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	if reader {
		q.Set("_query_only", "1")
	}
	return "file:" + path + "?" + q.Encode()
}

// startFloor opens the database file at path (already created and migrated by
// the real server) and serves the floor handlers on 127.0.0.1 port 0.
func startFloor(ctx context.Context, path string, readers int) (_ *floorServer, err error) {
	f := &floorServer{served: make(chan error, 1)}
	defer func() {
		if err != nil {
			f.closeDB()
		}
	}()
	if f.readers, err = sql.Open("sqlite", floorDSN(path, true)); err != nil {
		return nil, err
	}
	f.readers.SetMaxOpenConns(readers)
	f.readers.SetMaxIdleConns(readers)
	if f.writer, err = sql.Open("sqlite", floorDSN(path, false)); err != nil {
		return nil, err
	}
	f.writer.SetMaxOpenConns(1)
	f.writer.SetMaxIdleConns(1)
	prepare := func(db *sql.DB, query string) (s *sql.Stmt) {
		if err == nil {
			s, err = db.PrepareContext(ctx, query)
		}
		return s
	}
	f.user = prepare(f.readers, "SELECT id, api_key_hash FROM users WHERE realm_id = ? AND email_key = ? AND is_active = 1")
	f.channel = prepare(f.readers, "SELECT id, recipient_id FROM streams WHERE realm_id = ? AND name_key = ? AND is_archived = 0")
	f.settings = prepare(f.writer, "UPDATE users SET enter_sends = ? WHERE id = ?")
	f.insert = prepare(f.writer, `INSERT INTO messages (realm_id, sender_id, type, recipient_id, stream_id, topic, topic_key,
		content, rendered_content, client, sent_at, is_me_message, default_flags)
		VALUES (?, ?, 'stream', ?, ?, ?, ?, ?, ?, ?, ?, 0, 0) RETURNING id`)
	if err != nil {
		return nil, fmt.Errorf("floor: preparing statements: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("PATCH /api/v1/settings", f.updateSettings)
	mux.HandleFunc("POST /api/v1/messages", f.sendMessage)
	f.base = "http://" + ln.Addr().String()
	f.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { f.served <- f.http.Serve(ln) }()
	return f, nil
}

// close stops serving and closes the pools.
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
	return errors.Join(err, f.closeDB())
}

func (f *floorServer) closeDB() error {
	var errs []error
	for _, s := range []*sql.Stmt{f.user, f.channel, f.settings, f.insert} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	for _, db := range []*sql.DB{f.readers, f.writer} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	return errors.Join(errs...)
}

// authenticate returns the id of the user the request's Basic credentials
// name, or writes a 401 and returns false. The key is compared by its stored
// form, the hex SHA-256 (chatcore.HashAPIKey), in constant time.
func (f *floorServer) authenticate(w http.ResponseWriter, r *http.Request) (int64, bool) {
	email, key, ok := r.BasicAuth()
	if ok {
		var id int64
		var hash sql.NullString
		err := f.user.QueryRowContext(r.Context(), floorRealm, chatcore.FoldKey(email)).Scan(&id, &hash)
		switch {
		case err == nil && hash.Valid && subtle.ConstantTimeCompare([]byte(hash.String), []byte(chatcore.HashAPIKey(key))) == 1:
			return id, true
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			floorError(w, http.StatusInternalServerError, "Internal server error")
			return 0, false
		}
	}
	floorError(w, http.StatusUnauthorized, "Invalid API key")
	return 0, false
}

// updateSettings answers PATCH /settings with enter_sends, the one setting it
// knows: one UPDATE of one column.
func (f *floorServer) updateSettings(w http.ResponseWriter, r *http.Request) {
	user, ok := f.authenticate(w, r)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		floorError(w, http.StatusBadRequest, "Malformed request")
		return
	}
	enter, err := strconv.ParseBool(r.PostForm.Get("enter_sends"))
	if err != nil || len(r.PostForm) != 1 {
		floorError(w, http.StatusBadRequest, "Only enter_sends is supported")
		return
	}
	if _, err := f.settings.ExecContext(r.Context(), enter, user); err != nil {
		floorError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	floorJSON(w, http.StatusOK, `{"result":"success","msg":"","ignored_parameters_unsupported":[]}`)
}

// sendMessage answers POST /messages to a channel named by "to": a channel
// lookup by name on the readers and one INSERT of the message row, with the
// HTML-escaped content as its rendering.
func (f *floorServer) sendMessage(w http.ResponseWriter, r *http.Request) {
	user, ok := f.authenticate(w, r)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		floorError(w, http.StatusBadRequest, "Malformed request")
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
	var channel, recipient int64
	err := f.channel.QueryRowContext(r.Context(), floorRealm, chatcore.FoldKey(to)).Scan(&channel, &recipient)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		floorError(w, http.StatusBadRequest, "Invalid channel name")
		return
	case err != nil:
		floorError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	var id int64
	err = f.insert.QueryRowContext(r.Context(), floorRealm, user, recipient, channel, topic, chatcore.TopicKey(topic),
		content, "<p>"+html.EscapeString(content)+"</p>", "floor", time.Now().Unix()).Scan(&id)
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
