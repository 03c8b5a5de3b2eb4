// Package benchutil measures what the store benchmarks report beside wall
// time: the process's CPU time per operation and the peak of the Go heap.
package benchutil

import (
	"runtime/metrics"
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Timer pairs b's timer with a clock of the CPU time the process spends
// while the timer runs. On a shared machine wall time swings with other
// load; CPU time is the steadier figure for comparing a benchmark with its
// raw sibling. Create it right before the b.Loop loop (whose first call
// starts b's timer), call Stop and Start around untimed work inside the
// loop, and Done right after the loop, which reports cpu-ms/op.
type Timer struct {
	b            *testing.B
	start, total time.Duration
}

// NewTimer returns a running Timer for b.
func NewTimer(b *testing.B) *Timer { return &Timer{b: b, start: processCPU()} }

// Stop stops b's timer and the CPU clock.
func (t *Timer) Stop() {
	t.b.StopTimer()
	t.total += processCPU() - t.start
}

// Start starts the CPU clock and b's timer.
func (t *Timer) Start() {
	t.start = processCPU()
	t.b.StartTimer()
}

// Done reports cpu-ms/op.
func (t *Timer) Done() {
	t.total += processCPU() - t.start
	t.b.ReportMetric(float64(t.total.Microseconds())/1000/float64(t.b.N), "cpu-ms/op")
}

// HeapSampler records the peak of the Go heap in use (HeapInuse: object
// bytes plus unused span bytes) from StartHeapSampler until Done, sampling
// runtime/metrics every 200 µs (no stop-the-world, unlike ReadMemStats).
type HeapSampler struct {
	stop chan struct{}
	peak chan uint64
}

// StartHeapSampler starts sampling.
func StartHeapSampler() *HeapSampler {
	h := &HeapSampler{stop: make(chan struct{}), peak: make(chan uint64, 1)}
	go func() {
		samples := []metrics.Sample{
			{Name: "/memory/classes/heap/objects:bytes"},
			{Name: "/memory/classes/heap/unused:bytes"},
		}
		var peak uint64
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			peak = max(peak, samples[0].Value.Uint64()+samples[1].Value.Uint64())
			select {
			case <-h.stop:
				h.peak <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

// Done stops sampling and returns the peak in bytes.
func (h *HeapSampler) Done() uint64 {
	close(h.stop)
	return <-h.peak
}
