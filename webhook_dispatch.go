package chatcore

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/chatcore/chatcore/internal/jobqueue"
	"github.com/chatcore/chatcore/internal/netguard"
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
// the Service POSTs a [github.com/chatcore/chatcore/outgoing.Payload] (or, for
// services with the "slack" interface, Slack's form fields) to each of the
// bot's services from a pool of background workers, with User-Agent
// "ChatcoreOutgoingWebhook/" + [Version]. What the integration answers decides what the bot posts, as in
// Zulip: a 2xx JSON object's "content" (or deprecated "response_string") is
// posted as the bot's reply in the same conversation; "response_not_required",
// empty content or the JSON string "" post nothing; a value that is not a
// string is posted as Python's str() writes it ({"content": null} posts
// "None"). Any other answer, a refused address, a request that fails in
// another way (not retried) and, after the retries, a timeout or connection
// error make the bot post "Failure! ..." there and send its owner a direct
// message that says what went wrong. "widget_content" is ignored.
//
// Without this option no webhook is ever sent. Workers start with the first
// delivery; call [Service.Shutdown] to stop them.
func WithWebhookDelivery(o WebhookOptions) Option {
	return func(s *Service) {
		o = o.withDefaults()
		d := &webhookDispatcher{
			s:    s,
			opts: o,
			client: netguard.NewClient(netguard.Options{
				Timeout: o.Timeout, AllowPrivate: o.AllowPrivate, Transport: o.Transport,
			}),
		}
		d.queue = jobqueue.New(jobqueue.Options{Workers: o.Workers, QueueSize: o.QueueSize}, d.run)
		s.webhooks = d
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

// webhookDispatcher delivers outgoing webhooks: its queue runs each job's
// attempts on a pool of workers (retries beside them), and each finished
// delivery's outcome is posted through the Service.
type webhookDispatcher struct {
	s      *Service
	opts   WebhookOptions
	client *http.Client
	queue  *jobqueue.Queue[*webhookJob]
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

// enqueue hands job to the workers without waiting. It reports false, after
// logging, when the queue is full or the dispatcher has shut down.
func (d *webhookDispatcher) enqueue(ctx context.Context, job *webhookJob) bool {
	err := d.queue.Enqueue(job)
	switch {
	case err == nil:
		return true
	case errors.Is(err, jobqueue.ErrClosed):
		d.s.log.WarnContext(ctx, "chatcore: outgoing webhook not sent: delivery has shut down",
			"bot_id", job.botID, "message_id", job.messageID)
	default:
		d.s.log.ErrorContext(ctx, "chatcore: outgoing webhook dropped: delivery queue is full",
			"bot_id", job.botID, "message_id", job.messageID, "queue_size", d.opts.QueueSize)
	}
	return false
}

func (d *webhookDispatcher) shutdown(ctx context.Context) error {
	err := d.queue.Shutdown(ctx)
	netguard.CloseIdle(d.client)
	return err
}

// run makes the first attempt of job and posts its outcome. When that attempt
// timed out or could not connect, it returns the retries as a follow-up, which
// the queue runs beside the workers (up to QueueSize at once), so that one
// unreachable integration does not hold a worker through its retries.
func (d *webhookDispatcher) run(ctx context.Context, job *webhookJob) func(context.Context) {
	out, retryErr := d.first(ctx, job)
	if retryErr != nil {
		return func(ctx context.Context) { d.finish(ctx, job, d.retry(ctx, job, retryErr)) }
	}
	d.finish(ctx, job, out)
	return nil
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

// webhookMaxBody is the number of bytes of an answer that are read.
const webhookMaxBody = 1 << 20

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
	case errors.Is(err, netguard.ErrBlocked): // a dial error, but not one to retry
		// Zulip's egress proxy answers such requests with 407.
		d.s.log.WarnContext(ctx, "chatcore: outgoing webhook refused: private or disallowed address",
			"bot_id", job.botID, "url", job.service.BaseURL, "err", err)
		return webhookOutcome{
			failure: "Third party responded with 407",
			notify:  true, notice: webhookPrivateNetwork,
		}, nil
	case isTimeout(err) || isConnectionError(err):
		d.s.log.InfoContext(ctx, "chatcore: outgoing webhook attempt failed",
			"bot_id", job.botID, "url", job.service.BaseURL, "attempt", n, "err", err)
		return webhookOutcome{}, err
	}
	name := requestExceptionName(err)
	d.s.log.ErrorContext(ctx, "chatcore: outgoing webhook request failed", "bot_id", job.botID,
		"url", job.service.BaseURL, "attempt", n, "exception", name, "err", err)
	return exceptionOutcome(job, name, err), nil
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

// isConnectionError reports whether a request error is one Zulip's worker
// retries as a connection error (requests' ConnectionError, which includes
// its SSLError, and ChunkedEncodingError): the connection could not be made,
// or was refused, reset or closed before the whole answer arrived, or the TLS
// handshake failed.
func isConnectionError(err error) bool {
	var opErr *net.OpError
	var dnsErr *net.DNSError
	var recordErr tls.RecordHeaderError
	var alertErr tls.AlertError
	var verifyErr *tls.CertificateVerificationError
	var authorityErr x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidErr x509.CertificateInvalidError
	return errors.As(err, &opErr) || errors.As(err, &dnsErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &recordErr) || errors.As(err, &alertErr) || errors.As(err, &verifyErr) ||
		errors.As(err, &authorityErr) || errors.As(err, &hostErr) || errors.As(err, &invalidErr)
}

// requestExceptionName names a request error that is neither a timeout nor a
// connection error after the Python requests exception Zulip would report.
func requestExceptionName(err error) string {
	switch {
	case errors.Is(err, netguard.ErrTooManyRedirects):
		return "TooManyRedirects"
	case errors.Is(err, netguard.ErrRedirectScheme):
		return "InvalidSchema"
	}
	var corrupt flate.CorruptInputError
	if errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt) {
		return "ContentDecodingError"
	}
	return "RequestException"
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
