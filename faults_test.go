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
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// deliveryTime is the fixed clock of the fault tests: after the due
// scheduled messages of chattest.WorldJSON, within the late cutoff.
var deliveryTime = time.Unix(1767262000, 0).UTC()

var errInjectedFault = errors.New("injected store failure")

// faultMode is the kind of fault injected.
type faultMode int

const (
	faultFail   faultMode = iota // the step returns errInjectedFault
	faultCancel                  // the step cancels the operation's context, then proceeds
)

func (m faultMode) String() string { return [...]string{"store error", "cancel"}[m] }

// faultyStore wraps a Store, counting steps and injecting one fault. It also
// tracks commits, so that the event sink can tell whether events follow a
// committed transaction.
type faultyStore struct {
	chatcore.Store
	mu        sync.Mutex
	at        int // the step to fault; 0: none
	mode      faultMode
	cancel    context.CancelFunc
	n         int
	hit       bool
	committed bool // the last Update committed, and its events are not out yet
	published int  // Publish calls that followed a commit
	stray     int  // Publish calls that did not
	// onCommit, when set, runs after each committed Update (outside the lock).
	onCommit func()
}

func (f *faultyStore) step() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.n != f.at {
		return nil
	}
	f.hit = true
	if f.mode == faultCancel {
		f.cancel()
		return nil
	}
	return errInjectedFault
}

// Update implements chatcore.Store.
func (f *faultyStore) Update(ctx context.Context, fn func(chatcore.Tx) error) error {
	f.mu.Lock()
	f.committed = false
	f.mu.Unlock()
	if err := f.step(); err != nil {
		return err
	}
	err := f.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(faultyTx{tx, f}) })
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
func (f *faultyStore) View(ctx context.Context, fn func(chatcore.Tx) error) error {
	if err := f.step(); err != nil {
		return err
	}
	return f.Store.View(ctx, func(tx chatcore.Tx) error { return fn(faultyTx{tx, f}) })
}

// Publish implements chatcore.EventSink: it counts event batches that follow a
// commit (once per commit) and stray ones.
func (f *faultyStore) Publish(_ context.Context, _ []chatcore.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.committed {
		f.published++
		f.committed = false
		return
	}
	f.stray++
}

// faultyTx is a Tx whose every method is a step of its faultyStore. It does
// not embed chatcore.Tx: each method is declared here, so a method added to
// chatcore.Tx and not wrapped fails to compile (the assertion below) instead
// of silently escaping fault injection.
type faultyTx struct {
	tx chatcore.Tx
	f  *faultyStore
}

var _ chatcore.Tx = faultyTx{}

// faultStep makes call one step of f: when the step faults, its error
// replaces the call.
func faultStep[T any](f *faultyStore, call func() (T, error)) (T, error) {
	if err := f.step(); err != nil {
		var zero T
		return zero, err
	}
	return call()
}

// faultStepErr is faultStep for a method that returns only an error.
func faultStepErr(f *faultyStore, call func() error) error {
	if err := f.step(); err != nil {
		return err
	}
	return call()
}

func (t faultyTx) Realm(ctx context.Context, id chatcore.RealmID) (*chatcore.Realm, error) {
	return faultStep(t.f, func() (*chatcore.Realm, error) { return t.tx.Realm(ctx, id) })
}

func (t faultyTx) RealmByStringID(ctx context.Context, stringID string) (*chatcore.Realm, error) {
	return faultStep(t.f, func() (*chatcore.Realm, error) { return t.tx.RealmByStringID(ctx, stringID) })
}

func (t faultyTx) Realms(ctx context.Context) ([]chatcore.Realm, error) {
	return faultStep(t.f, func() ([]chatcore.Realm, error) { return t.tx.Realms(ctx) })
}

func (t faultyTx) CreateRealm(ctx context.Context, r *chatcore.Realm) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateRealm(ctx, r) })
}

func (t faultyTx) UpdateRealm(ctx context.Context, r *chatcore.Realm) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateRealm(ctx, r) })
}

func (t faultyTx) RealmUserDefaults(ctx context.Context, realm chatcore.RealmID) (chatcore.Settings, error) {
	return faultStep(t.f, func() (chatcore.Settings, error) { return t.tx.RealmUserDefaults(ctx, realm) })
}

func (t faultyTx) PutRealmUserDefaults(ctx context.Context, realm chatcore.RealmID, s *chatcore.Settings) error {
	return faultStepErr(t.f, func() error { return t.tx.PutRealmUserDefaults(ctx, realm, s) })
}

func (t faultyTx) User(ctx context.Context, id chatcore.UserID) (*chatcore.User, error) {
	return faultStep(t.f, func() (*chatcore.User, error) { return t.tx.User(ctx, id) })
}

func (t faultyTx) UserByEmail(ctx context.Context, realm chatcore.RealmID, email string) (*chatcore.User, error) {
	return faultStep(t.f, func() (*chatcore.User, error) { return t.tx.UserByEmail(ctx, realm, email) })
}

func (t faultyTx) UserByAPIKeyHash(ctx context.Context, hash string) (*chatcore.User, error) {
	return faultStep(t.f, func() (*chatcore.User, error) { return t.tx.UserByAPIKeyHash(ctx, hash) })
}

func (t faultyTx) KeyHolder(ctx context.Context, hash string) (chatcore.KeyHolder, error) {
	return faultStep(t.f, func() (chatcore.KeyHolder, error) { return t.tx.KeyHolder(ctx, hash) })
}

func (t faultyTx) Users(ctx context.Context, f chatcore.UserFilter) ([]chatcore.User, error) {
	return faultStep(t.f, func() ([]chatcore.User, error) { return t.tx.Users(ctx, f) })
}

func (t faultyTx) CreateUser(ctx context.Context, u *chatcore.User) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateUser(ctx, u) })
}

func (t faultyTx) UpdateUser(ctx context.Context, u *chatcore.User) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateUser(ctx, u) })
}

func (t faultyTx) BotServices(ctx context.Context, bot chatcore.UserID) ([]chatcore.BotService, error) {
	return faultStep(t.f, func() ([]chatcore.BotService, error) { return t.tx.BotServices(ctx, bot) })
}

func (t faultyTx) CreateBotService(ctx context.Context, s *chatcore.BotService) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateBotService(ctx, s) })
}

func (t faultyTx) UpdateUserSettings(ctx context.Context, user chatcore.UserID, changes []chatcore.SettingValue) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateUserSettings(ctx, user, changes) })
}

func (t faultyTx) UpdateSettingBulk(ctx context.Context, u chatcore.BulkSettingUpdate) ([]chatcore.UserID, error) {
	return faultStep(t.f, func() ([]chatcore.UserID, error) { return t.tx.UpdateSettingBulk(ctx, u) })
}

func (t faultyTx) RecordSettingEdits(ctx context.Context, user chatcore.UserID, settings []string) error {
	return faultStepErr(t.f, func() error { return t.tx.RecordSettingEdits(ctx, user, settings) })
}

func (t faultyTx) EditedSettings(ctx context.Context, user chatcore.UserID) ([]string, error) {
	return faultStep(t.f, func() ([]string, error) { return t.tx.EditedSettings(ctx, user) })
}

func (t faultyTx) Group(ctx context.Context, id chatcore.GroupID) (*chatcore.Group, error) {
	return faultStep(t.f, func() (*chatcore.Group, error) { return t.tx.Group(ctx, id) })
}

func (t faultyTx) Groups(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Group, error) {
	return faultStep(t.f, func() ([]chatcore.Group, error) { return t.tx.Groups(ctx, realm) })
}

func (t faultyTx) CreateGroup(ctx context.Context, g *chatcore.Group) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateGroup(ctx, g) })
}

func (t faultyTx) GroupMembers(ctx context.Context, ids []chatcore.GroupID) ([]chatcore.UserID, error) {
	return faultStep(t.f, func() ([]chatcore.UserID, error) { return t.tx.GroupMembers(ctx, ids) })
}

func (t faultyTx) Stream(ctx context.Context, id chatcore.StreamID) (*chatcore.Stream, error) {
	return faultStep(t.f, func() (*chatcore.Stream, error) { return t.tx.Stream(ctx, id) })
}

func (t faultyTx) StreamByName(ctx context.Context, realm chatcore.RealmID, name string) (*chatcore.Stream, error) {
	return faultStep(t.f, func() (*chatcore.Stream, error) { return t.tx.StreamByName(ctx, realm, name) })
}

func (t faultyTx) Streams(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Stream, error) {
	return faultStep(t.f, func() ([]chatcore.Stream, error) { return t.tx.Streams(ctx, realm) })
}

func (t faultyTx) CreateStream(ctx context.Context, s *chatcore.Stream) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateStream(ctx, s) })
}

func (t faultyTx) UpdateStream(ctx context.Context, s *chatcore.Stream) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateStream(ctx, s) })
}

func (t faultyTx) Subscription(ctx context.Context, stream chatcore.StreamID, user chatcore.UserID) (*chatcore.Subscription, error) {
	return faultStep(t.f, func() (*chatcore.Subscription, error) { return t.tx.Subscription(ctx, stream, user) })
}

func (t faultyTx) Subscriptions(ctx context.Context, stream chatcore.StreamID, user chatcore.UserID) ([]chatcore.Subscription, error) {
	return faultStep(t.f, func() ([]chatcore.Subscription, error) { return t.tx.Subscriptions(ctx, stream, user) })
}

func (t faultyTx) PutSubscription(ctx context.Context, s chatcore.Subscription) error {
	return faultStepErr(t.f, func() error { return t.tx.PutSubscription(ctx, s) })
}

func (t faultyTx) DeactivateSubscriptions(ctx context.Context, user chatcore.UserID) error {
	return faultStepErr(t.f, func() error { return t.tx.DeactivateSubscriptions(ctx, user) })
}

func (t faultyTx) Message(ctx context.Context, id chatcore.MessageID) (*chatcore.Message, error) {
	return faultStep(t.f, func() (*chatcore.Message, error) { return t.tx.Message(ctx, id) })
}

func (t faultyTx) Messages(ctx context.Context, q chatcore.MessageQuery) ([]chatcore.Message, error) {
	return faultStep(t.f, func() ([]chatcore.Message, error) { return t.tx.Messages(ctx, q) })
}

func (t faultyTx) MessageIDs(ctx context.Context, q chatcore.MessageQuery) ([]chatcore.MessageID, error) {
	return faultStep(t.f, func() ([]chatcore.MessageID, error) { return t.tx.MessageIDs(ctx, q) })
}

func (t faultyTx) CreateMessage(ctx context.Context, m *chatcore.Message) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateMessage(ctx, m) })
}

func (t faultyTx) CreateMessages(ctx context.Context, ms []*chatcore.Message) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateMessages(ctx, ms) })
}

func (t faultyTx) DeleteMessages(ctx context.Context, f chatcore.MessageFilter, limit int) ([]chatcore.DeletedMessage, error) {
	return faultStep(t.f, func() ([]chatcore.DeletedMessage, error) { return t.tx.DeleteMessages(ctx, f, limit) })
}

func (t faultyTx) OldestMessageID(ctx context.Context, stream chatcore.StreamID) (chatcore.MessageID, error) {
	return faultStep(t.f, func() (chatcore.MessageID, error) { return t.tx.OldestMessageID(ctx, stream) })
}

func (t faultyTx) DirectRecipient(ctx context.Context, realm chatcore.RealmID, members []chatcore.UserID) (chatcore.RecipientID, error) {
	return faultStep(t.f, func() (chatcore.RecipientID, error) { return t.tx.DirectRecipient(ctx, realm, members) })
}

func (t faultyTx) DirectRecipients(ctx context.Context, user chatcore.UserID) ([]chatcore.RecipientID, error) {
	return faultStep(t.f, func() ([]chatcore.RecipientID, error) { return t.tx.DirectRecipients(ctx, user) })
}

func (t faultyTx) ScheduledMessage(ctx context.Context, id chatcore.ScheduledMessageID) (*chatcore.ScheduledMessage, error) {
	return faultStep(t.f, func() (*chatcore.ScheduledMessage, error) { return t.tx.ScheduledMessage(ctx, id) })
}

func (t faultyTx) ScheduledMessages(ctx context.Context, f chatcore.ScheduledFilter) ([]chatcore.ScheduledMessage, error) {
	return faultStep(t.f, func() ([]chatcore.ScheduledMessage, error) { return t.tx.ScheduledMessages(ctx, f) })
}

func (t faultyTx) CreateScheduledMessage(ctx context.Context, m *chatcore.ScheduledMessage) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateScheduledMessage(ctx, m) })
}

func (t faultyTx) UpdateScheduledMessage(ctx context.Context, m *chatcore.ScheduledMessage) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateScheduledMessage(ctx, m) })
}

func (t faultyTx) DeleteScheduledMessage(ctx context.Context, id chatcore.ScheduledMessageID) error {
	return faultStepErr(t.f, func() error { return t.tx.DeleteScheduledMessage(ctx, id) })
}

func (t faultyTx) Linkifier(ctx context.Context, id chatcore.LinkifierID) (*chatcore.Linkifier, error) {
	return faultStep(t.f, func() (*chatcore.Linkifier, error) { return t.tx.Linkifier(ctx, id) })
}

func (t faultyTx) Linkifiers(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Linkifier, error) {
	return faultStep(t.f, func() ([]chatcore.Linkifier, error) { return t.tx.Linkifiers(ctx, realm) })
}

func (t faultyTx) CreateLinkifier(ctx context.Context, l *chatcore.Linkifier) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateLinkifier(ctx, l) })
}

func (t faultyTx) UpdateLinkifier(ctx context.Context, l *chatcore.Linkifier) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateLinkifier(ctx, l) })
}

func (t faultyTx) DeleteLinkifier(ctx context.Context, id chatcore.LinkifierID) error {
	return faultStepErr(t.f, func() error { return t.tx.DeleteLinkifier(ctx, id) })
}

func (t faultyTx) LinkifiersVersion(ctx context.Context, realm chatcore.RealmID) (int64, error) {
	return faultStep(t.f, func() (int64, error) { return t.tx.LinkifiersVersion(ctx, realm) })
}

func (t faultyTx) CreateDraft(ctx context.Context, d *chatcore.Draft) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateDraft(ctx, d) })
}

func (t faultyTx) Drafts(ctx context.Context, user chatcore.UserID) ([]chatcore.Draft, error) {
	return faultStep(t.f, func() ([]chatcore.Draft, error) { return t.tx.Drafts(ctx, user) })
}

func (t faultyTx) DeleteDrafts(ctx context.Context, user chatcore.UserID) (int, error) {
	return faultStep(t.f, func() (int, error) { return t.tx.DeleteDrafts(ctx, user) })
}

func (t faultyTx) DeleteDraftsOf(ctx context.Context, users []chatcore.UserID) (int, error) {
	return faultStep(t.f, func() (int, error) { return t.tx.DeleteDraftsOf(ctx, users) })
}

func (t faultyTx) CreateEmailChange(ctx context.Context, c *chatcore.EmailChange) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateEmailChange(ctx, c) })
}

func (t faultyTx) EmailChange(ctx context.Context, key string) (*chatcore.EmailChange, error) {
	return faultStep(t.f, func() (*chatcore.EmailChange, error) { return t.tx.EmailChange(ctx, key) })
}

func (t faultyTx) DeleteEmailChanges(ctx context.Context, user chatcore.UserID) error {
	return faultStepErr(t.f, func() error { return t.tx.DeleteEmailChanges(ctx, user) })
}

// storeSnapshot returns everything the store holds for the fault tests to
// compare, as JSON.
func storeSnapshot(tb testing.TB, store chatcore.Store) string {
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

// faultOp is an operation under test.
type faultOp struct {
	name  string
	empty bool // starts from an empty store rather than chattest.WorldJSON
	run   func(ctx context.Context, svc *chatcore.Service) error
}

var faultOps = []faultOp{
	{name: "UpdateSettings bulk", run: func(ctx context.Context, svc *chatcore.Service) error {
		return accounts.UpdateSettings(ctx, svc, chattest.WorldAdmin, accounts.SettingsUpdate{
			ColorScheme: new(2), EnterSends: new(true), EnableDraftsSynchronization: new(false),
			TargetUsers: &accounts.TargetUsers{UserIDs: []chatcore.UserID{14, 15, 16}, GroupIDs: []chatcore.GroupID{51},
				SkipIfAlreadyEdited: new(false)},
		})
	}},
	{name: "LoadFixture", empty: true, run: func(ctx context.Context, svc *chatcore.Service) error {
		return fixture.Load(ctx, svc, strings.NewReader(chattest.WorldJSON))
	}},
	{name: "DeleteTopic", run: func(ctx context.Context, svc *chatcore.Service) error {
		res, err := channels.DeleteTopic(ctx, svc, chattest.WorldAdmin, chattest.WorldGeneral, "LUNCH")
		if err == nil && !res.Complete {
			return errors.New("topic deletion incomplete")
		}
		return err
	}},
	{name: "DeactivateUser", run: func(ctx context.Context, svc *chatcore.Service) error {
		return accounts.DeactivateUser(ctx, svc, chattest.WorldOwner, chattest.WorldMember, accounts.DeactivateUserRequest{
			Actions: &accounts.DeactivationActions{DeleteProfile: true, DeletePublicChannelMessages: true,
				DeletePrivateChannelMessages: true, DeleteDirectMessages: true},
			DeactivationNotificationComment: new("Thanks"),
		})
	}},
	{name: "DeliverDue", run: func(ctx context.Context, svc *chatcore.Service) error {
		_, err := scheduled.DeliverDue(ctx, svc)
		return err
	}},
}

// faultWorlds makes fresh worlds on one kind of store.
type faultWorlds struct {
	name string
	// fresh returns a new store holding chattest.WorldJSON (or nothing, when empty).
	fresh func(tb testing.TB, empty bool) chatcore.Store
	// stride is the distance between faulted steps (1: every step).
	stride int
}

func memoryFaultWorlds() faultWorlds {
	return faultWorlds{name: "memory", fresh: func(tb testing.TB, empty bool) chatcore.Store {
		s := memory.New()
		if !empty {
			loadFaultWorld(tb, s)
		}
		return s
	}}
}

// sqliteFaultWorlds loads the world into a database file once and copies the
// file for each fresh world.
func sqliteFaultWorlds(tb testing.TB) faultWorlds {
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
			loadFaultWorld(tb, s)
		}
		if err := s.Close(); err != nil {
			tb.Fatal(err)
		}
		templates[empty] = path
	}
	return faultWorlds{name: "sqlite", stride: sqliteFaultStride, fresh: func(tb testing.TB, empty bool) chatcore.Store {
		path := filepath.Join(tb.TempDir(), "world.db")
		for _, suffix := range []string{"", "-wal"} {
			if err := copyFile(templates[empty]+suffix, path+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				tb.Fatal(err)
			}
		}
		s := open(tb, path)
		tb.Cleanup(func() { s.Close() })
		return s
	}}
}

func copyFile(from, to string) error {
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

// loadFaultWorld loads chattest.WorldJSON into s with the fault tests' clock.
func loadFaultWorld(tb testing.TB, s chatcore.Store) {
	tb.Helper()
	svc := chatcore.New(s, chatcore.WithPasswordHasher(plainHasher{}), chatcore.WithClock(chatcore.ClockFunc(func() time.Time { return deliveryTime })))
	if err := fixture.Load(context.Background(), svc, strings.NewReader(chattest.WorldJSON)); err != nil {
		tb.Fatalf("loading the world: %v", err)
	}
}

// faultService returns a Service over f whose events go to f and mails to m.
func faultService(f *faultyStore, m *chattest.Mailer) *chatcore.Service {
	return chatcore.New(f,
		chatcore.WithPasswordHasher(plainHasher{}),
		chatcore.WithClock(chatcore.ClockFunc(func() time.Time { return deliveryTime })),
		chatcore.WithEventSink(f),
		chatcore.WithMailer(m),
		chatcore.WithTopicDeletion(1, time.Hour),
		chatcore.WithLogger(discardLogger),
	)
}

func TestFaultsAtEveryStep(t *testing.T) {
	worlds := []faultWorlds{memoryFaultWorlds(), sqliteFaultWorlds(t)}
	for _, w := range worlds {
		for _, op := range faultOps {
			t.Run(w.name+"/"+op.name, func(t *testing.T) {
				t.Parallel() // every run has a fresh world of its own
				faultEveryStep(t, w, op)
			})
		}
	}
}

// faultEveryStep runs op cleanly once, then with each kind of fault at each
// step in turn.
func faultEveryStep(t *testing.T, w faultWorlds, op faultOp) {
	is := is.New(t)
	// The clean run: the snapshots after each commit are the states a faulty
	// run may leave behind.
	inner := w.fresh(t, op.empty)
	f := &faultyStore{Store: inner}
	m := &chattest.Mailer{}
	states := []string{storeSnapshot(t, inner)}
	f.onCommit = func() { states = append(states, storeSnapshot(t, inner)) }
	is.NoErr(op.run(t.Context(), faultService(f, m))) // the clean run succeeds
	final := states[len(states)-1]
	steps, published, mails := f.n, f.published, len(m.All())
	is.Equal(f.stray, 0)        // the clean run publishes only after commits
	is.True(final != states[0]) // the operation changes something
	t.Logf("clean run: %d steps, %d commits, %d event batches, %d e-mails", steps, len(states)-1, published, mails)

	for _, mode := range []faultMode{faultFail, faultCancel} {
		start := 1
		if w.stride > 1 && mode == faultCancel {
			start += w.stride / 2
		}
		for at := start; ; at += max(w.stride, 1) {
			if at > steps+max(w.stride, 1) {
				t.Fatalf("%v at step %d: the operation runs longer than its clean run (%d steps)", mode, at, steps)
			}
			inner := w.fresh(t, op.empty)
			ctx, cancel := context.WithCancel(t.Context())
			f := &faultyStore{Store: inner, at: at, mode: mode, cancel: cancel}
			m := &chattest.Mailer{}
			svc := faultService(f, m)
			err := op.run(ctx, svc)
			cancel()
			if !f.hit {
				is.NoErr(err)                            // without a fault the operation succeeds
				is.Equal(storeSnapshot(t, inner), final) // with the clean outcome
				break
			}
			where := mode.String() + " at step " + strconv.Itoa(at)
			snap := storeSnapshot(t, inner)
			if f.stray != 0 {
				t.Fatalf("%s: %d event batches published without a commit", where, f.stray)
			}
			if err == nil {
				// The fault hit a step after the last commit that does not
				// decide the outcome (e.g. a read for after-commit work).
				if snap != final {
					t.Fatalf("%s: success, but the store differs from the clean run's: %s", where, snapshotDiff(snap, final))
				}
				continue
			}
			if _, isAPI := errors.AsType[*chatcore.Error](err); isAPI {
				t.Fatalf("%s: a store fault surfaced as a user-facing error: %v", where, err)
			}
			switch mode {
			case faultFail:
				if !errors.Is(err, errInjectedFault) {
					t.Fatalf("%s: the injected error was lost: %v", where, err)
				}
			case faultCancel:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: cancellation reported as %v", where, err)
				}
			}
			k := slices.Index(states, snap)
			if k < 0 {
				t.Fatalf("%s: the store holds a state the clean run never committed (half-written): %s", where, snapshotDiff(snap, states[len(states)-1]))
			}
			if f.published > k {
				t.Fatalf("%s: %d event batches for %d committed transactions", where, f.published, k)
			}
			if len(m.All()) > 0 && k < len(states)-1 {
				t.Fatalf("%s: e-mail sent for work that did not commit", where)
			}
			// Repeating the call finishes the job.
			f.at = 0
			if err := op.run(t.Context(), svc); err != nil {
				t.Fatalf("%s: the repeated call failed: %v", where, err)
			}
			if got := storeSnapshot(t, inner); got != final {
				t.Fatalf("%s: the repeated call did not reach the clean outcome: %s", where, snapshotDiff(got, final))
			}
			if f.published != published || len(m.All()) != mails {
				t.Fatalf("%s: faulty run + repeat published %d event batches and %d e-mails, the clean run %d and %d",
					where, f.published, len(m.All()), published, mails)
			}
		}
	}
}

// snapshotDiff shows where two snapshots first differ.
func snapshotDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-300)
	return fmt.Sprintf("at byte %d\n got: …%s…\nwant: …%s…", i, got[from:min(len(got), i+200)], want[from:min(len(want), i+200)])
}

var discardLogger = slog.New(slog.DiscardHandler)

func (t faultyTx) UserMessages(ctx context.Context, user chatcore.UserID, ids []chatcore.MessageID) ([]chatcore.UserMessage, error) {
	return faultStep(t.f, func() ([]chatcore.UserMessage, error) { return t.tx.UserMessages(ctx, user, ids) })
}

func (t faultyTx) PutUserMessageFlags(ctx context.Context, rows []chatcore.UserMessageFlags) error {
	return faultStepErr(t.f, func() error { return t.tx.PutUserMessageFlags(ctx, rows) })
}

func (t faultyTx) MarkReadThrough(ctx context.Context, user chatcore.UserID, recipient chatcore.RecipientID, through chatcore.MessageID) error {
	return faultStepErr(t.f, func() error { return t.tx.MarkReadThrough(ctx, user, recipient, through) })
}

func (t faultyTx) UpdateUserMessageFlags(ctx context.Context, user chatcore.UserID, ids []chatcore.MessageID, flag chatcore.MessageFlags, add bool) ([]chatcore.MessageID, error) {
	return faultStep(t.f, func() ([]chatcore.MessageID, error) { return t.tx.UpdateUserMessageFlags(ctx, user, ids, flag, add) })
}

func (t faultyTx) UnreadMessages(ctx context.Context, user chatcore.UserID, limit int) ([]chatcore.UserMessage, error) {
	return faultStep(t.f, func() ([]chatcore.UserMessage, error) { return t.tx.UnreadMessages(ctx, user, limit) })
}

func (t faultyTx) FlaggedMessageIDs(ctx context.Context, user chatcore.UserID, flag chatcore.MessageFlags) ([]chatcore.MessageID, error) {
	return faultStep(t.f, func() ([]chatcore.MessageID, error) { return t.tx.FlaggedMessageIDs(ctx, user, flag) })
}

func (t faultyTx) ActiveSubscriberIDs(ctx context.Context, stream chatcore.StreamID) ([]chatcore.UserID, error) {
	return faultStep(t.f, func() ([]chatcore.UserID, error) { return t.tx.ActiveSubscriberIDs(ctx, stream) })
}

func (t faultyTx) StreamAudience(ctx context.Context, stream chatcore.StreamID, upTo chatcore.MessageID) (*chatcore.Stream, []chatcore.UserID, error) {
	if err := t.f.step(); err != nil {
		return nil, nil, err
	}
	return t.tx.StreamAudience(ctx, stream, upTo)
}

func (t faultyTx) EditMessage(ctx context.Context, m *chatcore.Message, entry chatcore.EditHistoryEntry) error {
	return faultStepErr(t.f, func() error { return t.tx.EditMessage(ctx, m, entry) })
}

func (t faultyTx) MoveMessages(ctx context.Context, mv chatcore.MessageMove, limit int) ([]chatcore.MessageID, error) {
	return faultStep(t.f, func() ([]chatcore.MessageID, error) { return t.tx.MoveMessages(ctx, mv, limit) })
}

func (t faultyTx) MessageFlagRows(ctx context.Context, msg chatcore.MessageID) ([]chatcore.UserMessageFlags, error) {
	return faultStep(t.f, func() ([]chatcore.UserMessageFlags, error) { return t.tx.MessageFlagRows(ctx, msg) })
}
