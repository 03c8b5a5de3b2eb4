package presence_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/presence"
	"github.com/matryer/is"
)

// ping reports status for u and returns the answer; it fails the test on an
// error.
func ping(tb testing.TB, w *chattest.World, u *chatcore.User, req presence.UpdateRequest) presence.Answer {
	tb.Helper()
	ans, err := presence.Update(context.Background(), w.Svc, u.ID, req)
	if err != nil {
		tb.Fatalf("presence.Update: %v", err)
	}
	return ans
}

func active() presence.UpdateRequest { return presence.UpdateRequest{Status: "active"} }
func idle() presence.UpdateRequest   { return presence.UpdateRequest{Status: "idle"} }

// flush writes the buffered reports.
func flush(tb testing.TB, w *chattest.World) {
	tb.Helper()
	if err := w.Svc.FlushPresence(context.Background()); err != nil {
		tb.Fatalf("FlushPresence: %v", err)
	}
}

// userEmail is u's e-mail as the API shows it (legacy presence keys).
func userEmail(tb testing.TB, w *chattest.World, u *chatcore.User) string {
	tb.Helper()
	v, err := accounts.Me(context.Background(), w.Svc, u.ID)
	if err != nil {
		tb.Fatalf("GetUser: %v", err)
	}
	return v.Email
}

func TestPresenceAnswers(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w := open(t)
		c := w.SeedCast(t)
		t0 := w.Clock.Current()

		ans := ping(t, w, c.Member, active())
		is.Equal(len(ans.Presences), 0)       // the report is not written yet
		is.Equal(ans.LastUpdateID, int64(-1)) // no data, no last_update_id given
		is.Equal(ans.ServerTimestamp, float64(t0.Unix()))
		flush(t, w)

		w.Clock.Advance(10 * time.Second)
		ans = ping(t, w, c.Admin, idle())
		is.Equal(ans.LastUpdateID, int64(1))                                              // the member's row
		is.Equal(ans.Presences, map[string]any{userEmail(t, w, c.Member): map[string]any{ // legacy format, keyed by e-mail
			"aggregated": chatcore.LegacyPresence{Client: "website", Status: "active", Timestamp: t0.Unix()},
			"website":    chatcore.LegacyPresence{Client: "website", Status: "active", Timestamp: t0.Unix(), Pushable: new(false)},
		}})
		flush(t, w)

		slim := ping(t, w, c.Admin, presence.UpdateRequest{Status: "idle", SlimPresence: new(true)})
		is.Equal(slim.LastUpdateID, int64(2))
		is.Equal(slim.Presences, map[string]any{
			strconv.FormatInt(int64(c.Member.ID), 10): presence.Times{ActiveTimestamp: t0.Unix(), IdleTimestamp: t0.Unix()},
			// never active: the joining time stands for it
			strconv.FormatInt(int64(c.Admin.ID), 10): presence.Times{ActiveTimestamp: c.Admin.DateJoined.Unix(), IdleTimestamp: t0.Add(10 * time.Second).Unix()},
		})
		since := ping(t, w, c.Admin, presence.UpdateRequest{Status: "idle", LastUpdateID: new(int64(1))})
		is.Equal(len(since.Presences), 1) // only what changed after 1; last_update_id implies the modern format
		_, ok := since.Presences[strconv.FormatInt(int64(c.Admin.ID), 10)]
		is.True(ok)
		is.Equal(since.LastUpdateID, int64(2))
		none := ping(t, w, c.Admin, presence.UpdateRequest{Status: "idle", LastUpdateID: new(int64(2))})
		is.Equal(len(none.Presences), 0)
		is.Equal(none.LastUpdateID, int64(2)) // nothing new: the client's own id back

		is.Equal(len(ping(t, w, c.Admin, presence.UpdateRequest{Status: "idle", HistoryLimitDays: new(0)}).Presences), 0)
		is.Equal(ping(t, w, c.Admin, presence.UpdateRequest{Status: "idle", PingOnly: new(true)}), presence.Answer{})

		realm, err := presence.Realm(t.Context(), w.Svc, c.Guest.ID)
		is.NoErr(err)
		is.Equal(len(realm.Presences), 2) // legacy, both users
		_, ok = realm.Presences[userEmail(t, w, c.Admin)]
		is.True(ok)

		reg, err := eventqueue.Register(t.Context(), w.Svc, c.Guest.ID, eventqueue.RegisterRequest{Sections: []string{"presence"}, SlimPresence: true})
		is.NoErr(err)
		is.Equal(reg.Presence.Presences, slim.Presences)
		is.Equal(reg.Presence.LastUpdateID, int64(2))

		// Two weeks later the rows are too old for answers without last_update_id.
		w.Clock.Advance(15 * 24 * time.Hour)
		is.Equal(len(ping(t, w, c.Guest, idle()).Presences), 0)
		is.Equal(len(ping(t, w, c.Guest, presence.UpdateRequest{Status: "idle", LastUpdateID: new(int64(1))}).Presences), 1) // a positive id lifts the limit
		is.Equal(len(ping(t, w, c.Guest, presence.UpdateRequest{Status: "idle", HistoryLimitDays: new(30)}).Presences), 2)
	})
}

func TestPresenceRulesAndEvents(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w := open(t)
		c := w.SeedCast(t)
		t0 := w.Clock.Current()
		state := func() *presence.Answer { // read without reporting
			t.Helper()
			st, err := eventqueue.Register(t.Context(), w.Svc, c.Owner.ID, eventqueue.RegisterRequest{Sections: []string{"presence"}, SlimPresence: true})
			is.NoErr(err)
			return st.Presence
		}
		rowOf := func(u *chatcore.User) presence.Times {
			t.Helper()
			return state().Presences[strconv.FormatInt(int64(u.ID), 10)].(presence.Times)
		}
		lastID := func() int64 { return state().LastUpdateID }

		ping(t, w, c.Member, idle())
		flush(t, w)
		evs := w.Events.Take("presence")
		is.Equal(len(evs), 1) // a first report
		ev := evs[0]
		is.Equal(ev.Data["user_id"], c.Member.ID)
		is.Equal(ev.Data["email"], userEmail(t, w, c.Member))
		is.Equal(ev.Data["presence"], map[string]any{"website": chatcore.LegacyPresence{
			Client: "website", Status: "active", Timestamp: c.Member.DateJoined.Unix(), Pushable: new(false)}}) // never active: joined
		is.Equal(len(ev.UserIDs), 6) // every active user and bot of the realm
		base := lastID()

		// Reports within a minute change nothing.
		w.Clock.Advance(30 * time.Second)
		ping(t, w, c.Member, idle())
		flush(t, w)
		is.Equal(lastID(), base)
		// An idle report a minute later moves the connected time only; no event.
		w.Clock.Advance(30 * time.Second)
		ping(t, w, c.Member, idle())
		flush(t, w)
		is.Equal(lastID(), base+1)
		is.Equal(rowOf(c.Member).IdleTimestamp, t0.Add(time.Minute).Unix())
		is.Equal(len(w.Events.Take("presence")), 0)
		// Becoming active: newly online, an event.
		ping(t, w, c.Member, active())
		flush(t, w)
		is.Equal(rowOf(c.Member), presence.Times{ActiveTimestamp: t0.Add(time.Minute).Unix(), IdleTimestamp: t0.Add(time.Minute).Unix()})
		evs = w.Events.Take("presence")
		is.Equal(len(evs), 1)
		is.Equal(evs[0].Data["user_id"], c.Member.ID)
		// Active again a minute later: the times move, still online, no event.
		w.Clock.Advance(time.Minute)
		ping(t, w, c.Member, active())
		flush(t, w)
		is.Equal(rowOf(c.Member).ActiveTimestamp, t0.Add(2*time.Minute).Unix())
		is.Equal(len(w.Events.Take("presence")), 0)
		// After more than 70 s without activity, an active report is news again.
		w.Clock.Advance(2 * time.Minute)
		ping(t, w, c.Member, active())
		flush(t, w)
		is.Equal(len(w.Events.Take("presence")), 1)

		// With presence_enabled off, reports change nothing.
		w.UpdateUser(t, c.Moderator.ID, func(u *chatcore.User) { u.Settings.PresenceEnabled = false })
		ping(t, w, c.Moderator, active())
		flush(t, w)
		_, reported := state().Presences[strconv.FormatInt(int64(c.Moderator.ID), 10)]
		is.True(!reported)

		// Several reports between flushes are one write.
		w.Clock.Advance(2 * time.Minute)
		before := lastID()
		ping(t, w, c.Member, active())
		w.Clock.Advance(time.Second)
		ping(t, w, c.Member, idle())
		flush(t, w)
		is.Equal(lastID(), before+1)
		// Coalesced: the latest report and the latest active one (Zulip, taking
		// them one by one, would keep the first connected time of the two).
		is.Equal(rowOf(c.Member), presence.Times{ActiveTimestamp: t0.Add(6 * time.Minute).Unix(), IdleTimestamp: t0.Add(6*time.Minute + time.Second).Unix()})
	})
}

func TestPresenceNeverWaitsForTheWriter(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		counting := &chattest.CountingStore{}
		w := open(t, chattest.Wrap(func(s chatcore.Store) chatcore.Store { counting.Store = s; return counting }))
		c := w.SeedCast(t)
		for _, u := range []*chatcore.User{c.Owner, c.Admin, c.Member, c.Guest, c.Moderator} {
			ping(t, w, u, active())
			ping(t, w, u, presence.UpdateRequest{Status: "idle", PingOnly: new(true)})
		}
		is.Equal(counting.Count(), chattest.TxCount{Views: 10}) // one read-only transaction per report, no write
		flush(t, w)
		is.Equal(counting.Count().Updates, int64(1)) // one write for every user's reports
		is.NoErr(w.Svc.Shutdown(t.Context()))
		is.Equal(counting.Count().Updates, int64(1)) // nothing left to write
		ping(t, w, c.Member, active())
		is.NoErr(w.Svc.Shutdown(t.Context())) // Shutdown writes what is buffered
		is.Equal(counting.Count().Updates, int64(2))
	})
}

func TestPresenceErrors(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := t.Context()
		w := open(t)
		c := w.SeedCast(t)
		_, err := presence.Update(ctx, w.Svc, c.Member.ID, presence.UpdateRequest{Status: "away"})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid status: away")
		_, err = presence.Update(ctx, w.Svc, c.Deactivated.ID, active())
		chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated")

		user := func(who string, slim bool) (map[string]any, error) {
			return presence.User(ctx, w.Svc, c.Admin.ID, who, slim)
		}
		for _, who := range []string{"999999", strconv.FormatInt(int64(c.Stranger.ID), 10), "king@lear.org", "nobody@zulip.com",
			strconv.FormatInt(int64(c.Deactivated.ID), 10)} {
			_, err := user(who, false)
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "No such user")
		}
		_, err = user(strconv.FormatInt(int64(c.Bot.ID), 10), false)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Presence is not supported for bot users.")
		_, err = user("hamlet@zulip.com", false)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "No presence data for hamlet@zulip.com")

		t0 := w.Clock.Current()
		ping(t, w, c.Member, active())
		flush(t, w)
		p, err := user("hamlet@zulip.com", false)
		is.NoErr(err)
		is.Equal(p, map[string]any{
			"aggregated": chatcore.LegacyPresence{Status: "active", Timestamp: t0.Unix()},
			"website":    chatcore.LegacyPresence{Status: "active", Timestamp: t0.Unix()},
		})
		p, err = user(strconv.FormatInt(int64(c.Member.ID), 10), true)
		is.NoErr(err)
		is.Equal(p, map[string]any{"active_timestamp": t0.Unix(), "idle_timestamp": t0.Unix()})
		w.Clock.Advance(141 * time.Second)
		p, err = user("hamlet@zulip.com", false)
		is.NoErr(err)
		is.Equal(p["aggregated"], chatcore.LegacyPresence{Status: "offline", Timestamp: t0.Unix()}) // past the offline threshold
	})
}
