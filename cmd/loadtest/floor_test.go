package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/testenv"
)

// TestFloorSmall runs the floor comparison (the full one is
// `go run ./cmd/loadtest -floor`) with tiny counts so it cannot rot: both
// servers and the ceiling answer 200 success to every request, every round
// is reported, and the table has every request with its ratios.
func TestFloorSmall(t *testing.T) { floorSmall(t) }

// TestFloorSmallPostgres runs the same comparison on PostgreSQL (needs
// CHATCORE_TEST_POSTGRES): the real server on the PostgreSQL store and the
// floor on the same schema, which the run creates and drops.
func TestFloorSmallPostgres(t *testing.T) {
	url := testenv.PostgresURL(t)
	out := floorSmall(t, "-db", url)
	schema := regexp.MustCompile(`schema (chatcore_loadtest_[0-9a-f]+)`).FindStringSubmatch(out)
	is := is.New(t)
	is.True(schema != nil) // the report names the schema of the run
	conn, err := pgx.Connect(t.Context(), url)
	is.NoErr(err) // the database is reachable
	defer conn.Close(t.Context())
	var left int
	is.NoErr(conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_namespace WHERE nspname = $1", schema[1]).Scan(&left))
	is.Equal(left, 0) // the run's schema is dropped
}

// floorSmall runs the floor comparison with tiny counts and the extra
// arguments, checks its report and returns it.
func floorSmall(t *testing.T, args ...string) string {
	is := is.New(t)
	var out strings.Builder
	err := run(t.Context(), append([]string{"-floor", "-n", "24", "-c", "3"}, args...), &out)
	t.Log(out.String())
	is.NoErr(err) // every request answered 200 success, the sends all stored
	rounds := regexp.MustCompile(`(?m)^  round \d (chatcore|floor|ceiling) +(.+?) +\d+ req/s  statuses: (\S+)(  cpu .*)?$`).FindAllStringSubmatch(out.String(), -1)
	postgres := slices.Contains(args, "-db")
	want, floorVariants := 0, 0
	for _, r := range floorRequests(nil, postgres) {
		want += 2 * floorRounds // chatcore and the floor
		if r.floorPath == "" {
			want += floorRounds // and the ceiling, but for the floor's variants
		} else {
			floorVariants++
		}
	}
	is.Equal(len(rounds), want) // every request × its servers × the rounds
	servers := map[string]int{}
	for _, r := range rounds {
		servers[r[1]]++
		is.Equal(r[3], "200×24") // every request of the round answered 200
	}
	is.Equal(servers["chatcore"], servers["floor"])                             // both servers measured alike
	is.Equal(servers["ceiling"], servers["chatcore"]-floorRounds*floorVariants) // the ceiling beside each plain request
	names := []string{"PATCH /settings enter_sends=true", "PATCH /settings enter_sends toggled",
		"POST /messages/flags starred toggled", "POST /messages (channel, Markdown)", "GET /events (dont_block, nothing new)"}
	logged := []string{"POST /messages vs a floor logging its event", "POST /messages vs a floor logging its event unordered"}
	if postgres {
		names = append(names, logged...)
	} else {
		is.True(!strings.Contains(out.String(), logged[0])) // compared on PostgreSQL only
	}
	for _, name := range names {
		ceiling := `\d+ \| \d+\.\d\d`
		if slices.Contains(logged, name) {
			ceiling = `– \| –`
		}
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(name) + "` \\| \\d+ \\| \\d+ \\| \\d+\\.\\d\\d \\| " + ceiling + " \\|$")
		is.True(row.MatchString(out.String())) // the table row with the rates and the ratios
	}
	variants := regexp.MustCompile("(?m)^\\| `(.+)` against `POST /messages \\(channel, Markdown\\)` \\| \\d+ \\| \\d+ \\| \\d+\\.\\d\\d \\|$").FindAllStringSubmatch(out.String(), -1)
	if postgres {
		is.Equal(len(variants), 2) // each logging floor against the plain one
		is.Equal(variants[0][1], logged[0])
		is.Equal(variants[1][1], logged[1])
	} else {
		is.Equal(len(variants), 0) // no variant on SQLite
	}
	if runtime.GOOS == "linux" { // where /proc gives CPU times
		for _, r := range rounds {
			is.True(r[4] != "") // every round's CPU time per request
		}
		row := regexp.MustCompile("(?m)^\\| `POST /messages \\(channel, Markdown\\)` \\| \\d+\\.\\d{3} \\| \\d+\\.\\d{3} \\| (\\d+\\.\\d\\d|–) \\| \\d+\\.\\d{3} \\| (\\d+\\.\\d\\d|–) \\|$")
		is.True(row.MatchString(out.String())) // the CPU table's row (a tiny round may measure no tick)
	}
	is.True(strings.Contains(out.String(), "OK: every request of every server answered 200 success")) // the verdict
	return out.String()
}

// TestFloorServerRefuses checks that the floor server is a correct one for
// what it serves: wrong credentials get 401, requests it cannot honour 400.
func TestFloorServerRefuses(t *testing.T) {
	cfg := config{db: filepath.Join(t.TempDir(), "floor.db"), clients: 2}
	srv, err := startServer(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	fl, err := startFloor(t.Context(), cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.close(t.Context())
	wrongKey := "Basic " + base64.StdEncoding.EncodeToString([]byte(email(firstClientID)+":"+apiKey(firstClientID+1)))
	unknown := "Basic " + base64.StdEncoding.EncodeToString([]byte("nobody@load.test:"+apiKey(firstClientID)))
	send := url.Values{"type": {"stream"}, "to": {"load"}, "topic": {"t"}, "content": {"hi"}}
	tests := []struct {
		name, auth, method, path string
		form                     url.Values
		status                   int
	}{
		{"settings", basic(firstClientID), "PATCH", "/api/v1/settings", url.Values{"enter_sends": {"true"}}, 200},
		{"send", basic(firstClientID), "POST", "/api/v1/messages",
			url.Values{"type": {"stream"}, "to": {"Load"}, "topic": {"t"}, "content": {"**a** < b"}}, 200},
		{"wrong key", wrongKey, "POST", "/api/v1/messages", send, 401},
		{"unknown user", unknown, "PATCH", "/api/v1/settings", url.Values{"enter_sends": {"true"}}, 401},
		{"no credentials", "", "PATCH", "/api/v1/settings", url.Values{"enter_sends": {"true"}}, 401},
		{"other setting", basic(firstClientID), "PATCH", "/api/v1/settings", url.Values{"color_scheme": {"2"}}, 400},
		{"not a boolean", basic(firstClientID), "PATCH", "/api/v1/settings", url.Values{"enter_sends": {"maybe"}}, 400},
		{"unknown channel", basic(firstClientID), "POST", "/api/v1/messages",
			url.Values{"type": {"stream"}, "to": {"nowhere"}, "topic": {"t"}, "content": {"hi"}}, 400},
		{"direct message", basic(firstClientID), "POST", "/api/v1/messages",
			url.Values{"type": {"direct"}, "to": {"load"}, "topic": {"t"}, "content": {"hi"}}, 400},
		{"no content", basic(firstClientID), "POST", "/api/v1/messages",
			url.Values{"type": {"stream"}, "to": {"load"}, "topic": {"t"}}, 400},
		{"star", basic(firstClientID), "POST", "/api/v1/messages/flags",
			url.Values{"messages": {"[1001]"}, "op": {"add"}, "flag": {"starred"}}, 200},
		{"star a missing message", basic(firstClientID), "POST", "/api/v1/messages/flags",
			url.Values{"messages": {"[999999]"}, "op": {"add"}, "flag": {"starred"}}, 400},
		{"another flag", basic(firstClientID), "POST", "/api/v1/messages/flags",
			url.Values{"messages": {"[1001]"}, "op": {"add"}, "flag": {"read"}}, 400},
		{"unknown queue", basic(firstClientID), "GET", "/api/v1/events?queue_id=nope&last_event_id=-1&dont_block=true", nil, 400},
		{"blocking poll", basic(firstClientID), "GET", "/api/v1/events?queue_id=nope&last_event_id=-1", nil, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			req, err := http.NewRequestWithContext(t.Context(), tt.method, fl.base+tt.path, strings.NewReader(tt.form.Encode()))
			is.NoErr(err) // a valid request
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			is.NoErr(err) // the floor server answers
			resp.Body.Close()
			is.Equal(resp.StatusCode, tt.status) // accepted or refused as it should be
		})
	}
	is := is.New(t)
	readers := fl.db.(*sqliteFloor).readers
	var enter int
	is.NoErr(readers.QueryRow("SELECT enter_sends FROM users WHERE id = ?", firstClientID).Scan(&enter)) // the user exists
	is.Equal(enter, 1)                                                                                   // the settings request wrote its one column
	var rendered string
	is.NoErr(readers.QueryRow("SELECT rendered_content FROM messages WHERE sender_id = ? AND client = 'floor'", firstClientID).Scan(&rendered)) // one floor message
	is.Equal(rendered, "<p>**a** &lt; b</p>")
	var flags int
	is.NoErr(readers.QueryRow("SELECT flags FROM user_message_flags WHERE user_id = ? AND message_id = 1001", firstClientID).Scan(&flags)) // the star's row
	is.True(flags&2 != 0)                                                                                                                  // starred
}

// TestFloorOnly checks -only: the comparison runs the requests it names and
// no other, and a text that names none is refused before anything starts.
func TestFloorOnly(t *testing.T) {
	is := is.New(t)
	var out strings.Builder
	err := run(t.Context(), []string{"-floor", "-n", "12", "-c", "2", "-only", "POST /messages ("}, &out)
	is.NoErr(err) // the one request compared
	rows := regexp.MustCompile("(?m)^\\| `(.+?)` \\| \\d+ \\| \\d+ \\| \\d+\\.\\d\\d \\| \\d+ \\| \\d+\\.\\d\\d \\|$").FindAllStringSubmatch(out.String(), -1)
	is.Equal(len(rows), 1)                                     // one row
	is.Equal(rows[0][1], "POST /messages (channel, Markdown)") // the one named
	err = run(t.Context(), []string{"-floor", "-only", "DELETE"}, &out)
	is.True(err != nil && strings.Contains(err.Error(), `-only "DELETE" names no request`)) // refused
}

// TestPostgresFloorLogsEvent checks the floor's sends with their event
// logged, in order and unordered (needs CHATCORE_TEST_POSTGRES): each stores
// the message and one log entry for it, in the load channel's realm,
// addressed to the audience of the channel's active subscribers, which the
// two share; the plain send logs nothing.
func TestPostgresFloorLogsEvent(t *testing.T) {
	is := is.New(t)
	cfg := config{db: testenv.PostgresURL(t), clients: 2}
	drop, err := createSchema(t.Context(), &cfg)
	is.NoErr(err) // the run's schema
	defer drop()
	srv, err := startServer(t.Context(), cfg)
	is.NoErr(err) // the real server migrates and seeds it
	defer srv.close()
	fl, err := startFloor(t.Context(), cfg, 2)
	is.NoErr(err)
	defer fl.close(t.Context())
	pool := fl.db.(*postgresFloor).pool
	count := func(query string, args ...any) int {
		var n int
		is.NoErr(pool.QueryRow(t.Context(), query, args...).Scan(&n))
		return n
	}
	send := func(path, content string) int64 {
		form := url.Values{"type": {"stream"}, "to": {"load"}, "topic": {"t"}, "content": {content}}
		req, err := http.NewRequestWithContext(t.Context(), "POST", fl.base+path, strings.NewReader(form.Encode()))
		is.NoErr(err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", basic(firstClientID))
		resp, err := http.DefaultClient.Do(req)
		is.NoErr(err)
		defer resp.Body.Close()
		is.Equal(resp.StatusCode, http.StatusOK) // sent
		var body struct{ ID int64 }
		is.NoErr(json.NewDecoder(resp.Body).Decode(&body))
		return body.ID
	}
	entries := count("SELECT count(*) FROM event_log")
	send("/api/v1/messages", "plain")
	is.Equal(count("SELECT count(*) FROM event_log"), entries) // the plain send logs nothing

	var subscribers []int64
	is.NoErr(pool.QueryRow(t.Context(), "SELECT array_agg(user_id ORDER BY user_id) FROM subscriptions WHERE stream_id = $1 AND active",
		loadChannel).Scan(&subscribers))
	is.True(len(subscribers) > 0)
	for _, path := range []string{floorLoggedSendPath, floorUnorderedSendPath} {
		id := send(path, "logged **too**")
		is.Equal(count("SELECT count(*) FROM messages WHERE id = $1 AND client = 'floor'", id), 1) // the message
		var (
			entry, realm int64
			users        []int64
			data         []byte
		)
		var hash []byte
		is.NoErr(pool.QueryRow(t.Context(), `SELECT e.id, e.realm_id, e.data, a.hash,
				ARRAY(SELECT user_id FROM event_audience_users WHERE audience_id = e.audience_id ORDER BY user_id)
			FROM event_log e JOIN event_audiences a ON a.id = e.audience_id ORDER BY e.id DESC LIMIT 1`).
			Scan(&entry, &realm, &data, &hash, &users)) // the newest entry
		is.Equal(realm, int64(floorRealm))
		var event floorMessageEvent
		is.NoErr(json.Unmarshal(data, &event))
		is.Equal(event.Type, "message")
		is.Equal(event.Message.ID, id) // the message's event
		is.Equal(users, subscribers)   // addressed to the channel's subscribers
		ids := make([]byte, 0, 8*len(subscribers))
		for _, u := range subscribers {
			ids = binary.BigEndian.AppendUint64(ids, uint64(u))
		}
		want := sha256.Sum256(ids)
		is.Equal(hash, want[:]) // under the hash the store keys the audience by
	}
	is.Equal(count("SELECT count(DISTINCT audience_id) FROM event_log WHERE audience_id <> 0"), 1) // both sends share it
}
