package slicex_test

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/slicex"
)

func TestUnique(t *testing.T) {
	is := is.New(t)
	in := []int{3, 1, 3, 2, 1}
	is.Equal(slicex.Unique(in), []int{3, 1, 2})
	is.Equal(in, []int{3, 1, 3, 2, 1}) // the input is left alone
	is.Equal(len(slicex.Unique([]string(nil))), 0)
}

func TestOrEmpty(t *testing.T) {
	is := is.New(t)
	b, err := json.Marshal(slicex.OrEmpty([]int(nil)))
	is.NoErr(err)
	is.Equal(string(b), "[]")
	s := []int{1}
	is.Equal(slicex.OrEmpty(s), s)
}

func TestSortedSet(t *testing.T) {
	is := is.New(t)
	in := []int{3, 1, 3, 2}
	is.Equal(slicex.SortedSet(in), []int{1, 2, 3})
	is.Equal(in, []int{3, 1, 3, 2}) // the input is left alone
	asc := []int{1, 4, 9}
	out := slicex.SortedSet(asc)
	is.Equal(out, asc)
	is.True(&out[0] == &asc[0]) // an ascending input is returned as is
	is.Equal(slicex.SortedSet([]int{2, 2}), []int{2})
	is.Equal(len(slicex.SortedSet([]int(nil))), 0)
}
