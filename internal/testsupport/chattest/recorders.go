package chattest

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/chatcore/chatcore"
)

// Epoch is when a World's clock starts unless [At] says otherwise, and when
// the realms, users, channels and messages its builders store were created.
var Epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Clock is a settable [chatcore.Clock], safe for concurrent use. Every Now
// call returns the current time and then advances it by the step (zero, the
// default: the clock stands still).
type Clock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

// NewClock returns a clock standing at now.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now returns the current time and advances the clock by its step.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now
	c.now = c.now.Add(c.step)
	return t
}

// Current returns the time without advancing the clock.
func (c *Clock) Current() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// SetStep makes every later Now call advance the clock by d.
func (c *Clock) SetStep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.step = d
}

// Mailer is a [chatcore.Mailer] that records the e-mails it is given; safe
// for concurrent use. Its zero value is ready to use.
type Mailer struct {
	mu   sync.Mutex
	sent []chatcore.Email
}

// Send records m; it never fails.
func (m *Mailer) Send(_ context.Context, e chatcore.Email) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, e)
	return nil
}

// All returns a copy of the e-mails sent so far, oldest first.
func (m *Mailer) All() []chatcore.Email {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.sent)
}

// Events is a [chatcore.EventSink] that records every published event; safe
// for concurrent use. Its zero value is ready to use.
type Events struct {
	// OnPublish, when set before the Service first publishes, runs first on
	// every Publish (to look at the store at publication time, or to log the
	// order of events). It may run concurrently with itself.
	OnPublish func([]chatcore.Event)

	mu     sync.Mutex
	events []chatcore.Event
}

// Publish records events after running OnPublish.
func (s *Events) Publish(_ context.Context, events []chatcore.Event) {
	if s.OnPublish != nil {
		s.OnPublish(events)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, events...)
}

// All returns a copy of the events published so far, oldest first.
func (s *Events) All() []chatcore.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// Reset forgets the events published so far.
func (s *Events) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = nil
}

// OfType returns the published events whose "type" is typ and which hold
// every further key/value pair of match, for example
// OfType("reminders", "op", "remove"). An odd number of match strings panics.
func (s *Events) OfType(typ string, match ...string) []chatcore.Event {
	return Filter(s.All(), typ, match...)
}

// Take returns what OfType(typ, match...) would and forgets every event
// published so far (of any type), in one step.
func (s *Events) Take(typ string, match ...string) []chatcore.Event {
	s.mu.Lock()
	events := s.events
	s.events = nil
	s.mu.Unlock()
	return Filter(events, typ, match...)
}

// Filter returns the events of events whose "type" is typ and which hold
// every further key/value pair of match. An odd number of match strings
// panics.
func Filter(events []chatcore.Event, typ string, match ...string) []chatcore.Event {
	if len(match)%2 != 0 {
		panic("chattest.Filter: match must be key/value pairs")
	}
	var out []chatcore.Event
next:
	for _, e := range events {
		if e.Data["type"] != typ {
			continue
		}
		for i := 0; i < len(match); i += 2 {
			if e.Data[match[i]] != match[i+1] {
				continue next
			}
		}
		out = append(out, e)
	}
	return out
}

// PlainHasher is a [chatcore.PasswordHasher] that keeps tests fast (argon2id
// would dominate them): the "hash" is the password with a "plain:" prefix.
type PlainHasher struct{}

// Hash returns "plain:" + p.
func (PlainHasher) Hash(p string) (string, error) { return "plain:" + p, nil }

// Verify reports whether h is "plain:" + p.
func (PlainHasher) Verify(h, p string) (bool, error) { return h == "plain:"+p, nil }

// PasswordHash is what [PlainHasher] stores for password p.
func PasswordHash(p string) string { return "plain:" + p }
