package scheduled_test

import (
	"context"
	"testing"
	"time"

	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/matryer/is"
)

// TestRunObserved: each delivery round's count reaches the observer.
func TestRunObserved(t *testing.T) {
	is := is.New(t)
	w, c := newCast(t, chattest.Open(func(tb testing.TB, opts ...chattest.Option) *chattest.World { return chattest.New(tb, opts...) }))
	_, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("direct", idList(c.Moderator.ID), nil, "hi", time.Minute))
	is.NoErr(err)
	w.Clock.Advance(2 * time.Minute)
	got := make(chan int, 10)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { scheduled.RunObserved(ctx, w.Svc, 5*time.Millisecond, func(n int) { got <- n }); close(done) }()
	select {
	case n := <-got:
		is.Equal(n, 1) // the due message
	case <-time.After(5 * time.Second):
		t.Fatal("no round reported a delivery")
	}
	cancel()
	<-done
	is.Equal(len(got), 0) // rounds that deliver nothing are not reported
}
