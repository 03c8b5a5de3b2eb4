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
	// the queue is full a new delivery is dropped and logged: sending a message
	// never waits for a webhook.
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
// Without this option no webhook is ever sent. Workers start with the first
// delivery; [chatcore.Service.Shutdown] stops them: it accepts no new
// deliveries and waits for the queued and running ones to finish. When its
// context ends first it cancels the deliveries still running (their replies
// and failure notices are then not posted; each is logged), waits for the
// workers to return, and returns the context's error. A second Shutdown
// returns nil at once; messages sent after Shutdown trigger no webhooks.
func Delivery(o Options) chatcore.Option {
	return chatcore.WithMessageHook(func(s *chatcore.Service) chatcore.MessageHook {
		return newDispatcher(s, o)
	})
}

// dispatcher delivers outgoing webhooks: its queue runs each job's attempts on
// a pool of workers (retries beside them), and each finished delivery's
// outcome is posted through the Service.
type dispatcher struct {
	s      *chatcore.Service
	opts   Options
	client *http.Client
	queue  *jobqueue.Queue[*job]
}

func newDispatcher(s *chatcore.Service, o Options) *dispatcher {
	o = o.withDefaults()
	d := &dispatcher{
		s:    s,
		opts: o,
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
}

// MessageSent builds the requests of a committed message and queues them
// without waiting; failures are logged, since the send itself has succeeded.
func (d *dispatcher) MessageSent(ctx context.Context, sm chatcore.SentMessage) {
	m := sm.Message
	if m.Type == chatcore.MessageTypeStream && len(sm.Mentioned) == 0 {
		return // nothing to look up
	}
	hooks, err := d.s.OutgoingWebhooks(ctx, m, sm.Mentioned)
	if err != nil {
		d.log().ErrorContext(ctx, "chatcore: building outgoing webhooks", "message_id", m.ID, "err", err)
		return
	}
	for i := range hooks {
		j := &job{hook: &hooks[i]}
		if j.body, j.contentType, j.slackDM, err = request(j.hook); err != nil {
			d.log().ErrorContext(ctx, "chatcore: encoding an outgoing webhook", "message_id", m.ID, "err", err)
			continue
		}
		d.enqueue(ctx, j)
	}
}

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
		d.log().ErrorContext(ctx, "chatcore: outgoing webhook dropped: delivery queue is full",
			"bot_id", j.hook.Bot.ID, "message_id", j.hook.Message.ID, "queue_size", d.opts.QueueSize)
	}
	return false
}

// Shutdown stops accepting deliveries and waits for the queued and running
// ones (see [Delivery]).
func (d *dispatcher) Shutdown(ctx context.Context) error {
	err := d.queue.Shutdown(ctx)
	netguard.CloseIdle(d.client)
	return err
}

// run makes the first attempt of j and posts its outcome. When that attempt
// timed out or could not connect, it returns the retries as a follow-up, which
// the queue runs beside the workers (up to QueueSize at once), so that one
// unreachable integration does not hold a worker through its retries.
func (d *dispatcher) run(ctx context.Context, j *job) func(context.Context) {
	out, retryErr := d.first(ctx, j)
	if retryErr != nil {
		return func(ctx context.Context) { d.finish(ctx, j, d.retry(ctx, j, retryErr)) }
	}
	d.finish(ctx, j, out)
	return nil
}

// finish posts what out calls for, unless the delivery was abandoned.
func (d *dispatcher) finish(ctx context.Context, j *job, out outcome) {
	if out.aborted {
		d.log().WarnContext(ctx, "chatcore: outgoing webhook abandoned at shutdown",
			"bot_id", j.hook.Bot.ID, "message_id", j.hook.Message.ID, "url", j.hook.Service.BaseURL)
		return
	}
	d.apply(ctx, j.hook, out)
}
