package chatcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// WebhookOptions configures outgoing-webhook delivery (see [WithWebhookDelivery]).
// Zero fields take the defaults named on them.
type WebhookOptions struct {
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

func (o WebhookOptions) withDefaults() WebhookOptions {
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

// WithWebhookDelivery turns on outgoing webhooks. After a message that
// triggers an outgoing-webhook bot has committed (a channel message mentioning
// it, or a direct message it takes part in; never a message sent by a bot),
// the Service POSTs an [OutgoingWebhookPayload] (or, for services with the
// "slack" interface, Slack's form fields) to each of the bot's services from a
// pool of background workers, with User-Agent "ChatcoreOutgoingWebhook/" +
// [Version]. What the integration answers decides what the bot posts, as in
// Zulip: a 2xx JSON object's "content" (or deprecated "response_string") is
// posted as the bot's reply in the same conversation; "response_not_required",
// empty content or the JSON string "" post nothing; any other answer, a
// refused address and, after the retries, a timeout or connection error make
// the bot post "Failure! ..." there and send its owner a direct message that
// says what went wrong. "widget_content" is ignored.
//
// Without this option no webhook is ever sent. Workers start with the first
// delivery; call [Service.Shutdown] to stop them.
func WithWebhookDelivery(o WebhookOptions) Option {
	return func(s *Service) {
		o = o.withDefaults()
		s.webhooks = &webhookDispatcher{
			s:          s,
			opts:       o,
			client:     newWebhookClient(o),
			queue:      make(chan *webhookJob, o.QueueSize),
			retrySlots: make(chan struct{}, o.QueueSize),
		}
	}
}

// Shutdown stops the Service's background work: it accepts no new outgoing
// webhooks and waits for the queued and running deliveries to finish. When ctx
// ends first it cancels the deliveries still running (their replies and
// failure notices are then not posted; each is logged), waits for the workers
// to return, and returns ctx.Err(). Calling Shutdown again, or on a Service
// without webhook delivery, returns nil at once. The Service's other methods
// keep working after Shutdown; messages sent later trigger no webhooks.
func (s *Service) Shutdown(ctx context.Context) error {
	if s.webhooks == nil {
		return nil
	}
	return s.webhooks.shutdown(ctx)
}

// webhookDispatcher is the bounded queue and worker pool of outgoing webhooks.
type webhookDispatcher struct {
	s      *Service
	opts   WebhookOptions
	client *http.Client
	queue  chan *webhookJob
	// retrySlots bounds the deliveries retrying outside the workers.
	retrySlots chan struct{}
	// abort cancels the context of every delivery; set when the workers start.
	abort context.CancelFunc

	mu      sync.RWMutex // guards closed against close(queue)
	closed  bool
	started sync.Once
	wg      sync.WaitGroup
}

// webhookConversation is where a triggering message was sent, and so where the
// bot answers: a channel and topic, or a set of direct-message participants.
type webhookConversation struct {
	Type     MessageType
	StreamID StreamID
	Topic    string
	Members  []UserID // direct messages: every participant, sender included
}

// webhookJob is one request to one service of a bot, built right after the
// triggering message committed.
type webhookJob struct {
	realm     RealmID
	botID     UserID
	botName   string
	ownerID   UserID // zero: no owner to notify
	service   BotService
	url       *url.URL // service.BaseURL, parsed by the first attempt
	messageID MessageID
	link      string // link to the triggering message, for the owner notice
	command   string // the triggering message's raw content
	conv      webhookConversation
	// body and contentType are the request; slackDM marks a Slack-interface job
	// for a direct message, which is refused without a request.
	body        []byte
	contentType string
	slackDM     bool
}

// webhookOutcome is what a delivery leads to. Empty fields mean "nothing".
type webhookOutcome struct {
	reply   string // the bot posts this in the conversation
	failure string // the bot posts "Failure! " + failure in the conversation
	// notice, when notify is set, is added to the direct message to the bot's owner.
	notify  bool
	notice  string
	aborted bool // the dispatcher is shutting down: post nothing
}

// enqueue hands job to the workers without waiting. It reports false, after
// logging, when the queue is full or the dispatcher has shut down.
func (d *webhookDispatcher) enqueue(ctx context.Context, job *webhookJob) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		d.s.log.WarnContext(ctx, "chatcore: outgoing webhook not sent: delivery has shut down",
			"bot_id", job.botID, "message_id", job.messageID)
		return false
	}
	d.started.Do(func() {
		// Deliveries outlive the request that triggered them: their context
		// is cancelled only by Shutdown.
		base, cancel := context.WithCancel(context.Background())
		d.abort = cancel
		for range d.opts.Workers {
			d.wg.Go(func() { d.work(base) })
		}
	})
	select {
	case d.queue <- job:
		return true
	default:
		d.s.log.ErrorContext(ctx, "chatcore: outgoing webhook dropped: delivery queue is full",
			"bot_id", job.botID, "message_id", job.messageID, "queue_size", d.opts.QueueSize)
		return false
	}
}

func (d *webhookDispatcher) shutdown(ctx context.Context) error {
	d.mu.Lock()
	if !d.closed {
		d.closed = true
		close(d.queue)
	}
	d.mu.Unlock()
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		d.abortAll()
		<-done
	}
	d.abortAll()
	closeIdle(d.client)
	return err
}

// abortAll cancels every running delivery. abort is written once, under d.mu's
// read lock, by the first enqueue; shutdown has taken d.mu before calling
// this, so it sees the write (or no workers were ever started).
func (d *webhookDispatcher) abortAll() {
	if d.abort != nil {
		d.abort()
	}
}

// work runs deliveries until the queue is closed and drained. A delivery whose
// first attempt times out or cannot connect continues in a goroutine of its own
// (at most QueueSize of them at once; beyond that the worker retries itself),
// so one unreachable integration does not hold a worker through its retries.
func (d *webhookDispatcher) work(ctx context.Context) {
	for job := range d.queue {
		out, retryErr := d.first(ctx, job)
		if retryErr != nil {
			select {
			case d.retrySlots <- struct{}{}:
				d.wg.Go(func() {
					defer func() { <-d.retrySlots }()
					d.finish(ctx, job, d.retry(ctx, job, retryErr))
				})
				continue
			default:
				out = d.retry(ctx, job, retryErr)
			}
		}
		d.finish(ctx, job, out)
	}
}

// finish posts what out calls for, unless the delivery was abandoned.
func (d *webhookDispatcher) finish(ctx context.Context, job *webhookJob, out webhookOutcome) {
	if out.aborted {
		d.s.log.WarnContext(ctx, "chatcore: outgoing webhook abandoned at shutdown",
			"bot_id", job.botID, "message_id", job.messageID, "url", job.service.BaseURL)
		return
	}
	d.s.applyWebhookOutcome(ctx, job, out)
}

// The failure texts of Zulip's outgoing-webhook worker.
const (
	webhookUnavailable     = "Bot is unavailable"
	webhookSlackNoDMs      = "Slack outgoing webhooks don't support direct messages."
	webhookConnectionError = "A connection error occurred. Is my bot server down?"
	webhookPrivateNetwork  = "The URL configured for the webhook is for a private or disallowed network."
	webhookMaxBody         = 1 << 20 // bytes of an answer that are read
)

// errTooManyRedirects is returned by the redirect policy.
var errTooManyRedirects = errors.New("too many redirects")

// first makes the first attempt of job. It returns the outcome, or, when the
// attempt timed out or could not connect, the error to retry after.
func (d *webhookDispatcher) first(ctx context.Context, job *webhookJob) (webhookOutcome, error) {
	if ctx.Err() != nil {
		return webhookOutcome{aborted: true}, nil
	}
	if job.slackDM {
		return webhookOutcome{failure: webhookSlackNoDMs}, nil
	}
	u, err := url.Parse(job.service.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		if err == nil {
			err = fmt.Errorf("unsupported URL %q", job.service.BaseURL)
		}
		return exceptionOutcome(job, "InvalidURL", err), nil
	}
	job.url = u
	return d.attempt(ctx, job, 1)
}

// retry makes the remaining attempts of job after a first one failed with
// firstErr, pausing RetryDelay before each, and decides the outcome.
func (d *webhookDispatcher) retry(ctx context.Context, job *webhookJob, firstErr error) webhookOutcome {
	lastErr := firstErr
	for n := 2; n <= d.opts.MaxRetries+1; n++ {
		t := time.NewTimer(d.opts.RetryDelay)
		select {
		case <-ctx.Done():
			t.Stop()
			return webhookOutcome{aborted: true}
		case <-t.C:
		}
		out, err := d.attempt(ctx, job, n)
		if err == nil {
			return out
		}
		lastErr = err
	}
	d.s.log.WarnContext(ctx, "chatcore: outgoing webhook gave up", "bot_id", job.botID,
		"url", job.service.BaseURL, "attempts", d.opts.MaxRetries+1, "err", lastErr)
	notice := webhookConnectionError
	if isTimeout(lastErr) {
		notice = fmt.Sprintf("Request timed out after %s.", secondsText(d.opts.Timeout))
	}
	return webhookOutcome{failure: webhookUnavailable, notify: true, notice: notice}
}

// attempt makes attempt number n of job. It returns the outcome, or the error
// of an attempt that timed out or could not connect, which may be retried.
func (d *webhookDispatcher) attempt(ctx context.Context, job *webhookJob, n int) (webhookOutcome, error) {
	status, body, err := d.post(ctx, job.url, job)
	if err == nil {
		return responseOutcome(job, status, body), nil
	}
	if ctx.Err() != nil {
		return webhookOutcome{aborted: true}, nil
	}
	switch {
	case errors.Is(err, errWebhookBlocked):
		// Zulip's egress proxy answers such requests with 407.
		d.s.log.WarnContext(ctx, "chatcore: outgoing webhook refused: private or disallowed address",
			"bot_id", job.botID, "url", job.service.BaseURL, "err", err)
		return webhookOutcome{
			failure: "Third party responded with 407",
			notify:  true, notice: webhookPrivateNetwork,
		}, nil
	case errors.Is(err, errTooManyRedirects):
		return exceptionOutcome(job, "TooManyRedirects", err), nil
	}
	d.s.log.InfoContext(ctx, "chatcore: outgoing webhook attempt failed",
		"bot_id", job.botID, "url", job.service.BaseURL, "attempt", n, "err", err)
	return webhookOutcome{}, err
}

// post makes one attempt and returns the status and (size-limited) body.
func (d *webhookDispatcher) post(ctx context.Context, u *url.URL, job *webhookJob) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(job.body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", job.contentType)
	req.Header.Set("User-Agent", "ChatcoreOutgoingWebhook/"+Version)
	res, err := d.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, webhookMaxBody))
	if err != nil {
		return 0, nil, err
	}
	return res.StatusCode, body, nil
}

// isTimeout reports whether a request error is a timeout.
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// secondsText renders a timeout the way Zulip's message does: "10 seconds".
func secondsText(d time.Duration) string {
	if d%time.Second == 0 {
		n := int64(d / time.Second)
		if n == 1 {
			return "1 second"
		}
		return fmt.Sprintf("%d seconds", n)
	}
	return fmt.Sprintf("%g seconds", d.Seconds())
}

// exceptionOutcome is the outcome of a request that failed in a way that is
// neither an HTTP status, a timeout nor a connection error.
func exceptionOutcome(job *webhookJob, name string, err error) webhookOutcome {
	return webhookOutcome{
		failure: fmt.Sprintf("An exception of type *%s* occurred for message `%s`! See the server logs for more information.",
			name, job.command),
		notify: true,
		notice: fmt.Sprintf("When trying to send a request to the webhook service, an exception of type %s occurred:\n```\n%s\n```",
			name, err),
	}
}

// responseOutcome decides what an answer with the given status and body leads
// to, by the rules of Zulip's generic and Slack interfaces.
func responseOutcome(job *webhookJob, status int, body []byte) webhookOutcome {
	if status < 200 || status > 299 {
		out := webhookOutcome{
			failure: fmt.Sprintf("Third party responded with %d", status),
			notify:  true,
			notice:  fmt.Sprintf("The webhook got a response with status code *%d*.", status),
		}
		if status == http.StatusProxyAuthRequired {
			out.notice = webhookPrivateNetwork
		}
		if len(body) > 0 {
			out.notice += payloadBlock(body)
		}
		return out
	}
	content, err := successContent(job.service.Interface, body)
	if err != nil {
		return webhookOutcome{
			failure: err.Error(),
			notify:  true,
			notice: "The webhook server answered, but its answer could not be used:\n> " + err.Error() +
				payloadBlock(body),
		}
	}
	if strings.TrimSpace(content) == "" {
		return webhookOutcome{}
	}
	return webhookOutcome{reply: content}
}

// payloadBlock quotes a response body for the owner notice.
func payloadBlock(body []byte) string {
	return "\nThe response contains the following payload:\n```\n" + strings.ToValidUTF8(string(body), "\uFFFD") + "\n```"
}

// webhookAnswerError is a 2xx answer that cannot be used; its text is Zulip's.
type webhookAnswerError string

func (e webhookAnswerError) Error() string { return string(e) }

// successContent returns the reply text of a 2xx answer ("" for none), or a
// webhookAnswerError.
func successContent(iface string, body []byte) (string, error) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return "", webhookAnswerError("Invalid JSON in response")
	}
	if s, ok := v.(string); ok && s == "" {
		return "", nil // legacy "no response"
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", webhookAnswerError("Invalid response format")
	}
	if iface == "slack" {
		if t, ok := obj["text"]; ok {
			return pyStr(t), nil
		}
		return "", nil
	}
	if truthy(obj["response_not_required"]) {
		return "", nil
	}
	if r, ok := obj["response_string"]; ok {
		return pyStr(r), nil
	}
	if c, ok := obj["content"]; ok {
		return pyStr(c), nil
	}
	return "", nil
}

// truthy is JSON truthiness as Zulip (Python) sees it.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

// pyStr turns a JSON value into reply text: strings as they are, anything else
// as its JSON (null gives "", so no reply).
func pyStr(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	b, _ := json.Marshal(v)
	return string(b)
}
