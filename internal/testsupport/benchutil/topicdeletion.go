package benchutil

import (
	"context"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
)

// InterleavedDeletion is the set-up of [InterleavedTopicDeletion].
type InterleavedDeletion struct {
	Store chatcore.Store
	// Admin deletes the topic named Topic of channel Stream.
	Admin  chatcore.UserID
	Stream chatcore.StreamID
	Topic  string
	// RawBatch deletes the next batch of 100 messages of the twin topic the
	// raw way and returns how many it deleted.
	RawBatch func(b *testing.B) int
	// Fill refills both topics (untimed); Check verifies that both are gone
	// (untimed).
	Fill, Check func(b *testing.B)
}

// InterleavedTopicDeletion deletes a topic through channels.DeleteTopic and,
// after each of its batches commits, one raw batch of a twin topic of the
// same size, so load on a shared machine hits both alike. It reports the
// time of each side per operation and their ratio (library/raw-batch100).
func InterleavedTopicDeletion(b *testing.B, d InterleavedDeletion) {
	ctx := context.Background()
	var rawTime, libTime, rawTotal time.Duration
	svc := chatcore.New(d.Store, chatcore.WithEventSink(SinkFunc(func(context.Context, []chatcore.Event) {
		start := time.Now()
		d.RawBatch(b)
		rawTime += time.Since(start)
	})))
	for b.Loop() {
		b.StopTimer()
		d.Fill(b)
		b.StartTimer()
		rawTime = 0
		start := time.Now()
		for {
			res, err := channels.DeleteTopic(ctx, svc, d.Admin, d.Stream, d.Topic)
			if err != nil {
				b.Fatal(err)
			}
			if res.Complete {
				break
			}
		}
		libTime += time.Since(start) - rawTime
		start = time.Now()
		for d.RawBatch(b) == 100 { // the twin's last, short batch
		}
		rawTotal += rawTime + time.Since(start)
		b.StopTimer()
		d.Check(b)
		b.StartTimer()
	}
	b.ReportMetric(float64(libTime.Milliseconds())/float64(b.N), "library-ms/op")
	b.ReportMetric(float64(rawTotal.Milliseconds())/float64(b.N), "raw-batch100-ms/op")
	b.ReportMetric(float64(libTime)/float64(rawTotal), "library/raw-batch100")
}
