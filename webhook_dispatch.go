package chatcore

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
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
	notify bool
	notice string
	// answer is the text of a 2xx answer whose reply is posted; when posting
	// it fails, the owner notice quotes it.
	answer  []byte
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

// Errors of the redirect policy.
var (
	errTooManyRedirects = errors.New("too many redirects")
	errRedirectScheme   = errors.New("redirect to a URL that is not http or https")
)

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
	case errors.Is(err, errWebhookBlocked): // a dial error, but not one to retry
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
	case errors.Is(err, errTooManyRedirects):
		return "TooManyRedirects"
	case errors.Is(err, errRedirectScheme):
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

// exceptionOutcome is the outcome of a request that failed in a way that is
// neither an HTTP status, a timeout nor a connection error.
func exceptionOutcome(job *webhookJob, name string, err error) webhookOutcome {
	return webhookOutcome{
		failure: fmt.Sprintf("An exception of type *%s* occurred for message `%s`! See the Zulip server logs for more information.",
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
			out.notice += payloadBlock(pyBytesRepr(body)) // Zulip quotes response.content
		}
		return out
	}
	content, err := successContent(job.service.Interface, body)
	if err != nil {
		return unusableAnswer(err.Error(), body)
	}
	if strings.TrimSpace(content) == "" {
		return webhookOutcome{}
	}
	return webhookOutcome{reply: content, answer: body}
}

// unusableAnswer is the outcome of a 2xx answer that could not be turned into
// a posted reply: its JSON was unusable, or posting the reply was refused with
// msg. The owner notice quotes the answer as Zulip does (response.text).
func unusableAnswer(msg string, body []byte) webhookOutcome {
	out := webhookOutcome{
		failure: msg,
		notify:  true,
		notice: "The outgoing webhook server attempted to send a message in Zulip, " +
			"but that request resulted in the following error:\n> " + msg,
	}
	if len(body) > 0 {
		out.notice += payloadBlock(pyStrRepr(string(body)))
	}
	return out
}

// payloadBlock quotes a response body, already in its Python repr, for the
// owner notice.
func payloadBlock(repr string) string {
	return "\nThe response contains the following payload:\n```\n" + repr + "\n```"
}

// webhookAnswerError is a 2xx answer that cannot be used; its text is Zulip's.
type webhookAnswerError string

func (e webhookAnswerError) Error() string { return string(e) }

// successContent returns the reply text of a 2xx answer ("" for none), or a
// webhookAnswerError. Values that are not strings become text as Python's
// str() writes them, as in Zulip: {"content": null} replies "None".
func successContent(iface string, body []byte) (string, error) {
	if !json.Valid(body) {
		return "", webhookAnswerError("Invalid JSON in response")
	}
	if s, ok := jsonString(body); ok && s == "" {
		return "", nil // legacy "no response"
	}
	var obj map[string]json.RawMessage
	if body := bytes.TrimSpace(body); len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &obj) != nil {
		return "", webhookAnswerError("Invalid response format")
	}
	if iface == BotInterfaceSlack {
		// Zulip takes "text" as it is: null posts nothing, and a value that
		// is not a string fails inside its worker, posting nothing either.
		s, _ := jsonString(obj["text"])
		return s, nil
	}
	if raw, ok := obj["response_not_required"]; ok {
		var v any
		if json.Unmarshal(raw, &v) == nil && truthy(v) {
			return "", nil
		}
	}
	if raw, ok := obj["response_string"]; ok {
		return pyStr(raw), nil
	}
	if raw, ok := obj["content"]; ok {
		return pyStr(raw), nil
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

// pyStr returns Python's str() of the JSON value raw as json.loads reads it:
// a string as it is, anything else as its Python repr (None, True, 1.0,
// ['a', 1], {'k': None}), object keys in their order.
func pyStr(raw json.RawMessage) string {
	if s, ok := jsonString(raw); ok {
		return s
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := pyReprValue(dec, &b); err != nil {
		return string(raw) // cannot happen: raw is valid JSON
	}
	return b.String()
}

// jsonString returns the value of raw when it is a JSON string.
func jsonString(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// pyReprValue writes the Python repr of the next JSON value of dec.
func pyReprValue(dec *json.Decoder, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(pyStrRepr(v))
	case json.Number:
		b.WriteString(pyNumberRepr(v))
	case json.Delim:
		if v == '[' {
			b.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				if err := pyReprValue(dec, b); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		} else {
			// A dict keeps the first position of a repeated key and its
			// last value.
			var keys []string
			vals := map[string]string{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				var vb strings.Builder
				if err := pyReprValue(dec, &vb); err != nil {
					return err
				}
				if _, seen := vals[k]; !seen {
					keys = append(keys, k)
				}
				vals[k] = vb.String()
			}
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(pyStrRepr(k))
				b.WriteString(": ")
				b.WriteString(vals[k])
			}
			b.WriteByte('}')
		}
		_, err := dec.Token() // the closing delimiter
		return err
	}
	return nil
}

// pyNumberRepr is the Python repr of a JSON number: an int for a literal
// without fraction or exponent, a float otherwise.
func pyNumberRepr(n json.Number) string {
	text := n.String()
	if !strings.ContainsAny(text, ".eE") {
		if i, ok := new(big.Int).SetString(text, 10); ok {
			return i.String()
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case err != nil:
		return text
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e // Python writes 1e+16 and 1e-05 the same way
	}
	fixed := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(fixed, ".") {
		fixed += ".0"
	}
	return fixed
}

// pyQuote returns the quote Python's repr uses for text: ' unless the text
// contains ' and no ".
func pyQuote(hasSingle, hasDouble bool) byte {
	if hasSingle && !hasDouble {
		return '"'
	}
	return '\''
}

// pyStrRepr is Python's repr of a str; invalid UTF-8 bytes are each read as
// U+FFFD, as response.text decodes them.
func pyStrRepr(s string) string {
	q := pyQuote(strings.Contains(s, "'"), strings.Contains(s, `"`))
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyBytesRepr is Python's repr of a bytes value.
func pyBytesRepr(p []byte) string {
	q := pyQuote(bytes.IndexByte(p, '\'') >= 0, bytes.IndexByte(p, '"') >= 0)
	var b strings.Builder
	b.WriteString("b")
	b.WriteByte(q)
	for _, c := range p {
		switch {
		case c == '\\' || c == q:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}
