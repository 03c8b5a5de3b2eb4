// Package slicex holds the two slice helpers the domain packages share and
// the standard library lacks: an order-keeping dedupe and nil-to-empty.
package slicex

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

// OrEmpty turns a nil slice into an empty one, which encodes as a JSON [] rather
// than null.
func OrEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
