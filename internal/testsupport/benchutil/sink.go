package benchutil

import (
	"context"

	"github.com/chatcore/chatcore"
)

// SinkFunc adapts a function to [chatcore.EventSink]: a benchmark can run
// work of its own after each write of the Service commits (the Service
// publishes a write's events on the caller's goroutine after the commit).
type SinkFunc func(ctx context.Context, events []chatcore.Event)

// Publish calls f.
func (f SinkFunc) Publish(ctx context.Context, events []chatcore.Event) { f(ctx, events) }
