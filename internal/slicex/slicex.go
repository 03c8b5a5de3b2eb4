// Package slicex holds the slice helpers the packages share and the
// standard library lacks: an order-keeping dedupe, a sorted set, and
// nil-to-empty.
package slicex

import (
	"cmp"
	"slices"
)

// Unique returns s without repeats, in order of first occurrence, in a new
// slice.
func Unique[T comparable](s []T) []T {
	seen := make(map[T]struct{}, len(s))
	out := make([]T, 0, len(s))
	for _, v := range s {
		if _, ok := seen[v]; !ok {
			seen[v] = struct{}{}
			out = append(out, v)
		}
	}
	return out
}

// SortedSet returns s sorted and without repeats: s itself when it is
// strictly ascending already (the common case, checked in one pass),
// otherwise a new slice.
func SortedSet[T cmp.Ordered](s []T) []T {
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			return slices.Compact(slices.Sorted(slices.Values(s)))
		}
	}
	return s
}

// OrEmpty turns a nil slice into an empty one, which encodes as a JSON [] rather
// than null.
func OrEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
