package postgres_test

import (
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store/postgres"
)

// TestGroupCommitObserver: the observer gets each committed group's size.
func TestGroupCommitObserver(t *testing.T) {
	is := is.New(t)
	var mu sync.Mutex
	var sizes []int
	st := pgtest.OpenUnpooled(t, postgres.WithWriteGroups(1), postgres.WithoutNotify(),
		postgres.WithGroupCommitObserver(func(n int) { mu.Lock(); sizes = append(sizes, n); mu.Unlock() }))
	errs := inOneGroup(t, st, newRealm("a", nil), newRealm("b", nil), newRealm("c", nil))
	is.Equal(errs, make([]error, 3)) // every Update committed
	mu.Lock()
	defer mu.Unlock()
	is.Equal(sizes, []int{3}) // one group of three
}
