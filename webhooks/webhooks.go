// Package webhooks delivers outgoing webhooks: it plugs into a
// [chatcore.Service] as a [chatcore.MessageHook] (see [Delivery]), asks the
// Service which requests each committed message triggers
// ([chatcore.Service.OutgoingWebhooks]), POSTs them from a pool of background
// workers through a dialer that refuses private addresses, and posts what the
// integration answers, or a failure notice, through the Service
// ([chatcore.Service.PostWebhookReply], [chatcore.Service.NotifyWebhookOwner]),
// by the rules of Zulip's outgoing-webhook worker.
package webhooks

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/jobqueue"
	"github.com/chatcore/chatcore/internal/netguard"
)

// Options configures outgoing-webhook delivery (see [Delivery]). Zero fields
// take the defaults named on them.
type Options struct {
	// Workers is the number of deliveries running at once (default 4).
	Workers int
	// QueueSize bounds the deliveries waiting for a worker (default 256). When
	// the queue is full a new delivery is logged and left in the store for a
	// later resume (see ResumeEvery): sending a message never waits for a
	// webhook.
	QueueSize int
	// Timeout bounds one attempt: connecting, sending the payload and reading
	// the answer (default 10 s, Zulip's OUTGOING_WEBHOOK_TIMEOUT_SECONDS).
	Timeout time.Duration
	// MaxRetries is how many times an attempt that timed out or could not
	// connect is repeated (default 3, so 4 attempts in all; negative: never).
	// Retries run beside the workers (up to QueueSize deliveries at once), so
	// an unreachable integration does not hold up the others.
	MaxRetries int
	// RetryDelay is the pause before each retry (default 1 s).
	RetryDelay time.Duration
	// AllowPrivate lets webhooks reach loopback, private (RFC 1918, ULA),
	// link-local, carrier-grade NAT and cloud-metadata addresses, which are
	// refused by default. Turn it on only for local development, where the
	// integration runs on the same machine.
	AllowPrivate bool
	// Transport, when set, replaces the guarded transport. The address checks
	// then are the Transport's job; AllowPrivate has no effect. Meant for tests
	// and for embedders routing webhooks through their own egress proxy.
	Transport http.RoundTripper
	// ResumeEvery is how often the store is searched for deliveries a
	// process left unfinished (a crash, a Shutdown whose context ended, a
	// full queue, another instance on the same database that stopped), to
	// run their remaining attempts (default 10 s; the first search runs when
	// the Service is built).
	ResumeEvery time.Duration
	// ResumeAfter is how long after its last attempt started (or it was
	// stored, before any) a delivery not held by this process counts as left
	// unfinished (default 2×Timeout + RetryDelay: longer than any attempt of
	// a running process lasts).
	ResumeAfter time.Duration
	// OnOutcome, when set, is called once for each delivery that ends in
	// this process with its outcome (see [Outcomes]), e.g. a metrics
	// counter (metrics.Metrics.WebhookOutcome). It must not block.
	OnOutcome func(outcome string)
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 256
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	switch {
	case o.MaxRetries == 0:
		o.MaxRetries = 3
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = time.Second
	}
	if o.ResumeEvery <= 0 {
		o.ResumeEvery = 10 * time.Second
	}
	if o.ResumeAfter <= 0 {
		o.ResumeAfter = 2*o.Timeout + o.RetryDelay
	}
	return o
}

// Delivery returns the [chatcore.Option] that turns on outgoing webhooks.
// After a message that triggers an outgoing-webhook bot has committed (a
// channel message mentioning it, or a direct message it takes part in; never a
// message sent by a bot), the Service's hook POSTs a
// [github.com/chatcore/chatcore/outgoing.Payload] (or, for services with the
// "slack" interface, Slack's form fields) to each of the bot's services from a
// pool of background workers, with User-Agent "ChatcoreOutgoingWebhook/" +
// [chatcore.Version]. What the integration answers decides what the bot posts,
// as in Zulip: a 2xx JSON object's "content" (or deprecated "response_string")
// is posted as the bot's reply in the same conversation;
// "response_not_required", empty content or the JSON string "" post nothing; a
// value that is not a string is posted as Python's str() writes it
// ({"content": null} posts "None"). Any other answer, a refused address, a
// request that fails in another way (not retried) and, after the retries, a
// timeout or connection error make the bot post "Failure! ..." there and send
// its owner a direct message that says what went wrong. "widget_content" is
// ignored.
//
// Deliveries survive a crash: each is stored in the transaction of the
// message that triggers it ([chatcore.WithWebhookOutbox], which this option
// turns on) and deleted once its outcome is posted (a reply or failure notice
// in the same transaction). Each attempt is claimed in the store before it
// starts, so it runs at most once, whatever the processes sharing the store.
// A delivery left unfinished (a crash, a full queue, a Shutdown that cancelled
// it) is resumed from the store ([Options.ResumeEvery], the first time when
// the Service is built) with the attempts it has left: an attempt cut short
// by a crash counts as made, and a delivery whose every attempt had started
// is dropped with a warning, since whether the integration got it is unknown.
// A crash after the reply was posted and before the owner's notice loses the
// notice.
//
// Without this option no webhook is ever sent. Workers start with the first
// delivery; [chatcore.Service.Shutdown] stops them: it accepts no new
// deliveries and waits for the queued and running ones to finish. When its
// context ends first it cancels the deliveries still running (their replies
// and failure notices are then not posted; each is logged, and resumed by
// the next process), waits for the workers to return, and returns the
// context's error. A second Shutdown returns nil at once; messages sent after
// Shutdown trigger no webhooks (their deliveries stay stored for the next
// process).
func Delivery(o Options) chatcore.Option {
	outbox := chatcore.WithWebhookOutbox()
	hook := chatcore.WithMessageHook(func(s *chatcore.Service) chatcore.MessageHook {
		return newDispatcher(s, o)
	})
	return func(s *chatcore.Service) { outbox(s); hook(s) }
}

// dispatcher delivers outgoing webhooks: its queue runs each job's attempts on
// a pool of workers (retries beside them), and each finished delivery's
// outcome is posted through the Service.
type dispatcher struct {
	s      *chatcore.Service
	opts   Options
	client *http.Client
	queue  *jobqueue.Queue[*job]

	// held are the stored deliveries this process has queued or is running,
	// which resuming leaves alone.
	mu   sync.Mutex
	held map[int64]bool
	// stopResume ends the resuming loop, resumeDone says it has ended.
	stopResume chan struct{}
	resumeDone chan struct{}
	stopOnce   sync.Once
}

func newDispatcher(s *chatcore.Service, o Options) *dispatcher {
	o = o.withDefaults()
	d := &dispatcher{
		s:          s,
		opts:       o,
		held:       map[int64]bool{},
		stopResume: make(chan struct{}),
		resumeDone: make(chan struct{}),
		client: netguard.NewClient(netguard.Options{
			Timeout: o.Timeout, AllowPrivate: o.AllowPrivate, Transport: o.Transport,
		}),
	}
	d.queue = jobqueue.New(jobqueue.Options{Workers: o.Workers, QueueSize: o.QueueSize}, d.run)
	return d
}

// log is the Service's logger ([chatcore.WithLogger]), which receives the
// failures of deliveries: they reach no caller.
func (d *dispatcher) log() *slog.Logger { return d.s.Logger() }

// job is one request of a delivery.
type job struct {
	hook *chatcore.OutgoingWebhook
	url  *url.URL // hook.Service.BaseURL, parsed by the first attempt
	// body and contentType are the request; slackDM marks a "slack" service
	// triggered by a direct message, which is refused without a request.
	body        []byte
	contentType string
	slackDM     bool
	// next is the number of the next attempt (from 1).
	next int
}

// MessageSent queues the requests a committed message triggers, which its
// transaction stored, without waiting.
func (d *dispatcher) MessageSent(ctx context.Context, sm chatcore.SentMessage) {
	for i := range sm.Webhooks {
		d.add(ctx, &sm.Webhooks[i])
	}
}

// add encodes hook's request and queues it, unless this process holds it
// already. It reports false when the queue refused it. Failures are logged:
// the send itself has succeeded.
func (d *dispatcher) add(ctx context.Context, hook *chatcore.OutgoingWebhook) bool {
	j := &job{hook: hook, next: hook.Attempts + 1}
	var err error
	if j.body, j.contentType, j.slackDM, err = request(j.hook); err != nil {
		d.log().ErrorContext(ctx, "chatcore: encoding an outgoing webhook", "message_id", hook.Message.ID, "err", err)
		return true
	}
	if !d.hold(hook.DeliveryID) {
		return true
	}
	if !d.enqueue(ctx, j) {
		d.release(hook.DeliveryID)
		return false
	}
	return true
}

// hold marks the stored delivery id as held by this process; false when it
// is already.
func (d *dispatcher) hold(id int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.held[id] {
		return false
	}
	d.held[id] = true
	return true
}

// release forgets that this process holds the stored delivery id.
func (d *dispatcher) release(id int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.held, id)
}

// Start runs the resuming loop in the background (see [Delivery]); the
// Service calls it once New has built it.
func (d *dispatcher) Start() {
	go func() {
		defer close(d.resumeDone)
		t := time.NewTicker(d.opts.ResumeEvery)
		defer t.Stop()
		for {
			d.resume(context.Background())
			select {
			case <-d.stopResume:
				return
			case <-t.C:
			}
		}
	}()
}

// resume queues the stored deliveries left unfinished that this process does
// not hold, page by page, until the queue is full.
func (d *dispatcher) resume(ctx context.Context) {
	before := d.s.Now().Add(-d.opts.ResumeAfter)
	for after := int64(0); ; {
		hooks, last, err := d.s.PendingWebhooks(ctx, before, after, resumePage)
		if err != nil {
			d.log().ErrorContext(ctx, "chatcore: reading unfinished outgoing webhooks", "err", err)
			return
		}
		for i := range hooks {
			d.log().InfoContext(ctx, "chatcore: resuming an outgoing webhook left unfinished",
				"bot_id", hooks[i].Bot.ID, "message_id", hooks[i].Message.ID, "attempts_made", hooks[i].Attempts)
			if !d.add(ctx, &hooks[i]) {
				return
			}
		}
		if last == 0 {
			return
		}
		after = last
	}
}

// resumePage bounds the stored deliveries one read of resume takes.
const resumePage = 100

// enqueue hands j to the workers without waiting. It reports false, after
// logging, when the queue is full or the dispatcher has shut down.
func (d *dispatcher) enqueue(ctx context.Context, j *job) bool {
	err := d.queue.Enqueue(j)
	switch {
	case err == nil:
		return true
	case errors.Is(err, jobqueue.ErrClosed):
		d.log().WarnContext(ctx, "chatcore: outgoing webhook not sent: delivery has shut down",
			"bot_id", j.hook.Bot.ID, "message_id", j.hook.Message.ID)
	default:
		d.log().ErrorContext(ctx, "chatcore: outgoing webhook postponed: delivery queue is full",
			"bot_id", j.hook.Bot.ID, "message_id", j.hook.Message.ID, "queue_size", d.opts.QueueSize)
	}
	return false
}

// Shutdown stops resuming and accepting deliveries and waits for the queued
// and running ones (see [Delivery]).
func (d *dispatcher) Shutdown(ctx context.Context) error {
	d.stopOnce.Do(func() { close(d.stopResume) })
	select {
	case <-d.resumeDone:
	case <-ctx.Done():
	}
	err := d.queue.Shutdown(ctx)
	netguard.CloseIdle(d.client)
	return err
}

// run makes the first attempt of j and posts its outcome. When that attempt
// timed out or could not connect, it returns the retries as a follow-up, which
// the queue runs beside the workers (up to QueueSize at once), so that one
// unreachable integration does not hold a worker through its retries.
func (d *dispatcher) run(ctx context.Context, j *job) func(context.Context) {
	if j.next > d.opts.MaxRetries+1 {
		// Every attempt started in a process that stopped before the outcome:
		// whether the integration got the request is unknown.
		d.log().WarnContext(ctx, "chatcore: outgoing webhook dropped: every attempt was started before a restart",
			"bot_id", j.hook.Bot.ID, "message_id", j.hook.Message.ID, "attempts", j.next-1)
		d.finish(ctx, j, outcome{dropped: true})
		return nil
	}
	out, retryErr := d.first(ctx, j)
	if retryErr != nil {
		return func(ctx context.Context) { d.finish(ctx, j, d.retry(ctx, j, retryErr)) }
	}
	d.finish(ctx, j, out)
	return nil
}

// finish posts what out calls for and deletes the stored delivery, unless
// the delivery was abandoned (it stays stored, to be resumed) or taken over.
func (d *dispatcher) finish(ctx context.Context, j *job, out outcome) {
	defer d.release(j.hook.DeliveryID)
	d.observe(out.label())
	switch {
	case out.taken:
		return
	case out.aborted:
		d.log().WarnContext(ctx, "chatcore: outgoing webhook abandoned at shutdown",
			"bot_id", j.hook.Bot.ID, "message_id", j.hook.Message.ID, "url", j.hook.Service.BaseURL)
		return
	}
	d.apply(ctx, j.hook, out)
	if err := d.s.FinishWebhook(context.WithoutCancel(ctx), j.hook); err != nil {
		d.log().ErrorContext(ctx, "chatcore: finishing an outgoing webhook", "bot_id", j.hook.Bot.ID, "message_id", j.hook.Message.ID, "err", err)
	}
}
