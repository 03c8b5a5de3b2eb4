package httpadapter_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/sqlitetest"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// TestLockedSQLiteAnswers503: while another process holds a write
// transaction on the database file past the busy timeout, a write answers
// 503 with Retry-After in Zulip's envelope (not a 500) and reads go on;
// once the lock is released, the same write succeeds.
func TestLockedSQLiteAnswers503(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	path := sqlitetest.Path(t)
	st, err := sqlite.Open(ctx, path, sqlite.WithBusyTimeout(50*time.Millisecond))
	is.NoErr(err) // the store opens
	t.Cleanup(func() { _ = st.Close() })
	w, logs, logger := newWorld(t, st, "testdata/fixture.json")
	e := startAdapter(t, w, logs, logger, httpadapter.Options{})

	// A connection of its own, as the sqlite3 shell's, which waits for the
	// write lock as the shell does: the store's full-text indexer may hold
	// it for a moment after the fixture's messages were written.
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	is.NoErr(err) // opened
	defer other.Close()
	conn, err := other.Conn(ctx)
	is.NoErr(err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	is.NoErr(err) // it holds the write lock

	send := request{method: "POST", path: "/messages", auth: &owner, enc: urlEncoded,
		params: params("type", "stream", "to", "general", "topic", "locked", "content", "behind a lock")}
	res := e.do(t, send)
	is.Equal(res.status, http.StatusServiceUnavailable) // retryable, not a 500
	is.Equal(res.header.Get("Retry-After"), "1")        // with when to try again
	is.Equal(res.body["result"], "error")               // in Zulip's envelope
	is.Equal(res.body["code"], "BAD_REQUEST")
	is.Equal(res.body["msg"], "The server is temporarily unable to reach its database; try again shortly")
	is.Equal(num(t, res.body["retry-after"]), int64(1))
	me := e.do(t, request{method: "GET", path: "/users/me", auth: &owner})
	is.Equal(me.status, http.StatusOK) // reads go on

	_, err = conn.ExecContext(ctx, "ROLLBACK")
	is.NoErr(err) // the lock is released
	res = e.do(t, send)
	is.Equal(res.status, http.StatusOK) // the write succeeds now
	got := e.do(t, request{method: "GET", path: fmt.Sprintf("/messages/%d", num(t, res.body["id"])), auth: &owner})
	is.Equal(got.status, http.StatusOK)
	is.Equal(got.body["message"].(map[string]any)["content"], "<p>behind a lock</p>") // and is stored
}
