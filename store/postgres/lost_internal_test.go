package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/matryer/is"

	"github.com/chatcore/chatcore/store"
)

// safeToRetry is an error pgconn reports before sending anything.
type safeToRetry struct{}

func (safeToRetry) Error() string     { return "conn closed before sending" }
func (safeToRetry) SafeToRetry() bool { return true }
func (safeToRetry) Unwrap() error     { return pgconn.ErrConnClosed }

// TestCommitOutcome: a commit batch that fails on a lost connection is run
// again only when the server cannot have committed it.
func TestCommitOutcome(t *testing.T) {
	terminated := &pgconn.PgError{Severity: "FATAL", Code: codeAdminShutdown, Message: "terminating connection due to administrator command"}
	eof := fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF)
	unique := &pgconn.PgError{Code: codeUniqueViolation}
	tests := []struct {
		name              string
		stmtErr, commit   error
		lost, runAgain    bool
		unknown, wrapsErr bool
	}{
		{name: "a statement before the COMMIT answered the termination", stmtErr: terminated, lost: true, runAgain: true},
		{name: "nothing of the batch was sent", stmtErr: safeToRetry{}, lost: true, runAgain: true},
		{name: "a statement before the COMMIT met a closed socket", stmtErr: eof, lost: true, unknown: true},
		{name: "the COMMIT answered the termination", commit: terminated, lost: true, unknown: true},
		{name: "the COMMIT met a closed socket", commit: eof, lost: true, unknown: true},
		{name: "the COMMIT was not sent", commit: safeToRetry{}, lost: true, runAgain: true},
		{name: "a constraint", stmtErr: unique},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			err := commitOutcome(tt.stmtErr, tt.commit)
			is.True(err != nil)
			is.Equal(connLost(err), tt.lost)                                     // a lost connection
			is.Equal(lostUncommitted(err), tt.runAgain)                          // that may run again
			is.Equal(errors.Is(err, errOutcomeUnknown), tt.unknown)              // or whose outcome is unknown
			is.Equal(errors.Is(unavailable(err), store.ErrUnavailable), tt.lost) // unavailable once retries end
		})
	}
	is := is.New(t)
	is.Equal(commitOutcome(nil, nil), nil)
	is.True(!connLost(context.Canceled))                                               // a context's end is no lost connection
	is.True(!connLost(fmt.Errorf("timeout: %w %w", io.EOF, context.DeadlineExceeded))) // not even with the socket closed under it
}
