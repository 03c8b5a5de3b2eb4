package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the
// nearest-rank method, or 0 for an empty slice.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(float64(len(sorted))*p/100+0.999999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// latencyLine formats count and p50/p90/p99/max of latencies (sorted in place).
func latencyLine(name string, latencies []time.Duration) string {
	slices.Sort(latencies)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
	var worst time.Duration
	if len(latencies) > 0 {
		worst = latencies[len(latencies)-1]
	}
	return fmt.Sprintf("  %-16s %7d %10s %10s %10s %10s", name, len(latencies),
		ms(percentile(latencies, 50)), ms(percentile(latencies, 90)), ms(percentile(latencies, 99)), ms(worst))
}

// statusLine formats status counts in status order.
func statusLine(counts map[int]int) string {
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d×%d", s, counts[s]))
	}
	return strings.Join(parts, " ")
}

// print writes the report.
func (r *results) print(w io.Writer, cfg config) {
	total := 0
	for _, n := range r.statuses {
		total += n
	}
	secs := r.elapsed.Seconds()
	fmt.Fprintf(w, "chatcore load test: %d requests from %d clients in %.2fs: %.0f requests/s (%s, loopback)\n",
		total, cfg.clients, secs, float64(total)/max(secs, 1e-9), cfg.kind())
	fmt.Fprintf(w, "statuses: %s\n", statusLine(r.statuses))
	fmt.Fprintf(w, "  %-16s %7s %10s %10s %10s %10s  statuses\n", "operation", "count", "p50", "p90", "p99", "max")
	var all []time.Duration
	for o, s := range r.ops {
		all = append(all, s.latency...)
		fmt.Fprintf(w, "%s  %s\n", latencyLine(opNames[o], s.latency), statusLine(s.statuses))
	}
	fmt.Fprintln(w, latencyLine("all", all))
	fmt.Fprintf(w, "messages: %d sent, %d deleted by topic deletion (%d delete_message events), %d present\n",
		len(r.sent), r.deleted, r.deleteEvents, r.present)
	created := 0
	for _, n := range r.reminders {
		created += n
	}
	fmt.Fprintf(w, "reminders created: %d; users whose settings were checked: %d\n", created, len(r.settings))
}
