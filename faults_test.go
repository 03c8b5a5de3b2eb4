package chatcore_test

// Faults: store errors and context cancellation injected at every step of
// an operation. A step is each Store.Update or Store.View call and each Tx
// method call; for each step N the operation runs on a fresh world with the
// fault at step N, until a run finishes without reaching N. Every run must:
//   - fail with the fault's error, never a *chatcore.Error (a store failure
//     is not bad input), or succeed with the outcome of a clean run;
//   - leave the store exactly as the clean run left it after some number of
//     its committed transactions (nothing half-written);
//   - publish events only right after a committed transaction, once;
//   - be completed by simply repeating the call, giving the clean outcome.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// fzDeliveryTime is the fixed clock of the fault tests: after the due
// scheduled messages of fzWorldJSON, within the late cutoff.
var fzDeliveryTime = time.Unix(1767262000, 0).UTC()

var errFltInjected = errors.New("injected store failure")

// fltMode is the kind of fault injected.
type fltMode int

const (
	fltFail   fltMode = iota // the step returns errFltInjected
	fltCancel                // the step cancels the operation's context, then proceeds
)

func (m fltMode) String() string { return [...]string{"store error", "cancel"}[m] }

// fltStore wraps a Store, counting steps and injecting one fault. It also
// tracks commits, so that the event sink can tell whether events follow a
// committed transaction.
type fltStore struct {
	chatcore.Store
	mu        sync.Mutex
	at        int // the step to fault; 0: none
	mode      fltMode
	cancel    context.CancelFunc
	n         int
	hit       bool
	committed bool // the last Update committed, and its events are not out yet
	published int  // Publish calls that followed a commit
	stray     int  // Publish calls that did not
	// onCommit, when set, runs after each committed Update (outside the lock).
	onCommit func()
}

func (f *fltStore) step() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.n != f.at {
		return nil
	}
	f.hit = true
	if f.mode == fltCancel {
		f.cancel()
		return nil
	}
	return errFltInjected
}

// Update implements chatcore.Store.
func (f *fltStore) Update(ctx context.Context, fn func(chatcore.Tx) error) error {
	f.mu.Lock()
	f.committed = false
	f.mu.Unlock()
	if err := f.step(); err != nil {
		return err
	}
	err := f.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(fltTx{tx, f}) })
	if err == nil {
		f.mu.Lock()
		f.committed = true
		f.mu.Unlock()
		if f.onCommit != nil {
			f.onCommit()
		}
	}
	return err
}

// View implements chatcore.Store.
func (f *fltStore) View(ctx context.Context, fn func(chatcore.Tx) error) error {
	if err := f.step(); err != nil {
		return err
	}
	return f.Store.View(ctx, func(tx chatcore.Tx) error { return fn(fltTx{tx, f}) })
}

// Publish implements chatcore.EventSink: it counts event batches that follow a
// commit (once per commit) and stray ones.
func (f *fltStore) Publish(_ context.Context, _ []chatcore.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.committed {
		f.published++
		f.committed = false
		return
	}
	f.stray++
}

// fltTx is a Tx whose every method is a step of its fltStore.
type fltTx struct {
	chatcore.Tx
	f *fltStore
}

// fltStep makes call one step of f: when the step faults, its error
// replaces the call.
func fltStep[T any](f *fltStore, call func() (T, error)) (T, error) {
	if err := f.step(); err != nil {
		var zero T
		return zero, err
	}
	return call()
}

// fltStepErr is fltStep for a method that returns only an error.
func fltStepErr(f *fltStore, call func() error) error {
	if err := f.step(); err != nil {
		return err
	}
	return call()
}

func (t fltTx) Realm(ctx context.Context, id chatcore.RealmID) (*chatcore.Realm, error) {
	return fltStep(t.f, func() (*chatcore.Realm, error) { return t.Tx.Realm(ctx, id) })
}

func (t fltTx) RealmByStringID(ctx context.Context, stringID string) (*chatcore.Realm, error) {
	return fltStep(t.f, func() (*chatcore.Realm, error) { return t.Tx.RealmByStringID(ctx, stringID) })
}

func (t fltTx) Realms(ctx context.Context) ([]chatcore.Realm, error) {
	return fltStep(t.f, func() ([]chatcore.Realm, error) { return t.Tx.Realms(ctx) })
}

func (t fltTx) CreateRealm(ctx context.Context, r *chatcore.Realm) error {
	return fltStepErr(t.f, func() error { return t.Tx.CreateRealm(ctx, r) })
}

func (t fltTx) UpdateRealm(ctx context.Context, r *chatcore.Realm) error {
	return fltStepErr(t.f, func() error { return t.Tx.UpdateRealm(ctx, r) })
}

func (t fltTx) User(ctx context.Context, id chatcore.UserID) (*chatcore.User, error) {
	return fltStep(t.f, func() (*chatcore.User, error) { return t.Tx.User(ctx, id) })
}

func (t fltTx) UserByEmail(ctx context.Context, realm chatcore.RealmID, email string) (*chatcore.User, error) {
	return fltStep(t.f, func() (*chatcore.User, error) { return t.Tx.UserByEmail(ctx, realm, email) })
}

func (t fltTx) UserByAPIKeyHash(ctx context.Context, hash string) (*chatcore.User, error) {
	return fltStep(t.f, func() (*chatcore.User, error) { return t.Tx.UserByAPIKeyHash(ctx, hash) })
}

func (t fltTx) Users(ctx context.Context, f chatcore.UserFilter) ([]chatcore.User, error) {
	return fltStep(t.f, func() ([]chatcore.User, error) { return t.Tx.Users(ctx, f) })
}

func (t fltTx) CreateUser(ctx context.Context, u *chatcore.User) error {
	return fltStepErr(t.f, func() error { return t.Tx.CreateUser(ctx, u) })
}

func (t fltTx) UpdateUser(ctx context.Context, u *chatcore.User) error {
	return fltStepErr(t.f, func() error { return t.Tx.UpdateUser(ctx, u) })
}

func (t fltTx) BotServices(ctx context.Context, bot chatcore.UserID) ([]chatcore.BotService, error) {
	return fltStep(t.f, func() ([]chatcore.BotService, error) { return t.Tx.BotServices(ctx, bot) })
}

func (t fltTx) CreateBotService(ctx context.Context, s *chatcore.BotService) error {
	return fltStepErr(t.f, func() error { return t.Tx.CreateBotService(ctx, s) })
}

func (t fltTx) UpdateSettingBulk(ctx context.Context, u chatcore.BulkSettingUpdate) ([]chatcore.UserID, error) {
	return fltStep(t.f, func() ([]chatcore.UserID, error) { return t.Tx.UpdateSettingBulk(ctx, u) })
}

func (t fltTx) RecordSettingEdits(ctx context.Context, user chatcore.UserID, settings []string) error {
	return fltStepErr(t.f, func() error { return t.Tx.RecordSettingEdits(ctx, user, settings) })
}

func (t fltTx) EditedSettings(ctx context.Context, user chatcore.UserID) ([]string, error) {
	return fltStep(t.f, func() ([]string, error) { return t.Tx.EditedSettings(ctx, user) })
}

func (t fltTx) Group(ctx context.Context, id chatcore.GroupID) (*chatcore.Group, error) {
	return fltStep(t.f, func() (*chatcore.Group, error) { return t.Tx.Group(ctx, id) })
}

func (t fltTx) Groups(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Group, error) {
	return fltStep(t.f, func() ([]chatcore.Group, error) { return t.Tx.Groups(ctx, realm) })
}

func (t fltTx) CreateGroup(ctx context.Context, g *chatcore.Group) error {
	return fltStepErr(t.f, func() error { return t.Tx.CreateGroup(ctx, g) })
}

func (t fltTx) GroupMembers(ctx context.Context, ids []chatcore.GroupID) ([]chatcore.UserID, error) {
	return fltStep(t.f, func() ([]chatcore.UserID, error) { return t.Tx.GroupMembers(ctx, ids) })
}

func (t fltTx) Stream(ctx context.Context, id chatcore.StreamID) (*chatcore.Stream, error) {
	return fltStep(t.f, func() (*chatcore.Stream, error) { return t.Tx.Stream(ctx, id) })
}

func (t fltTx) StreamByName(ctx context.Context, realm chatcore.RealmID, name string) (*chatcore.Stream, error) {
	return fltStep(t.f, func() (*chatcore.Stream, error) { return t.Tx.StreamByName(ctx, realm, name) })
}

func (t fltTx) Streams(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Stream, error) {
	return fltStep(t.f, func() ([]chatcore.Stream, error) { return t.Tx.Streams(ctx, realm) })
}

func (t fltTx) CreateStream(ctx context.Context, s *chatcore.Stream) error {
	return fltStepErr(t.f, func() error { return t.Tx.CreateStream(ctx, s) })
}

func (t fltTx) UpdateStream(ctx context.Context, s *chatcore.Stream) error {
	return fltStepErr(t.f, func() error { return t.Tx.UpdateStream(ctx, s) })
}

func (t fltTx) Subscription(ctx context.Context, stream chatcore.StreamID, user chatcore.UserID) (*chatcore.Subscription, error) {
	return fltStep(t.f, func() (*chatcore.Subscription, error) { return t.Tx.Subscription(ctx, stream, user) })
}

func (t fltTx) Subscriptions(ctx context.Context, stream chatcore.StreamID, user chatcore.UserID) ([]chatcore.Subscription, error) {
	return fltStep(t.f, func() ([]chatcore.Subscription, error) { return t.Tx.Subscriptions(ctx, stream, user) })
}

func (t fltTx) PutSubscription(ctx context.Context, s chatcore.Subscription) error {
	return fltStepErr(t.f, func() error { return t.Tx.PutSubscription(ctx, s) })
}

func (t fltTx) DeactivateSubscriptions(ctx context.Context, user chatcore.UserID) error {
	return fltStepErr(t.f, func() error { return t.Tx.DeactivateSubscriptions(ctx, user) })
}

func (t fltTx) Message(ctx context.Context, id chatcore.MessageID) (*chatcore.Message, error) {
	return fltStep(t.f, func() (*chatcore.Message, error) { return t.Tx.Message(ctx, id) })
}

func (t fltTx) Messages(ctx context.Context, q chatcore.MessageQuery) ([]chatcore.Message, error) {
	return fltStep(t.f, func() ([]chatcore.Message, error) { return t.Tx.Messages(ctx, q) })
}

func (t fltTx) CreateMessage(ctx context.Context, m *chatcore.Message) error {
	return fltStepErr(t.f, func() error { return t.Tx.CreateMessage(ctx, m) })
}

func (t fltTx) DeleteMessages(ctx context.Context, f chatcore.MessageFilter, limit int) ([]chatcore.DeletedMessage, error) {
	return fltStep(t.f, func() ([]chatcore.DeletedMessage, error) { return t.Tx.DeleteMessages(ctx, f, limit) })
}

func (t fltTx) OldestMessageID(ctx context.Context, stream chatcore.StreamID) (chatcore.MessageID, error) {
	return fltStep(t.f, func() (chatcore.MessageID, error) { return t.Tx.OldestMessageID(ctx, stream) })
}

func (t fltTx) DirectRecipient(ctx context.Context, realm chatcore.RealmID, members []chatcore.UserID) (chatcore.RecipientID, error) {
	return fltStep(t.f, func() (chatcore.RecipientID, error) { return t.Tx.DirectRecipient(ctx, realm, members) })
}

func (t fltTx) DirectRecipients(ctx context.Context, user chatcore.UserID) ([]chatcore.RecipientID, error) {
	return fltStep(t.f, func() ([]chatcore.RecipientID, error) { return t.Tx.DirectRecipients(ctx, user) })
}

func (t fltTx) ScheduledMessage(ctx context.Context, id chatcore.ScheduledMessageID) (*chatcore.ScheduledMessage, error) {
	return fltStep(t.f, func() (*chatcore.ScheduledMessage, error) { return t.Tx.ScheduledMessage(ctx, id) })
}

func (t fltTx) ScheduledMessages(ctx context.Context, f chatcore.ScheduledFilter) ([]chatcore.ScheduledMessage, error) {
	return fltStep(t.f, func() ([]chatcore.ScheduledMessage, error) { return t.Tx.ScheduledMessages(ctx, f) })
}

func (t fltTx) CreateScheduledMessage(ctx context.Context, m *chatcore.ScheduledMessage) error {
	return fltStepErr(t.f, func() error { return t.Tx.CreateScheduledMessage(ctx, m) })
}

func (t fltTx) UpdateScheduledMessage(ctx context.Context, m *chatcore.ScheduledMessage) error {
	return fltStepErr(t.f, func() error { return t.Tx.UpdateScheduledMessage(ctx, m) })
}

func (t fltTx) DeleteScheduledMessage(ctx context.Context, id chatcore.ScheduledMessageID) error {
	return fltStepErr(t.f, func() error { return t.Tx.DeleteScheduledMessage(ctx, id) })
}

func (t fltTx) Linkifier(ctx context.Context, id chatcore.LinkifierID) (*chatcore.Linkifier, error) {
	return fltStep(t.f, func() (*chatcore.Linkifier, error) { return t.Tx.Linkifier(ctx, id) })
}

func (t fltTx) Linkifiers(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Linkifier, error) {
	return fltStep(t.f, func() ([]chatcore.Linkifier, error) { return t.Tx.Linkifiers(ctx, realm) })
}

func (t fltTx) CreateLinkifier(ctx context.Context, l *chatcore.Linkifier) error {
	return fltStepErr(t.f, func() error { return t.Tx.CreateLinkifier(ctx, l) })
}

func (t fltTx) UpdateLinkifier(ctx context.Context, l *chatcore.Linkifier) error {
	return fltStepErr(t.f, func() error { return t.Tx.UpdateLinkifier(ctx, l) })
}

func (t fltTx) DeleteLinkifier(ctx context.Context, id chatcore.LinkifierID) error {
	return fltStepErr(t.f, func() error { return t.Tx.DeleteLinkifier(ctx, id) })
}

func (t fltTx) CreateDraft(ctx context.Context, d *chatcore.Draft) error {
	return fltStepErr(t.f, func() error { return t.Tx.CreateDraft(ctx, d) })
}

func (t fltTx) Drafts(ctx context.Context, user chatcore.UserID) ([]chatcore.Draft, error) {
	return fltStep(t.f, func() ([]chatcore.Draft, error) { return t.Tx.Drafts(ctx, user) })
}

func (t fltTx) DeleteDrafts(ctx context.Context, user chatcore.UserID) (int, error) {
	return fltStep(t.f, func() (int, error) { return t.Tx.DeleteDrafts(ctx, user) })
}

func (t fltTx) DeleteDraftsOf(ctx context.Context, users []chatcore.UserID) (int, error) {
	return fltStep(t.f, func() (int, error) { return t.Tx.DeleteDraftsOf(ctx, users) })
}

func (t fltTx) CreateEmailChange(ctx context.Context, c *chatcore.EmailChange) error {
	return fltStepErr(t.f, func() error { return t.Tx.CreateEmailChange(ctx, c) })
}

func (t fltTx) EmailChange(ctx context.Context, key string) (*chatcore.EmailChange, error) {
	return fltStep(t.f, func() (*chatcore.EmailChange, error) { return t.Tx.EmailChange(ctx, key) })
}

func (t fltTx) DeleteEmailChanges(ctx context.Context, user chatcore.UserID) error {
	return fltStepErr(t.f, func() error { return t.Tx.DeleteEmailChanges(ctx, user) })
}

// fltSnapshot returns everything the store holds for the fault tests to
// compare, as JSON.
func fltSnapshot(tb testing.TB, store chatcore.Store) string {
	tb.Helper()
	ctx := context.Background()
	var parts []any
	err := store.View(ctx, func(tx chatcore.Tx) error {
		realms, err := tx.Realms(ctx)
		if err != nil {
			return err
		}
		parts = append(parts, realms)
		for _, r := range realms {
			users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: r.ID})
			if err != nil {
				return err
			}
			for i := range users {
				// Generated API keys are random: compare only whether there is one.
				if users[i].APIKeyHash != "" {
					users[i].APIKeyHash = "set"
				}
			}
			parts = append(parts, users)
			for _, u := range users {
				edited, err := tx.EditedSettings(ctx, u.ID)
				if err != nil {
					return err
				}
				drafts, err := tx.Drafts(ctx, u.ID)
				if err != nil {
					return err
				}
				subs, err := tx.Subscriptions(ctx, 0, u.ID)
				if err != nil {
					return err
				}
				parts = append(parts, edited, drafts, subs)
			}
			groups, err := tx.Groups(ctx, r.ID)
			if err != nil {
				return err
			}
			streams, err := tx.Streams(ctx, r.ID)
			if err != nil {
				return err
			}
			msgs, err := tx.Messages(ctx, chatcore.MessageQuery{RealmID: r.ID})
			if err != nil {
				return err
			}
			sched, err := tx.ScheduledMessages(ctx, chatcore.ScheduledFilter{RealmID: r.ID})
			if err != nil {
				return err
			}
			links, err := tx.Linkifiers(ctx, r.ID)
			if err != nil {
				return err
			}
			parts = append(parts, groups, streams, msgs, sched, links)
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("snapshot: %v", err)
	}
	b, err := json.Marshal(parts)
	if err != nil {
		tb.Fatalf("snapshot: %v", err)
	}
	return string(b)
}

// fltOp is an operation under test.
type fltOp struct {
	name  string
	empty bool // starts from an empty store rather than fzWorldJSON
	run   func(ctx context.Context, svc *chatcore.Service) error
}

var fltOps = []fltOp{
	{name: "UpdateSettings bulk", run: func(ctx context.Context, svc *chatcore.Service) error {
		return svc.UpdateSettings(ctx, fzAdmin, chatcore.SettingsUpdate{
			ColorScheme: new(2), EnterSends: new(true), EnableDraftsSynchronization: new(false),
			TargetUsers: &chatcore.TargetUsers{UserIDs: []chatcore.UserID{14, 15, 16}, GroupIDs: []chatcore.GroupID{51},
				SkipIfAlreadyEdited: new(false)},
		})
	}},
	{name: "LoadFixture", empty: true, run: func(ctx context.Context, svc *chatcore.Service) error {
		return svc.LoadFixture(ctx, strings.NewReader(fzWorldJSON))
	}},
	{name: "DeleteTopic", run: func(ctx context.Context, svc *chatcore.Service) error {
		res, err := svc.DeleteTopic(ctx, fzAdmin, fzGeneral, "LUNCH")
		if err == nil && !res.Complete {
			return errors.New("topic deletion incomplete")
		}
		return err
	}},
	{name: "DeactivateUser", run: func(ctx context.Context, svc *chatcore.Service) error {
		return svc.DeactivateUser(ctx, fzOwner, fzMember, chatcore.DeactivateUserRequest{
			Actions: &chatcore.DeactivationActions{DeleteProfile: true, DeletePublicChannelMessages: true,
				DeletePrivateChannelMessages: true, DeleteDirectMessages: true},
			DeactivationNotificationComment: new("Thanks"),
		})
	}},
	{name: "DeliverDue", run: func(ctx context.Context, svc *chatcore.Service) error {
		_, err := svc.DeliverDue(ctx)
		return err
	}},
}

// fltWorlds makes fresh worlds on one kind of store.
type fltWorlds struct {
	name string
	// fresh returns a new store holding fzWorldJSON (or nothing, when empty).
	fresh func(tb testing.TB, empty bool) chatcore.Store
	// stride is the distance between faulted steps (1: every step).
	stride int
}

func fltMemoryWorlds() fltWorlds {
	return fltWorlds{name: "memory", fresh: func(tb testing.TB, empty bool) chatcore.Store {
		s := memory.New()
		if !empty {
			fltLoad(tb, s)
		}
		return s
	}}
}

// fltSQLiteWorlds loads the world into a database file once and copies the
// file for each fresh world.
func fltSQLiteWorlds(tb testing.TB) fltWorlds {
	dir := tb.TempDir()
	open := func(tb testing.TB, path string) *sqlite.Store {
		s, err := sqlite.Open(context.Background(), path)
		if err != nil {
			tb.Fatalf("opening %s: %v", path, err)
		}
		return s
	}
	templates := map[bool]string{}
	for _, empty := range []bool{false, true} {
		path := filepath.Join(dir, "template-"+map[bool]string{false: "world", true: "empty"}[empty]+".db")
		s := open(tb, path)
		if !empty {
			fltLoad(tb, s)
		}
		if err := s.Close(); err != nil {
			tb.Fatal(err)
		}
		templates[empty] = path
	}
	n := 0
	return fltWorlds{name: "sqlite", stride: fltSQLiteStride, fresh: func(tb testing.TB, empty bool) chatcore.Store {
		n++
		path := filepath.Join(tb.TempDir(), "world.db")
		for _, suffix := range []string{"", "-wal"} {
			if err := fltCopy(templates[empty]+suffix, path+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				tb.Fatal(err)
			}
		}
		s := open(tb, path)
		tb.Cleanup(func() { s.Close() })
		return s
	}}
}

func fltCopy(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// fltLoad loads fzWorldJSON into s with the fault tests' clock.
func fltLoad(tb testing.TB, s chatcore.Store) {
	tb.Helper()
	svc := chatcore.New(s, chatcore.WithPasswordHasher(plainHasher{}), chatcore.WithClock(chatcore.ClockFunc(func() time.Time { return fzDeliveryTime })))
	if err := svc.LoadFixture(context.Background(), strings.NewReader(fzWorldJSON)); err != nil {
		tb.Fatalf("loading the world: %v", err)
	}
}

// fltService returns a Service over f whose events go to f and mails to m.
func fltService(f *fltStore, m *recordingMailer) *chatcore.Service {
	return chatcore.New(f,
		chatcore.WithPasswordHasher(plainHasher{}),
		chatcore.WithClock(chatcore.ClockFunc(func() time.Time { return fzDeliveryTime })),
		chatcore.WithEventSink(f),
		chatcore.WithMailer(m),
		chatcore.WithTopicDeletion(1, time.Hour),
		chatcore.WithLogger(fltDiscardLogger),
	)
}

func TestFaultsAtEveryStep(t *testing.T) {
	worlds := []fltWorlds{fltMemoryWorlds(), fltSQLiteWorlds(t)}
	for _, w := range worlds {
		for _, op := range fltOps {
			t.Run(w.name+"/"+op.name, func(t *testing.T) {
				fltEveryStep(t, w, op)
			})
		}
	}
}

// fltEveryStep runs op cleanly once, then with each kind of fault at each
// step in turn.
func fltEveryStep(t *testing.T, w fltWorlds, op fltOp) {
	is := is.New(t)
	// The clean run: the snapshots after each commit are the states a faulty
	// run may leave behind.
	inner := w.fresh(t, op.empty)
	f := &fltStore{Store: inner}
	m := &recordingMailer{}
	states := []string{fltSnapshot(t, inner)}
	f.onCommit = func() { states = append(states, fltSnapshot(t, inner)) }
	is.NoErr(op.run(t.Context(), fltService(f, m))) // the clean run succeeds
	final := states[len(states)-1]
	steps, published, mails := f.n, f.published, len(m.all())
	is.Equal(f.stray, 0)        // the clean run publishes only after commits
	is.True(final != states[0]) // the operation changes something
	t.Logf("clean run: %d steps, %d commits, %d event batches, %d e-mails", steps, len(states)-1, published, mails)

	for _, mode := range []fltMode{fltFail, fltCancel} {
		start := 1
		if w.stride > 1 && mode == fltCancel {
			start += w.stride / 2
		}
		for at := start; ; at += max(w.stride, 1) {
			if at > steps+max(w.stride, 1) {
				t.Fatalf("%v at step %d: the operation runs longer than its clean run (%d steps)", mode, at, steps)
			}
			inner := w.fresh(t, op.empty)
			ctx, cancel := context.WithCancel(t.Context())
			f := &fltStore{Store: inner, at: at, mode: mode, cancel: cancel}
			m := &recordingMailer{}
			svc := fltService(f, m)
			err := op.run(ctx, svc)
			cancel()
			if !f.hit {
				is.NoErr(err)                          // without a fault the operation succeeds
				is.Equal(fltSnapshot(t, inner), final) // with the clean outcome
				break
			}
			where := mode.String() + " at step " + strconv.Itoa(at)
			snap := fltSnapshot(t, inner)
			if f.stray != 0 {
				t.Fatalf("%s: %d event batches published without a commit", where, f.stray)
			}
			if err == nil {
				// The fault hit a step after the last commit that does not
				// decide the outcome (e.g. a read for after-commit work).
				if snap != final {
					t.Fatalf("%s: success, but the store differs from the clean run's: %s", where, fltDiff(snap, final))
				}
				continue
			}
			if _, isAPI := errors.AsType[*chatcore.Error](err); isAPI {
				t.Fatalf("%s: a store fault surfaced as a user-facing error: %v", where, err)
			}
			switch mode {
			case fltFail:
				if !errors.Is(err, errFltInjected) {
					t.Fatalf("%s: the injected error was lost: %v", where, err)
				}
			case fltCancel:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: cancellation reported as %v", where, err)
				}
			}
			k := slices.Index(states, snap)
			if k < 0 {
				t.Fatalf("%s: the store holds a state the clean run never committed (half-written): %s", where, fltDiff(snap, states[len(states)-1]))
			}
			if f.published > k {
				t.Fatalf("%s: %d event batches for %d committed transactions", where, f.published, k)
			}
			if len(m.all()) > 0 && k < len(states)-1 {
				t.Fatalf("%s: e-mail sent for work that did not commit", where)
			}
			// Repeating the call finishes the job.
			f.at = 0
			if err := op.run(t.Context(), svc); err != nil {
				t.Fatalf("%s: the repeated call failed: %v", where, err)
			}
			if got := fltSnapshot(t, inner); got != final {
				t.Fatalf("%s: the repeated call did not reach the clean outcome: %s", where, fltDiff(got, final))
			}
			if f.published != published || len(m.all()) != mails {
				t.Fatalf("%s: faulty run + repeat published %d event batches and %d e-mails, the clean run %d and %d",
					where, f.published, len(m.all()), published, mails)
			}
		}
	}
}

// fltDiff shows where two snapshots first differ.
func fltDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-300)
	return fmt.Sprintf("at byte %d\n got: …%s…\nwant: …%s…", i, got[from:min(len(got), i+200)], want[from:min(len(want), i+200)])
}

var fltDiscardLogger = slog.New(slog.DiscardHandler)
