package chatcore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// unavailableStore is a store whose transactions fail as a store's do when
// the database is out of reach.
type unavailableStore struct{ chatcore.Store }

func (unavailableStore) View(context.Context, func(chatcore.Tx) error) error {
	return fmt.Errorf("sqlite: begin view: %w", chatcore.ErrUnavailable)
}

func (unavailableStore) Update(context.Context, func(chatcore.Tx) error) error {
	return fmt.Errorf("postgres: begin update: %w", chatcore.ErrUnavailable)
}

// TestUnavailableStoreErrors: a store error wrapping ErrUnavailable comes
// out of the Service's View and Update as an *Error of kind
// KindUnavailable with a RetryAfter, the cause kept.
func TestUnavailableStoreErrors(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	svc := chatcore.New(unavailableStore{memory.New()})
	_, viewErr := svc.IsEmpty(ctx)
	updateErr := svc.Update(ctx, func(chatcore.Tx, *chatcore.Effects) error { return nil })
	for _, err := range []error{viewErr, updateErr} {
		e, ok := errors.AsType[*chatcore.Error](err)
		is.True(ok)                                // a Service error
		is.Equal(e.Kind, chatcore.KindUnavailable) // of the unavailable kind
		is.Equal(e.RetryAfter, chatcore.UnavailableRetryAfter)
		is.True(errors.Is(err, chatcore.ErrUnavailable)) // the cause kept
	}
	is.Equal(chatcore.KindUnavailable.String(), "unavailable")
}
