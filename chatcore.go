package chatcore

import (
	"context"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatcore/chatcore/internal/eventwire"
	"github.com/chatcore/chatcore/internal/listeners"
	"github.com/chatcore/chatcore/internal/password"
	"github.com/chatcore/chatcore/settings"
)

// Version is chatcore's version, reported in zulip_version and in the
// User-Agent of outgoing webhooks.
const Version = "0.1.0"

// FeatureLevel is the Zulip API feature level chatcore speaks.
const FeatureLevel = 467

// Clock tells the time. Tests inject a fake one with [WithClock].
type Clock interface {
	Now() time.Time
}

// ClockFunc adapts a function to [Clock].
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }

// Email is an outgoing e-mail.
type Email struct {
	To      string
	From    string
	Subject string
	Body    string
}

// Mailer sends e-mails (e-mail change confirmations, deactivation notices).
// The Service calls it only after the transaction that caused the e-mail has
// committed. The default mailer discards mail after logging it.
type Mailer interface {
	Send(ctx context.Context, m Email) error
}

// Event is a change notification for the users in UserIDs, shaped as Zulip's
// event payloads (Data holds "type", "op", ... ).
type Event struct {
	RealmID RealmID
	UserIDs []UserID
	Data    map[string]any

	// markdown is a message event's raw content, logged beside the
	// rendered one for queues without apply_markdown.
	markdown *string
	// echo is the local echo of a message event for its sender's queue
	// (see [Destination].SenderQueueID), logged beside the event.
	echo *eventwire.LocalEcho
	// modernPresence is a presence event's modern form (Zulip's
	// simplified_presence_events), logged beside the legacy one.
	modernPresence map[string]any
	// public marks a public channel's message event that the queues
	// receiving every public channel message get too (see
	// [LoggedEvent].Public); one without users is their copy alone, never
	// published to the EventSink. group is the message id tying the
	// message's events together.
	public bool
	group  int64
}

// EventSink receives events. The Service publishes an operation's events only
// after its transaction has committed, in order. Publish must not block for long.
type EventSink interface {
	Publish(ctx context.Context, events []Event)
}

// PasswordHasher hashes and verifies passwords. The default is argon2id.
type PasswordHasher interface {
	// Hash returns an encoded hash of password.
	Hash(password string) (string, error)
	// Verify reports whether password matches the encoded hash.
	Verify(hash, password string) (bool, error)
}

// Option configures a [Service].
type Option func(*Service)

// WithClock sets the clock (default: the system clock).
func WithClock(c Clock) Option { return func(s *Service) { s.clock = c } }

// WithMailer sets where e-mails go (default: logged and dropped).
func WithMailer(m Mailer) Option { return func(s *Service) { s.mailer = m } }

// WithEventSink sets where events go (default: dropped).
func WithEventSink(e EventSink) Option { return func(s *Service) { s.events = e } }

// WithPasswordHasher sets the password hasher (default: argon2id).
func WithPasswordHasher(h PasswordHasher) Option { return func(s *Service) { s.hasher = h } }

// WithPasswordHashConcurrency sets how many password hashes or verifications
// the Service runs at once (default: GOMAXPROCS). Each argon2id run of the
// default hasher holds about 19 MiB, so this bounds their memory; callers
// beyond the limit wait, or give up when their context ends. Values below 1
// keep the default.
func WithPasswordHashConcurrency(n int) Option {
	return func(s *Service) {
		if n >= 1 {
			s.hashConcurrency = n
		}
	}
}

// WithLogger sets the logger for failures that reach no caller, such as a
// mailer error after commit (default: slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// WithTopicDeletion sets the batch size and time budget of topic deletion
// (Zulip: 100 messages, 50 s; [Service.TopicBatchSize],
// [Service.TopicDeletionBudget]). Non-positive values keep the defaults. The
// batch size also bounds the batches of a topic move and of a deactivated
// user's message deletion.
func WithTopicDeletion(batchSize int, budget time.Duration) Option {
	return func(s *Service) {
		if batchSize > 0 {
			s.batchSize = batchSize
		}
		if budget > 0 {
			s.deleteBudget = budget
		}
	}
}

// SentMessage is a message that has just committed, with the users its
// content mentions (mentions inside code left out), as a [MessageHook]
// receives it. Hooks must not modify Message.
type SentMessage struct {
	Message   *Message
	Mentioned []UserID
	// Webhooks are the outgoing-webhook requests the message triggers,
	// stored in its transaction, each with its DeliveryID; set only with
	// [WithWebhookOutbox].
	Webhooks []OutgoingWebhook
	// MutedBy are the receivers who muted the sender, ascending: the message
	// arrived read for them, and a hook that notifies users leaves them out
	// (Zulip sends them no notification).
	MutedBy []UserID
}

// MessageHook is told about every message the Service sends (by any
// operation: SendMessage, scheduled delivery, reminders, webhook replies),
// once the transaction that sent it has committed. MessageSent runs on the
// sending goroutine, in send order, with a context that is not cancelled when
// the request ends; it must not block for long (queue slow work). A hook whose
// type also has a method Start() is started at the end of [New], the Service
// ready (it may start background work that calls the Service); one whose
// type has a method Shutdown(context.Context) error is stopped by
// [Service.Shutdown]. Package webhooks delivers outgoing webhooks this way.
type MessageHook interface {
	MessageSent(ctx context.Context, m SentMessage)
}

// WithMessageHook adds a [MessageHook]. newHook is called once, while [New]
// applies its options, with the Service being built; the hook may keep it to
// call the Service later, but must not call it before New has returned.
// Hooks run in the order they were added.
func WithMessageHook(newHook func(*Service) MessageHook) Option {
	return func(s *Service) { s.hooks = append(s.hooks, newHook(s)) }
}

// Shutdown stops the Service's background work: it writes the buffered
// presence reports ([Service.FlushPresence]; later reports are written only
// by FlushPresence), then each [MessageHook] that has a
// Shutdown(context.Context) error method is shut down with ctx, in the order
// the hooks were added, and the first error is returned. Calling Shutdown
// again, or on a Service without such hooks, is up to the hooks (package
// webhooks returns nil at once). The Service's other methods keep working
// after Shutdown.
func (s *Service) Shutdown(ctx context.Context) error {
	first := s.presence.Shutdown(ctx)
	for _, h := range s.hooks {
		if sh, ok := h.(interface{ Shutdown(context.Context) error }); ok {
			if err := sh.Shutdown(ctx); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// WithExternalURL sets the base URL of the server as clients reach it, e.g.
// "https://chat.example.com" behind a proxy (default "http://127.0.0.1:9991").
// It is the one setting every link is built from: realm_url (the HTTP adapter
// reads it through [Service.ExternalURL]), avatars, uploads, confirmation
// links in e-mails, reminders and notices. Set it once, here.
func WithExternalURL(u string) Option { return func(s *Service) { s.externalURL = u } }

// Service carries out chatcore's operations with Zulip's rules on top of a
// [Store]. All methods are safe for concurrent use.
type Service struct {
	store        Store
	clock        Clock
	mailer       Mailer
	events       EventSink
	hasher       PasswordHasher
	log          *slog.Logger
	batchSize    int
	deleteBudget time.Duration
	externalURL  string
	// hashing runs hasher within hashConcurrency concurrent calls.
	hashing         *password.Bounded
	hashConcurrency int
	// passwordAttempts and emailChanges are the per-user rate limits of
	// password changes and e-mail change requests; nil disables (ratelimit.go).
	passwordAttempts *userLimiter
	emailChanges     *userLimiter
	// hooks are told about each committed message (WithMessageHook).
	hooks []MessageHook
	// webhookOutbox stores each message's outgoing-webhook requests in its
	// transaction (WithWebhookOutbox).
	webhookOutbox bool
	// notify holds the OnEventsCommitted functions (events.go).
	notify listeners.Set[[]EventNotice]
	// valueSets are the accepted languages and notification sounds
	// (WithLanguages, WithNotificationSounds); passwordPolicy is the strength
	// a new password needs (WithPasswordPolicy).
	valueSets      settings.Config
	passwordPolicy password.Policy
	// presenceConfig buffers presence reports (presence.go).
	presenceConfig
	// links caches the realms' compiled linkifiers for pre-rendering (render.go).
	links *linkifierCache
	// emoji caches the realms' active custom emoji for pre-rendering
	// (render.go).
	emoji *emojiCache
	// logged counts the log entries this Service appended (attempts that
	// rolled back included); it paces the log's collection (events.go).
	logged atomic.Int64
	// files configures uploads (files.go); signMu guards its signing key,
	// read from the store on first use.
	files  filesConfig
	signMu sync.Mutex
}

// New returns a Service over store.
func New(store Store, opts ...Option) *Service {
	s := &Service{
		store:           store,
		clock:           ClockFunc(time.Now),
		events:          discardEvents{},
		log:             slog.Default(),
		batchSize:       100,
		deleteBudget:    50 * time.Second,
		externalURL:     "http://127.0.0.1:9991",
		valueSets:       settings.ZulipConfig(),
		passwordPolicy:  password.Policy{MinLength: defaultPasswordMinLength, MinGuesses: defaultPasswordMinGuesses},
		hashConcurrency: max(runtime.GOMAXPROCS(0), 1),

		links:            newLinkifierCache(),
		emoji:            newEmojiCache(),
		passwordAttempts: newUserLimiter(defaultPasswordAttemptRules),
		emailChanges:     newUserLimiter(defaultEmailChangeRules),
	}
	s.mailer = logMailer{s}
	for _, o := range opts {
		o(s)
	}
	if s.hasher == nil {
		s.hasher = defaultHasher()
	}
	s.hashing = password.NewBounded(s.hasher, s.hashConcurrency)
	s.startPresence()
	for _, h := range s.hooks {
		if st, ok := h.(interface{ Start() }); ok {
			st.Start()
		}
	}
	return s
}

// Store returns the store the Service works on.
func (s *Service) Store() Store { return s.store }

// Logger returns the Service's logger ([WithLogger]), for hooks and workers
// whose failures reach no caller.
func (s *Service) Logger() *slog.Logger { return s.log }

// Now returns the current time of the Service's clock ([WithClock]), the time
// its operations stamp on what they create.
func (s *Service) Now() time.Time { return s.clock.Now() }

// IsEmpty reports whether the store holds no realm at all, as a fresh store
// does before an organisation is loaded into it (see package fixture).
// Errors come from the store.
func (s *Service) IsEmpty(ctx context.Context) (bool, error) {
	var empty bool
	err := s.View(ctx, func(tx Tx) error {
		rs, err := tx.Realms(ctx)
		empty = len(rs) == 0
		return err
	})
	return empty, err
}

type discardEvents struct{}

func (discardEvents) Publish(context.Context, []Event) {}

type logMailer struct{ s *Service }

func (m logMailer) Send(ctx context.Context, e Email) error {
	m.s.log.InfoContext(ctx, "chatcore: e-mail not sent (no mailer configured)", "to", e.To, "subject", e.Subject)
	return nil
}

// Effects collects what an operation must do after its transaction commits:
// the events to log and publish, the e-mails to send and the messages to hand
// to the [MessageHook]s. [Service.Update] gives one to each attempt of its
// function and acts on the committed attempt's only.
type Effects struct {
	events []Event
	mails  []Email
	sent   []SentMessage
	// taken keeps what each rate limit answered, across the attempts of one
	// update (see take).
	taken map[*userLimiter]limitAnswer
}

// limitAnswer is what a rate limit answered.
type limitAnswer struct {
	wait time.Duration
	ok   bool
}

// take asks l about user once per update: when the store runs fn again (a
// retried transaction), the request is not counted twice and gets the first
// answer.
func (e *Effects) take(l *userLimiter, user UserID, now time.Time) (time.Duration, bool) {
	if a, ok := e.taken[l]; ok {
		return a.wait, a.ok
	}
	r := l.Take(user, now)
	wait, ok := r.Wait, r.Allowed
	if e.taken == nil {
		e.taken = map[*userLimiter]limitAnswer{}
	}
	e.taken[l] = limitAnswer{wait, ok}
	return wait, ok
}

// Event records an event for users of realm, published once the transaction
// commits (Data holds Zulip's "type", "op", ...).
func (e *Effects) Event(realm RealmID, users []UserID, data map[string]any) {
	e.events = append(e.events, Event{RealmID: realm, UserIDs: users, Data: data})
}

// EventWithFlags records data for the users of flags, each told their own
// flags on the message data is about under "flags" (as Zulip's
// update_message events): one event per distinct flag set, in flag order,
// each with its users sorted. data itself is not modified.
func (e *Effects) EventWithFlags(realm RealmID, data map[string]any, flags map[UserID]MessageFlags) {
	byFlags := map[MessageFlags][]UserID{}
	for u, f := range flags {
		byFlags[f] = append(byFlags[f], u)
	}
	for _, f := range slices.Sorted(maps.Keys(byFlags)) {
		users := byFlags[f]
		slices.Sort(users)
		ev := maps.Clone(data)
		ev["flags"] = f.Names()
		e.Event(realm, users, ev)
	}
}

// MessageEvent records a message event of m for users, logged with m's raw
// content; public lets the queues receiving every public channel message
// have it too (with no users: it is their copy alone).
func (e *Effects) MessageEvent(realm RealmID, users []UserID, m *Message, data map[string]any, public bool) {
	e.events = append(e.events, Event{RealmID: realm, UserIDs: users, Data: data, markdown: &m.Content, public: public, group: int64(m.ID)})
}

// Mail records an e-mail, sent once the transaction commits.
func (e *Effects) Mail(m Email) { e.mails = append(e.mails, m) }

// sentMsg records that m was sent, mentions the users in mentioned and
// triggers the stored webhooks.
func (e *Effects) sentMsg(m *Message, mentioned []UserID, hooks []OutgoingWebhook, mutedBy []UserID) {
	e.sent = append(e.sent, SentMessage{Message: m, Mentioned: mentioned, Webhooks: hooks, MutedBy: mutedBy})
}

// Update runs fn in one store transaction and, only once it has committed,
// publishes the collected events and sends the collected e-mails. Mail failures
// after commit are logged: the change they describe has happened. A store
// error wrapping [ErrUnavailable] (passing database trouble) is returned as
// an [Unavailable] error.
func (s *Service) Update(ctx context.Context, fn func(tx Tx, fx *Effects) error) error {
	var fx Effects
	taken := map[*userLimiter]limitAnswer{}
	var logged []LoggedEvent
	err := s.store.Update(ctx, func(tx Tx) error {
		// A store may run fn again (PostgreSQL retries a transaction it could
		// not serialise): a failed attempt's effects never leak, and rate
		// limits count the request once.
		fx = Effects{taken: taken}
		if err := fn(tx, &fx); err != nil || len(fx.events) == 0 {
			return err
		}
		var err error
		logged, err = s.logEvents(ctx, tx, fx.events)
		return err
	})
	if err != nil {
		return unavailable(err)
	}
	s.noticeEvents(logged)
	// The change has committed: its events and e-mails must go out even when
	// the caller's context ends now (a client that hung up after the commit).
	s.flush(context.WithoutCancel(ctx), &fx)
	return nil
}

func (s *Service) flush(ctx context.Context, fx *Effects) {
	published := fx.events
	publicCopy := func(e Event) bool { return e.public && len(e.UserIDs) == 0 }
	if slices.ContainsFunc(published, publicCopy) {
		published = slices.DeleteFunc(slices.Clone(published), publicCopy)
	}
	if len(published) > 0 {
		s.events.Publish(ctx, published)
	}
	for _, sm := range fx.sent {
		for _, h := range s.hooks {
			h.MessageSent(ctx, sm)
		}
	}
	for _, m := range fx.mails {
		if err := s.mailer.Send(ctx, m); err != nil {
			s.log.ErrorContext(ctx, "chatcore: sending e-mail", "to", m.To, "subject", m.Subject, "err", err)
		}
	}
}

// View runs fn in a read-only transaction. A store may run fn more than once
// (PostgreSQL runs it again on a fresh connection when its connection dies),
// so fn must set its results afresh on every run. A store error wrapping
// [ErrUnavailable] is returned as an [Unavailable] error.
func (s *Service) View(ctx context.Context, fn func(tx Tx) error) error {
	return unavailable(s.store.View(ctx, fn))
}

// viewSingle runs fn, which makes one call on its Tx, through the store's
// ViewSingle when it has one, and through View otherwise.
func (s *Service) viewSingle(ctx context.Context, fn func(tx Tx) error) error {
	if one, ok := s.store.(SingleReadStore); ok {
		return unavailable(one.ViewSingle(ctx, fn))
	}
	return unavailable(s.store.View(ctx, fn))
}

// TopicBatchSize is how many messages one transaction of a topic deletion or
// a topic move handles ([WithTopicDeletion]; Zulip: 100).
func (s *Service) TopicBatchSize() int { return s.batchSize }

// TopicDeletionBudget is how long one topic deletion call may run before it
// stops between batches and reports itself incomplete ([WithTopicDeletion];
// Zulip: 50 s).
func (s *Service) TopicDeletionBudget() time.Duration { return s.deleteBudget }

// ExternalURL is the server's base URL ([WithExternalURL]), for links in
// e-mails, reminders and notices.
func (s *Service) ExternalURL() string { return s.externalURL }
