package chatcore

import (
	"strconv"

	"golang.org/x/exp/constraints"
)

// ParseID parses the decimal text of a positive id, such as a path parameter.
// It reports false for anything else: signs, spaces, zero, or values that do not
// fit T.
func ParseID[T constraints.Integer](s string) (T, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 63)
	if err != nil || n == 0 {
		return 0, false
	}
	v := T(n)
	if v <= 0 || uint64(v) != n {
		return 0, false
	}
	return v, true
}
