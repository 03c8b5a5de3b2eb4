package memory

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/matryer/is"
)

// TestIDList compares idList with a map under random adds and removes, which
// exercise tail trimming, tombstones and compaction.
func TestIDList(t *testing.T) {
	is := is.New(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var l idList[int64]
	model := map[int64]bool{}
	for i := range 20000 {
		id := rng.Int64N(500) + 1
		switch rng.IntN(3) {
		case 0:
			is.Equal(l.add(id), !model[id]) // add reports a change exactly when id was missing
			model[id] = true
		case 1:
			is.Equal(l.remove(id), model[id]) // remove reports a change exactly when id was present
			delete(model, id)
		default:
			// Remove the highest ids, as newest-first deletes do.
			for range 5 {
				if len(model) == 0 {
					break
				}
				top := slices.Max(slices.Collect(func(yield func(int64) bool) {
					for k := range model {
						if !yield(k) {
							return
						}
					}
				}))
				is.True(l.remove(top)) // the highest id is present
				delete(model, top)
			}
		}
		if i%97 == 0 {
			want := make([]int64, 0, len(model))
			for k := range model {
				want = append(want, k)
			}
			slices.Sort(want)
			is.Equal(append([]int64{}, l.collect()...), want) // the list holds exactly the model's ids, sorted
			lo, hi := rng.Int64N(500), rng.Int64N(500)
			var between []int64
			for _, k := range want {
				if (lo == 0 || k > lo) && (hi == 0 || k < hi) {
					between = append(between, k)
				}
			}
			is.Equal(slices.Collect(l.between(lo, hi, false)), between) // bounds are exclusive, zero unbounded
			slices.Reverse(between)
			is.Equal(slices.Collect(l.between(lo, hi, true)), between) // descending order is the reverse
		}
	}
}

func TestIDListNil(t *testing.T) {
	is := is.New(t)
	var l *idList[int64]
	is.Equal(len(l.collect()), 0) // a nil list is empty
}
