package listeners_test

import (
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/listeners"
)

// TestAddCallRemove checks that Call reaches the callbacks added, in order,
// and no longer those removed.
func TestAddCallRemove(t *testing.T) {
	is := is.New(t)
	var s listeners.Set[int]
	var got []string
	s.Call(1) // an empty set calls nothing
	removeA := s.Add(func(v int) { got = append(got, "a", string(rune('0'+v))) })
	removeB := s.Add(func(v int) { got = append(got, "b", string(rune('0'+v))) })
	is.Equal(s.Len(), 2)
	s.Call(2)
	is.Equal(got, []string{"a", "2", "b", "2"}) // every callback, in the order added
	removeA()
	removeA() // removing twice removes once
	is.Equal(s.Len(), 1)
	got = nil
	s.Call(3)
	is.Equal(got, []string{"b", "3"}) // a removed callback is not called
	removeB()
	is.Equal(s.Len(), 0) // the set is empty again
}

// TestConcurrent adds, removes and calls from several goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	var s listeners.Set[int]
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range 200 {
				remove := s.Add(func(int) {})
				s.Call(i)
				remove()
			}
		})
	}
	wg.Wait()
	is.New(t).Equal(s.Len(), 0) // every callback removed
}
