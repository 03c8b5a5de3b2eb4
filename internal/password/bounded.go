package password

import "context"

// Hasher hashes and verifies passwords; [Argon2id] is one.
type Hasher interface {
	// Hash returns an encoded hash of password.
	Hash(password string) (string, error)
	// Verify reports whether password matches the encoded hash.
	Verify(hash, password string) (bool, error)
}

// Bounded runs a [Hasher] at most a fixed number of calls at a time: a
// memory-hard hash such as argon2id holds its memory for the whole call, so
// the bound bounds that memory. Callers beyond it wait, or give up when their
// context ends. Safe for concurrent use when the Hasher is.
type Bounded struct {
	h     Hasher
	slots chan struct{}
}

// NewBounded returns h bounded to n concurrent calls (at least one).
func NewBounded(h Hasher, n int) *Bounded {
	return &Bounded{h: h, slots: make(chan struct{}, max(n, 1))}
}

// acquire waits for a slot and returns the function that gives it back, or
// ctx's error when ctx ends first.
func (b *Bounded) acquire(ctx context.Context) (func(), error) {
	select {
	case b.slots <- struct{}{}:
		return func() { <-b.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Hash runs the Hasher's Hash within the bound.
func (b *Bounded) Hash(ctx context.Context, pw string) (string, error) {
	release, err := b.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return b.h.Hash(pw)
}

// Verify runs the Hasher's Verify within the bound.
func (b *Bounded) Verify(ctx context.Context, hash, pw string) (bool, error) {
	release, err := b.acquire(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	return b.h.Verify(hash, pw)
}
