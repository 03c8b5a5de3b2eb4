package fifocache_test

import (
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/fifocache"
)

// TestOldestForgottenFirst fills a cache past its size and checks that the
// keys added first are the ones forgotten.
func TestOldestForgottenFirst(t *testing.T) {
	is := is.New(t)
	c := fifocache.New[int, string](3)
	for i := 1; i <= 5; i++ {
		c.Add(i, "v")
	}
	is.Equal(c.Len(), 3) // the cache holds its size
	for i := 1; i <= 5; i++ {
		_, ok := c.Get(i)
		is.Equal(ok, i > 2) // keys 1 and 2, added first, are forgotten
	}
}

// TestAddKeepsFirst checks that Add keeps the value stored first and returns it.
func TestAddKeepsFirst(t *testing.T) {
	is := is.New(t)
	c := fifocache.New[string, int](2)
	is.Equal(c.Add("a", 1), 1) // a new key takes the value
	is.Equal(c.Add("a", 2), 1) // a held key keeps its first value
	v, ok := c.Get("a")
	is.True(ok)
	is.Equal(v, 1) // Get sees the first value
}

// TestPutReplacesWhenAsked checks Put's replace rule and that replacing a
// value does not make its key younger.
func TestPutReplacesWhenAsked(t *testing.T) {
	is := is.New(t)
	c := fifocache.New[string, int](2)
	newer := func(v int) func(int) bool { return func(old int) bool { return v > old } }
	c.Put("a", 5, newer(5))
	c.Put("a", 3, newer(3))
	v, _ := c.Get("a")
	is.Equal(v, 5) // an older value does not replace a newer one
	c.Put("a", 7, newer(7))
	v, _ = c.Get("a")
	is.Equal(v, 7) // a newer value does
	c.Put("b", 1, newer(1))
	c.Put("c", 1, newer(1))
	_, ok := c.Get("a")
	is.True(!ok) // "a", added first, is forgotten first although replaced later
}

// TestNil checks that a nil cache holds nothing.
func TestNil(t *testing.T) {
	is := is.New(t)
	var c *fifocache.Cache[int, int]
	is.Equal(c.Add(1, 2), 2) // Add returns the value it was given
	c.Put(1, 3, func(int) bool { return true })
	_, ok := c.Get(1)
	is.True(!ok)         // nothing is held
	is.Equal(c.Len(), 0) // and the length is zero
}

// TestConcurrent exercises the cache from several goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	is := is.New(t)
	c := fifocache.New[int, int](16)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				c.Add(i%64, g)
				c.Put(i%32, i, func(old int) bool { return i > old })
				c.Get(i % 48)
			}
		})
	}
	wg.Wait()
	is.True(c.Len() <= 16) // the bound holds under concurrent use
}
