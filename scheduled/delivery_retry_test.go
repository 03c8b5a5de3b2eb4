package scheduled_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/syncbuf"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// errDiskOnFire is a store failure that is not a *chatcore.Error.
var errDiskOnFire = errors.New("disk on fire")

// poisonStore fails, with onPoison's error, every write marking the poisoned
// scheduled message delivered.
type poisonStore struct {
	chatcore.Store
	poisoned atomic.Int64
	attempts atomic.Int32 // writes refused so far
	onPoison func(n int32) error
}

func (p *poisonStore) Update(ctx context.Context, fn func(chatcore.Tx) error) error {
	return p.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(poisonTx{Tx: tx, p: p}) })
}

type poisonTx struct {
	chatcore.Tx
	p *poisonStore
}

func (t poisonTx) UpdateScheduledMessage(ctx context.Context, m *chatcore.ScheduledMessage) error {
	if int64(m.ID) == t.p.poisoned.Load() && m.Delivered {
		if err := t.p.onPoison(t.p.attempts.Add(1)); err != nil {
			return err
		}
	}
	return t.Tx.UpdateScheduledMessage(ctx, m)
}

// poisonWorld schedules three channel messages a minute apart from c.Member
// and poisons the middle one.
func poisonWorld(t *testing.T, onPoison func(n int32) error) (w *chattest.World, c *chattest.Cast, ps *poisonStore, logs *syncbuf.Buffer, rows [3]chatcore.ScheduledMessageID) {
	t.Helper()
	is := is.New(t)
	logs = &syncbuf.Buffer{}
	ps = &poisonStore{Store: memory.New(), onPoison: onPoison}
	w = chattest.New(t, chattest.OnStore(ps), chattest.With(chatcore.WithLogger(slog.New(slog.NewTextHandler(logs, nil)))))
	c = w.SeedCast(t)
	st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	for i, text := range []string{"first", "poisoned", "after"} {
		id, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduled.CreateRequest{
			Type: "stream", To: json.RawMessage(strconv.FormatInt(int64(st.ID), 10)), Topic: new("t"), Content: text,
			DeliverAt: chattest.Epoch.Add(time.Hour + time.Duration(i)*time.Minute),
		})
		is.NoErr(err) // scheduled
		rows[i] = id
	}
	ps.poisoned.Store(int64(rows[1]))
	w.Clock.Advance(time.Hour + 3*time.Minute)
	w.Events.Reset()
	return w, c, ps, logs, rows
}

func TestDeliverDueUnexpectedErrorMarksFailed(t *testing.T) {
	is := is.New(t)
	w, c, ps, logs, rows := poisonWorld(t, func(int32) error { return errDiskOnFire })
	n, err := scheduled.DeliverDue(t.Context(), w.Svc)
	is.NoErr(err)                              // an unexpected error on one row is not DeliverDue's error
	is.Equal(n, 2)                             // the rows before and after it were delivered
	is.Equal(ps.attempts.Load(), int32(2))     // the bad row was tried twice
	is.True(w.Scheduled(t, rows[0]).Delivered) // before: delivered
	is.True(w.Scheduled(t, rows[2]).Delivered) // after: delivered
	bad := w.Scheduled(t, rows[1])
	is.True(bad.Failed)                                      // marked failed
	is.True(!bad.Delivered)                                  // not delivered
	is.Equal(bad.FailureMessage, "Internal server error")    // Zulip's generic reason
	is.True(strings.Contains(logs.String(), "disk on fire")) // the cause is logged

	updates := w.Events.OfType("scheduled_messages", "op", "update")
	is.Equal(len(updates), 1) // the sender hears about it
	view := updates[0].Data["scheduled_message"].(scheduled.View)
	is.Equal(view.ScheduledMessageID, rows[1]) // the failed row
	notices := w.DirectMessagesTo(t, c.Member, chatcore.NotificationBotName)
	is.Equal(len(notices), 1)                                                    // one notice
	is.True(strings.Contains(notices[0], "error:\n\n> Internal server error\n")) // naming the generic reason

	n, err = scheduled.DeliverDue(t.Context(), w.Svc)
	is.NoErr(err)                          // runs again
	is.Equal(n, 0)                         // nothing left
	is.Equal(ps.attempts.Load(), int32(2)) // the failed row is skipped, not sent again
}

func TestDeliverDuePassingErrorRetried(t *testing.T) {
	is := is.New(t)
	w, _, ps, _, rows := poisonWorld(t, func(n int32) error {
		if n == 1 {
			return errDiskOnFire
		}
		return nil
	})
	n, err := scheduled.DeliverDue(t.Context(), w.Svc)
	is.NoErr(err)                          // no error
	is.Equal(n, 3)                         // all three delivered
	is.Equal(ps.attempts.Load(), int32(2)) // the second try went through
	row := w.Scheduled(t, rows[1])
	is.True(row.Delivered && !row.Failed) // a passing fault costs nothing
}

func TestDeliverDueStopsWhenContextEnds(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w, _, ps, _, rows := poisonWorld(t, func(int32) error {
		cancel()
		return context.Canceled
	})
	n, err := scheduled.DeliverDue(ctx, w.Svc)
	is.True(errors.Is(err, context.Canceled)) // the context's error is returned
	is.Equal(n, 1)                            // the row before was delivered
	is.Equal(ps.attempts.Load(), int32(1))    // not tried again
	row := w.Scheduled(t, rows[1])
	is.True(!row.Failed && !row.Delivered)      // left pending
	is.True(!w.Scheduled(t, rows[2]).Delivered) // later rows wait for the next call
}
