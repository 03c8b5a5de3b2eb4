package syncbuf_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/syncbuf"
)

func TestBufferConcurrentWrites(t *testing.T) {
	is := is.New(t)
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				fmt.Fprintf(&b, "%d\n", i)
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	is.Equal(len(lines), 800) // every write kept whole
	counts := map[string]int{}
	for _, l := range lines {
		counts[l]++
	}
	for i := range 8 {
		is.Equal(counts[fmt.Sprint(i)], 100) // each writer's lines all there
	}
}
