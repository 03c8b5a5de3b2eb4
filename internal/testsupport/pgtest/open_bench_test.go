package pgtest_test

import (
	"fmt"
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
)

// BenchmarkOpen measures opening a store in a released schema and releasing
// it again, as each test does.
func BenchmarkOpen(b *testing.B) {
	i := 0
	for b.Loop() {
		b.Run(fmt.Sprint(i), func(b *testing.B) { pgtest.Open(b) })
		i++
	}
}
