package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
)

// smoke generates a small organisation into the database t, checks what the
// generator wrote against the database, and runs every request once more
// than once, checking that each answers 200 and matches its raw sibling.
func smoke(t *testing.T, db string) {
	ctx := context.Background()
	const messages, users = 2000, 50
	m, err := newModel(7, messages, users)
	if err != nil {
		t.Fatal(err)
	}
	tg := newTarget(db, size{messages, users}, 7)
	if err := tg.reset(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := tg.open(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := generate(ctx, st, m, io.Discard)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	rdb, err := tg.openRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.close()
	count := func(q string, args ...any) int {
		t.Helper()
		ids, err := rdb.query(ctx, rawQuery{sql: q, args: args})
		if err != nil || len(ids) != 1 {
			t.Fatalf("%s: %v %v", q, ids, err)
		}
		return int(ids[0])
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"users", count("SELECT count(*) FROM users"), users},
		{"generated users", counts.users, users},
		{"channels", count("SELECT count(*) FROM streams"), numChannels},
		{"messages", count("SELECT count(*) FROM messages"), messages},
		{"generated messages", counts.messages, messages},
		{"direct messages", count("SELECT count(*) FROM messages WHERE type = 'private'"), counts.direct},
		{"subscriptions", count("SELECT count(*) FROM subscriptions"), counts.subscriptions},
		{"big channel members", count("SELECT count(*) FROM subscriptions WHERE stream_id = ?", int64(bigChannel)), users},
		{"the typical user's channels", count("SELECT count(*) FROM subscriptions WHERE user_id = ?", int64(m.typical)), 1 + typicalOthers},
		// Read marks delete the rows they derive: what stays is at most
		// what was written.
		{"flag rows (at most written)", min(count("SELECT count(*) FROM user_message_flags"), counts.flagRows), count("SELECT count(*) FROM user_message_flags")},
		{"reactions", count("SELECT count(*) FROM reactions"), counts.reactions},
		{"read marks", count("SELECT count(*) FROM read_marks"), counts.readMarks},
		{"links (has)", count("SELECT count(*) FROM messages WHERE (has & 1) <> 0"), counts.links + count("SELECT count(*) FROM messages WHERE (has & 2) <> 0 AND content NOT LIKE '%https://%'")},
		{"images (has)", count("SELECT count(*) FROM messages WHERE (has & 2) <> 0"), counts.images},
		{"mention rows", count("SELECT count(*) FROM user_message_flags WHERE (flags & ?) <> 0", int64(store.FlagMentioned)), counts.mentions},
		// Every message is read for its sender: derived, a row only where
		// they also starred it, which keeps read.
		{"read for their senders", count(`SELECT count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM user_message_flags f
			WHERE f.message_id = m.id AND f.user_id = m.sender_id AND (f.flags & 1) = 0)`), messages},
		{"sender rows that differ from what is derived", count(`SELECT count(*) FROM user_message_flags f JOIN messages m
			ON m.id = f.message_id AND m.sender_id = f.user_id WHERE f.flags = 1`), 0},
		{"channels with a first message", count("SELECT count(*) FROM streams WHERE first_message_id IS NOT NULL AND first_message_id > 0"),
			count("SELECT count(DISTINCT stream_id) FROM messages WHERE stream_id <> 0")},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
	if counts.readMarks < users {
		t.Errorf("%d read marks for %d users", counts.readMarks, users)
	}
	// The shape's shares, loosely: 8% direct, 5% mentions, 10% links.
	for _, c := range []struct {
		what     string
		n        int
		lo, high float64
	}{
		{"direct", counts.direct, 0.05, 0.11},
		{"mentions", counts.mentions, 0.025, 0.075},
		{"links", counts.links, 0.07, 0.13},
		{"images", counts.images, 0.01, 0.05},
	} {
		if share := float64(c.n) / messages; share < c.lo || share > c.high {
			t.Errorf("%s: %.3f of the messages, want %.2f-%.2f", c.what, share, c.lo, c.high)
		}
	}

	// One run each and fewer queued events: the test checks answers, not times.
	defer func(n int) { queuedEvents = n }(queuedEvents)
	queuedEvents = 50
	var out strings.Builder
	rep, err := runTarget(ctx, tg, m, config{runs: 1, timeout: 30 * time.Second}, 500*time.Millisecond, "", &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(rep.results) < 15 {
		t.Errorf("%d requests measured", len(rep.results))
	}
	raws, stores := 0, 0
	for i, r := range rep.results {
		if r.err != nil || r.timeout {
			t.Errorf("%s: %v (timeout %v)", rep.names[i], r.err, r.timeout)
		}
		if r.hasRaw {
			raws++
		}
		if r.hasStore {
			stores++
			if !r.hasRaw || r.store <= 0 {
				t.Errorf("%s: store part %v, raw sibling %v", rep.names[i], r.store, r.hasRaw)
			}
		}
	}
	if raws < 12 {
		t.Errorf("%d requests with a raw sibling, want every read's", raws)
	}
	if stores != 10 {
		t.Errorf("%d requests with a store part, want the 10 GET /messages reads", stores)
	}
	if !strings.Contains(out.String(), "mixed load") {
		t.Errorf("no mixed load report in %q", out.String())
	}
}

func TestSmokeSQLite(t *testing.T) { smoke(t, t.TempDir()) }

func TestSmokePostgres(t *testing.T) {
	url := os.Getenv("CHATCORE_TEST_POSTGRES")
	if url == "" {
		t.Skip("CHATCORE_TEST_POSTGRES is not set")
	}
	t.Cleanup(func() { _ = dropSchema(url, newTarget(url, size{2000, 50}, 7).schema) })
	smoke(t, url)
}

// TestModelIsDeterministic: the runner finds the generated users again from
// the seed alone.
func TestModelIsDeterministic(t *testing.T) {
	a, err := newModel(3, 5000, 300)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newModel(3, 5000, 300)
	c, _ := newModel(4, 5000, 300)
	if a.typical != b.typical || a.unread != b.unread || a.busy != b.busy || len(a.convs) != len(b.convs) {
		t.Errorf("two models of one seed differ")
	}
	same := a.typical == c.typical && a.unread == c.unread && a.busy == c.busy
	if same {
		t.Errorf("seeds 3 and 4 give the same special users")
	}
	if a.user(a.unread).class != readNever || a.user(a.typical).class != readPartial {
		t.Errorf("read classes: unread %v, typical %v", a.user(a.unread).class, a.user(a.typical).class)
	}
}
