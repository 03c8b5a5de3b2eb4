package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// maxLostRetries bounds how many times View, ViewSingle and Update run fn
// again after its connection died (see connLost); each retry runs on a
// connection the pool has just checked (see freshConn).
const maxLostRetries = 3

// errOutcomeUnknown marks the failure of a commit whose connection died
// after the COMMIT may have reached the server: the transaction may have
// committed, so it is not run again (its writes would be made twice).
var errOutcomeUnknown = errors.New("postgres: the connection was lost at COMMIT; the transaction may have committed")

// SQLSTATEs of a server that ends the session: admin_shutdown
// (pg_terminate_backend, a fast shutdown), crash_shutdown and
// cannot_connect_now (a server starting or stopping); class 08 is the
// connection exception class.
const (
	codeAdminShutdown    = "57P01"
	codeCrashShutdown    = "57P02"
	codeCannotConnectNow = "57P03"
)

// connLost reports an error of a connection that died or could not be
// made (the server ended the session, the socket closed or was reset, the
// server refused it, the pool found no live one): passing trouble that a fresh connection may not
// have. A context's end is not one, nor is any other error the server
// answered.
func connLost(err error) bool {
	if err == nil || isContextErr(err) {
		return false
	}
	switch code := sqlState(err); {
	case code == codeAdminShutdown || code == codeCrashShutdown || code == codeCannotConnectNow || strings.HasPrefix(code, "08"):
		return true
	case code != "":
		return false
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	if _, ok := errors.AsType[*acquireError](err); ok {
		return true
	}
	if errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	_, isNet := errors.AsType[*net.OpError](err)
	return isNet
}

// lostUncommitted reports a lost connection (connLost) of a transaction
// that certainly did not commit: fn may run again on another connection.
func lostUncommitted(err error) bool {
	return connLost(err) && !errors.Is(err, errOutcomeUnknown)
}

// commitOutcome returns the error of a commit batch that failed: stmtErr
// from a statement queued before the COMMIT, commitErr from the COMMIT
// itself. When the connection died, the error is marked errOutcomeUnknown
// unless the server cannot have committed: nothing of the batch was sent
// (pgconn.SafeToRetry), or the server answered a statement before the
// COMMIT with an error (it runs no statement of the batch after a failed
// one, and ends the session after a FATAL one). The server's answer to the
// COMMIT itself proves nothing: a session terminated while it commits may
// report the termination after the commit is durable.
func commitOutcome(stmtErr, commitErr error) error {
	switch {
	case stmtErr != nil:
		_, answered := errors.AsType[*pgconn.PgError](stmtErr)
		if connLost(stmtErr) && !answered && !pgconn.SafeToRetry(stmtErr) {
			return fmt.Errorf("%w: %w", errOutcomeUnknown, stmtErr)
		}
		return stmtErr
	case commitErr != nil:
		if connLost(commitErr) && !pgconn.SafeToRetry(commitErr) {
			return fmt.Errorf("%w: postgres: commit: %w", errOutcomeUnknown, commitErr)
		}
		return fmt.Errorf("postgres: commit: %w", commitErr)
	}
	return nil
}

// unavailable returns err wrapping store.ErrUnavailable when the
// connection was lost (connLost), and err otherwise: the error View and
// Update return once their retries are spent.
func unavailable(err error) error {
	if connLost(err) {
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

// lostPause waits before retry n (from 1) of a transaction whose
// connection died: about 10 ms, then 40 and 160 ms, randomised, so that a
// server that is restarting has a moment to accept connections and the
// requests that lost their connections together do not reconnect at once.
// It returns ctx's error when ctx ends first.
func lostPause(ctx context.Context, n int) error {
	base := 10 * time.Millisecond << (2 * (n - 1))
	pause := base/2 + time.Duration(rand.Int64N(int64(base)))
	t := time.NewTimer(pause)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// freshConnKey is the context key of freshConn.
type freshConnKey struct{}

// freshConn returns ctx with the mark that makes the pool ping the
// connection it hands out before the transaction uses it (see
// pingFreshConns), replacing a dead one: a transaction runs again after a
// lost connection on a connection known to be alive, while the pool may
// still hold others that died with the first (pg_terminate_backend on
// every backend, a server restart).
func freshConn(ctx context.Context) context.Context {
	return context.WithValue(ctx, freshConnKey{}, true)
}

// pingFreshConns makes the pool of pc ping the connections acquired with a
// freshConn context, and the others as before.
func pingFreshConns(pc *pgxpool.Config) {
	prev := pc.ShouldPing
	pc.ShouldPing = func(ctx context.Context, p pgxpool.ShouldPingParams) bool {
		if ctx.Value(freshConnKey{}) != nil {
			return true
		}
		if prev != nil {
			return prev(ctx, p)
		}
		return p.IdleDuration > time.Second // pgxpool's default
	}
}
