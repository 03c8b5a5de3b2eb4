package password_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/password"
)

// slowHasher counts how many of its calls run at once.
type slowHasher struct {
	running, peak atomic.Int32
}

func (h *slowHasher) enter() func() {
	n := h.running.Add(1)
	for {
		p := h.peak.Load()
		if n <= p || h.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(5 * time.Millisecond)
	return func() { h.running.Add(-1) }
}

func (h *slowHasher) Hash(pw string) (string, error) { defer h.enter()(); return "h:" + pw, nil }
func (h *slowHasher) Verify(hash, pw string) (bool, error) {
	defer h.enter()()
	return hash == "h:"+pw, nil
}

// TestBoundedLimitsConcurrency checks that no more than n calls run at once
// and that the Hasher's answers come through.
func TestBoundedLimitsConcurrency(t *testing.T) {
	is := is.New(t)
	h := &slowHasher{}
	b := password.NewBounded(h, 2)
	done := make(chan struct{})
	for i := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			if i%2 == 0 {
				_, _ = b.Hash(context.Background(), "pw")
			} else {
				_, _ = b.Verify(context.Background(), "h:pw", "pw")
			}
		}()
	}
	for range 8 {
		<-done
	}
	is.True(h.peak.Load() <= 2) // at most two calls at a time
	hash, err := b.Hash(context.Background(), "x")
	is.NoErr(err)
	is.Equal(hash, "h:x") // the hasher's hash
	ok, err := b.Verify(context.Background(), hash, "x")
	is.NoErr(err)
	is.True(ok) // the hasher's verdict
}

// TestBoundedGivesUp checks that a caller waiting for a slot returns its
// context's error when the context ends.
func TestBoundedGivesUp(t *testing.T) {
	is := is.New(t)
	h := blockingHasher{entered: make(chan struct{}), release: make(chan struct{})}
	b := password.NewBounded(h, 1)
	go func() { _, _ = b.Hash(context.Background(), "first") }()
	<-h.entered // the first call holds the only slot
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := b.Verify(ctx, "h", "pw")
	is.True(errors.Is(err, context.DeadlineExceeded)) // the waiting caller gives up
	close(h.release)
}

// blockingHasher's calls signal entered, then wait for release.
type blockingHasher struct{ entered, release chan struct{} }

func (h blockingHasher) Hash(string) (string, error) {
	h.entered <- struct{}{}
	<-h.release
	return "", nil
}

func (h blockingHasher) Verify(string, string) (bool, error) {
	h.entered <- struct{}{}
	<-h.release
	return false, nil
}
