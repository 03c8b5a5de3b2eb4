package webhooks

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

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/netguard"
)

// maxAnswerBytes is the number of bytes of an answer that are read.
const maxAnswerBytes = 1 << 20

// first makes the first attempt of j. It returns the outcome, or, when the
// attempt timed out or could not connect, the error to retry after.
func (d *dispatcher) first(ctx context.Context, j *job) (outcome, error) {
	if ctx.Err() != nil {
		return outcome{aborted: true}, nil
	}
	if j.slackDM {
		return outcome{failure: slackNoDMs}, nil
	}
	u, err := url.Parse(j.hook.Service.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		if err == nil {
			err = fmt.Errorf("unsupported URL %q", j.hook.Service.BaseURL)
		}
		return exceptionOutcome(j.hook, "InvalidURL", err), nil
	}
	j.url = u
	return d.attempt(ctx, j)
}

// retry makes the remaining attempts of j after a first one failed with
// firstErr, pausing RetryDelay before each, and decides the outcome.
func (d *dispatcher) retry(ctx context.Context, j *job, firstErr error) outcome {
	lastErr := firstErr
	for j.next <= d.opts.MaxRetries+1 {
		t := time.NewTimer(d.opts.RetryDelay)
		select {
		case <-ctx.Done():
			t.Stop()
			return outcome{aborted: true}
		case <-t.C:
		}
		out, err := d.attempt(ctx, j)
		if err == nil {
			return out
		}
		lastErr = err
	}
	d.log().WarnContext(ctx, "chatcore: outgoing webhook gave up", "bot_id", j.hook.Bot.ID,
		"url", j.hook.Service.BaseURL, "attempts", d.opts.MaxRetries+1, "err", lastErr)
	notice := connectionErrorNotice
	if isTimeout(lastErr) {
		notice = fmt.Sprintf("Request timed out after %s.", secondsText(d.opts.Timeout))
	}
	return outcome{failure: unavailable, notify: true, notice: notice}
}

// attempt claims and makes attempt number j.next of j. It returns the
// outcome, or the error of an attempt that timed out or could not connect,
// which may be retried.
func (d *dispatcher) attempt(ctx context.Context, j *job) (outcome, error) {
	n := j.next
	ok, err := d.s.ClaimWebhookAttempt(ctx, j.hook, n)
	switch {
	case err != nil:
		// Not claimed: left stored for a later resume.
		d.log().ErrorContext(ctx, "chatcore: claiming an outgoing webhook attempt", "bot_id", j.hook.Bot.ID, "attempt", n, "err", err)
		return outcome{aborted: true}, nil
	case !ok:
		d.log().InfoContext(ctx, "chatcore: outgoing webhook attempt claimed elsewhere", "bot_id", j.hook.Bot.ID, "attempt", n)
		return outcome{taken: true}, nil
	}
	j.next++
	status, body, err := d.post(ctx, j.url, j)
	if err == nil {
		return responseOutcome(j.hook, status, body), nil
	}
	if ctx.Err() != nil {
		return outcome{aborted: true}, nil
	}
	switch {
	case errors.Is(err, netguard.ErrBlocked): // a dial error, but not one to retry
		// Zulip's egress proxy answers such requests with 407.
		d.log().WarnContext(ctx, "chatcore: outgoing webhook refused: private or disallowed address",
			"bot_id", j.hook.Bot.ID, "url", j.hook.Service.BaseURL, "err", err)
		return outcome{
			failure: "Third party responded with 407",
			notify:  true, notice: privateNetworkNotice,
		}, nil
	case isTimeout(err) || isConnectionError(err):
		d.log().InfoContext(ctx, "chatcore: outgoing webhook attempt failed",
			"bot_id", j.hook.Bot.ID, "url", j.hook.Service.BaseURL, "attempt", n, "err", err)
		return outcome{}, err
	}
	name := requestExceptionName(err)
	d.log().ErrorContext(ctx, "chatcore: outgoing webhook request failed", "bot_id", j.hook.Bot.ID,
		"url", j.hook.Service.BaseURL, "attempt", n, "exception", name, "err", err)
	return exceptionOutcome(j.hook, name, err), nil
}

// post makes one attempt and returns the status and (size-limited) body.
func (d *dispatcher) post(ctx context.Context, u *url.URL, j *job) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(j.body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", j.contentType)
	req.Header.Set("User-Agent", "ChatcoreOutgoingWebhook/"+chatcore.Version)
	res, err := d.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes))
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
