package memory

import (
	"cmp"
	"iter"
	"slices"
)

// idList is a sorted set of ids. Removing the highest id is O(1); other
// removals leave a tombstone that is swept once tombstones make up half of the
// list, so deleting many ids in any order stays linear overall. The zero value
// is an empty list.
type idList[T cmp.Ordered] struct {
	ids  []T            // sorted, unique; may include tombstones
	dead map[T]struct{} // tombstones: ids in ids that are not in the set
}

// add inserts id and reports whether the set changed.
func (l *idList[T]) add(id T) bool {
	i, found := slices.BinarySearch(l.ids, id)
	if found {
		if _, d := l.dead[id]; d {
			delete(l.dead, id)
			return true
		}
		return false
	}
	l.ids = slices.Insert(l.ids, i, id)
	return true
}

// remove deletes id and reports whether the set changed.
func (l *idList[T]) remove(id T) bool {
	i, found := slices.BinarySearch(l.ids, id)
	if !found {
		return false
	}
	if _, d := l.dead[id]; d {
		return false
	}
	if i == len(l.ids)-1 {
		l.ids = l.ids[:i]
		for n := len(l.ids); n > 0; n = len(l.ids) {
			if _, d := l.dead[l.ids[n-1]]; !d {
				break
			}
			delete(l.dead, l.ids[n-1])
			l.ids = l.ids[:n-1]
		}
		return true
	}
	if l.dead == nil {
		l.dead = make(map[T]struct{})
	}
	l.dead[id] = struct{}{}
	if len(l.dead) >= 64 && 2*len(l.dead) > len(l.ids) {
		l.ids = slices.DeleteFunc(l.ids, func(id T) bool {
			_, d := l.dead[id]
			return d
		})
		l.dead = nil
	}
	return true
}

// between yields the ids strictly between after and before (a zero bound does
// not bound), ascending, or descending when desc is set. A nil list is empty. The
// list must not be modified during the iteration.
func (l *idList[T]) between(after, before T, desc bool) iter.Seq[T] {
	return func(yield func(T) bool) {
		if l == nil {
			return
		}
		var zero T
		lo, hi := 0, len(l.ids)
		if after != zero {
			i, found := slices.BinarySearch(l.ids, after)
			if found {
				i++
			}
			lo = i
		}
		if before != zero {
			hi, _ = slices.BinarySearch(l.ids, before)
		}
		for k := range hi - lo {
			i := lo + k
			if desc {
				i = hi - 1 - k
			}
			id := l.ids[i]
			if _, d := l.dead[id]; d {
				continue
			}
			if !yield(id) {
				return
			}
		}
	}
}

// all yields every id in ascending order.
func (l *idList[T]) all() iter.Seq[T] {
	var zero T
	return l.between(zero, zero, false)
}

// collect returns the ids of l in ascending order. A nil list is empty.
func (l *idList[T]) collect() []T {
	return slices.Collect(l.all())
}
