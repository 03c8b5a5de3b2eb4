package chatcore_test

// Tests of the settings hardening: the font and line-height bounds, the
// set-based draft deletion of bulk edits, and effects that go out although
// the caller's context ends right after commit. hzEnv also serves the account
// tests (account_test.go).

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
)

// hzEnv is a Service over a memory store (or a wrapper of one) with one realm
// holding an owner and three members whose passwords are "<email>-pw".
type hzEnv struct {
	svcEnv

	owner, ann, ben, cat chatcore.UserID
}

// newHzEnv builds the environment; wrap, when non-nil, wraps the memory store
// the Service sees.
func newHzEnv(tb testing.TB, wrap func(chatcore.Store) chatcore.Store, opts ...chatcore.Option) *hzEnv {
	tb.Helper()
	is := is.New(tb)
	base := memory.New()
	var st chatcore.Store = base
	if wrap != nil {
		st = wrap(base)
	}
	e := &hzEnv{svcEnv: newSvcEnv(st, time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC), "https://chat.acme.test", opts...)}
	ctx := context.Background()
	is.NoErr(base.Update(ctx, func(tx chatcore.Tx) error {
		r := &chatcore.Realm{StringID: "acme", Name: "Acme"}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		e.realm = r.ID
		for _, p := range []struct {
			id   *chatcore.UserID
			name string
			role chatcore.Role
		}{{&e.owner, "Olga", chatcore.RoleOwner}, {&e.ann, "Ann", chatcore.RoleMember},
			{&e.ben, "Ben", chatcore.RoleMember}, {&e.cat, "Cat", chatcore.RoleMember}} {
			email := fmt.Sprintf("%s@acme.test", p.name)
			u := &chatcore.User{RealmID: r.ID, Email: email, FullName: p.name, Role: p.role, IsActive: true,
				PasswordHash: "plain:" + email + "-pw", Settings: chatcore.DefaultSettings()}
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			*p.id = u.ID
		}
		return nil
	})) // fixture written
	return e
}

func TestFontAndLineHeightBounds(t *testing.T) {
	for _, tt := range []struct {
		name  string
		set   func(*chatcore.SettingsUpdate, int)
		value int
		msg   string // "" for success
	}{
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 1, ""},
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 400, ""},
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 32767, ""},
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 0, "web_font_size_px is too small"},
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, -3, "web_font_size_px is too small"},
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 32768, "web_font_size_px is too large"},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 1, ""},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 5000, ""},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 32767, ""},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 0, "web_line_height_percent is too small"},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, -1, "web_line_height_percent is too small"},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 1 << 20, "web_line_height_percent is too large"},
	} {
		t.Run(fmt.Sprintf("%s=%d", tt.name, tt.value), func(t *testing.T) {
			is := is.New(t)
			e := newHzEnv(t, nil)
			var req chatcore.SettingsUpdate
			tt.set(&req, tt.value)
			err := e.svc.UpdateSettings(context.Background(), e.ann, req)
			if tt.msg == "" {
				is.NoErr(err) // within the column's range
				v, _ := e.user(t, e.ann).Settings.Value(tt.name)
				is.Equal(v, tt.value) // stored
				return
			}
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
		})
	}
}

// draftCountingStore wraps a Store and counts the draft deletions made
// through its write transactions.
type draftCountingStore struct {
	chatcore.Store
	perUser, set atomic.Int64
}

func (s *draftCountingStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(draftCountingTx{tx, s}) })
}

type draftCountingTx struct {
	chatcore.Tx
	s *draftCountingStore
}

func (t draftCountingTx) DeleteDrafts(ctx context.Context, user chatcore.UserID) (int, error) {
	t.s.perUser.Add(1)
	return t.Tx.DeleteDrafts(ctx, user)
}

func (t draftCountingTx) DeleteDraftsOf(ctx context.Context, users []chatcore.UserID) (int, error) {
	t.s.set.Add(1)
	return t.Tx.DeleteDraftsOf(ctx, users)
}

func TestBulkDraftsSyncOffDeletesInOneCall(t *testing.T) {
	is := is.New(t)
	counting := &draftCountingStore{}
	e := newHzEnv(t, func(st chatcore.Store) chatcore.Store { counting.Store = st; return counting })
	ctx := context.Background()
	writeStore(t, e.store, func(tx chatcore.Tx) error {
		for _, u := range []chatcore.UserID{e.ann, e.ann, e.ben, e.cat, e.owner} {
			if err := tx.CreateDraft(ctx, &chatcore.Draft{UserID: u, Content: "draft"}); err != nil {
				return err
			}
		}
		return nil
	})
	off := false
	err := e.svc.UpdateSettings(ctx, e.owner, chatcore.SettingsUpdate{
		EnableDraftsSynchronization: &off,
		TargetUsers:                 &chatcore.TargetUsers{UserIDs: []chatcore.UserID{e.ann, e.ben, e.cat}, SkipIfAlreadyEdited: new(false)},
	})
	is.NoErr(err)                               // bulk edit applied
	is.Equal(counting.set.Load(), int64(1))     // one set-based deletion
	is.Equal(counting.perUser.Load(), int64(0)) // no per-user deletion
	for _, c := range []struct {
		user chatcore.UserID
		want int
	}{{e.ann, 0}, {e.ben, 0}, {e.cat, 0}, {e.owner, 1}} {
		ds := readStore(t, e.store, func(ctx context.Context, tx chatcore.Tx) ([]chatcore.Draft, error) { return tx.Drafts(ctx, c.user) })
		is.Equal(len(ds), c.want) // the targeted users' drafts are gone, the owner's kept
	}

	// Users who already have it off are not changed, so nothing is deleted.
	err = e.svc.UpdateSettings(ctx, e.owner, chatcore.SettingsUpdate{
		EnableDraftsSynchronization: &off,
		TargetUsers:                 &chatcore.TargetUsers{UserIDs: []chatcore.UserID{e.ann}, SkipIfAlreadyEdited: new(false)},
	})
	is.NoErr(err)                           // no-op bulk edit
	is.Equal(counting.set.Load(), int64(1)) // no second deletion
}

// cancelAfterCommitStore cancels the caller's context as soon as the inner
// Update has committed: a client hanging up right after the commit.
type cancelAfterCommitStore struct {
	chatcore.Store
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (s *cancelAfterCommitStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	err := s.Store.Update(ctx, fn)
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	return err
}

// ctxMailer and ctxSink record what they were handed and whether the context
// they got was already done.
type ctxMailer struct {
	mu    sync.Mutex
	sent  []chatcore.Email
	ctxOK []bool
}

func (m *ctxMailer) Send(ctx context.Context, e chatcore.Email) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, e)
	m.ctxOK = append(m.ctxOK, ctx.Err() == nil)
	return nil
}

type ctxSink struct {
	mu     sync.Mutex
	events []chatcore.Event
	ctxOK  []bool
}

func (s *ctxSink) Publish(ctx context.Context, evs []chatcore.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, evs...)
	s.ctxOK = append(s.ctxOK, ctx.Err() == nil)
}

func TestEffectsSurviveCancelAfterCommit(t *testing.T) {
	is := is.New(t)
	wrapper := &cancelAfterCommitStore{}
	mailer, sink := &ctxMailer{}, &ctxSink{}
	e := newHzEnv(t, func(st chatcore.Store) chatcore.Store { wrapper.Store = st; return wrapper },
		chatcore.WithMailer(mailer), chatcore.WithEventSink(sink))

	ctx, cancel := context.WithCancel(context.Background())
	wrapper.mu.Lock()
	wrapper.cancel = cancel
	wrapper.mu.Unlock()
	err := e.svc.UpdateSettings(ctx, e.ann, chatcore.SettingsUpdate{Email: new("ann2@example.net"), ColorScheme: new(2)})
	is.NoErr(err)                                   // committed before the cancellation
	is.True(ctx.Err() != nil)                       // the caller's context had ended by the time effects went out
	is.Equal(len(sink.events), 1)                   // the color_scheme event was published
	is.Equal(sink.ctxOK, []bool{true})              // with a context that was not cancelled
	is.Equal(len(mailer.sent), 1)                   // the confirmation link was mailed
	is.Equal(mailer.sent[0].To, "ann2@example.net") // to the new address
	is.Equal(mailer.ctxOK, []bool{true})            // with a context that was not cancelled
	key := regexp.MustCompile(`confirm_new_email/([a-z0-9]{24})`).FindStringSubmatch(mailer.sent[0].Body)
	is.True(key != nil) // the link is in the mail

	ctx2, cancel2 := context.WithCancel(context.Background())
	wrapper.mu.Lock()
	wrapper.cancel = cancel2
	wrapper.mu.Unlock()
	is.NoErr(e.svc.ConfirmEmailChange(ctx2, key[1])) // confirmed, then the context ends
	is.True(ctx2.Err() != nil)                       // cancelled right after the commit
	is.Equal(len(sink.events), 3)                    // both realm_user updates published
	is.Equal(sink.ctxOK, []bool{true, true})         // with a live context
	is.Equal(len(mailer.sent), 2)                    // the notice to the old address was mailed
	is.Equal(mailer.sent[1].To, "Ann@acme.test")     // to the old address
	is.Equal(mailer.ctxOK, []bool{true, true})       // with a live context
}
