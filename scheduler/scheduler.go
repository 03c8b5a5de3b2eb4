// Package scheduler delivers due scheduled messages and reminders of a
// [chatcore.Service]: [DeliverDue] makes one pass, [Run] makes one every
// interval until its context ends. The rules of a delivery (what is sent, as
// whom, when it is refused and what the sender is told) are the Service's
// ([chatcore.Service.DeliverScheduledMessage],
// [chatcore.Service.FailScheduledMessage]); this package decides which rows to
// try, retries a passing failure once and keeps one bad row from holding up
// the others.
package scheduler

import (
	"context"
	"errors"
	"time"

	"github.com/chatcore/chatcore"
)

// DeliverDue sends, through svc, every scheduled message and reminder whose delivery time
// (by the Service clock, [chatcore.Service.Now]) has come and that is neither delivered nor failed, in
// order of delivery time, and returns how many it delivered. Embedders call it
// periodically, e.g. from a time.Ticker; several calls may run at once, in one
// process or several sharing a store, and still deliver each row exactly once.
//
// A scheduled message is sent as its sender, with the checks of
// [chatcore.Service.SendMessage]; a reminder is sent as a direct message to its owner
// from the realm's notification bot (created on first need, see
// [chatcore.NotificationBotEmail]), its content rebuilt from the target message when the
// owner can still read it, the stored content otherwise. Each row is delivered
// in its own transaction, which re-reads the row and skips it when another
// deliverer got there first, and marks it Delivered with DeliveredMessageID.
// After commit the message's events are published, plus scheduled_messages
// "remove" (or reminders "remove") to the owner.
//
// When sending is refused with an [*chatcore.Error] (channel archived, sender or
// recipient deactivated, more than [chatcore.ScheduledMessageLateCutoff] late, ...), the
// row is marked Failed with the error's message in FailureMessage instead and
// delivery goes on with the next row; failed rows are not retried. Sending that
// fails with any other error is tried once more in a new transaction (a
// passing store fault then costs nothing); when that fails too, the error is
// logged and the row is marked Failed with "Internal server error", as Zulip
// marks a message whose delivery raised an unexpected exception, so one bad
// row never holds up the rows after it. For a scheduled message whose sender
// is still active, a scheduled_messages "update" event and a direct message
// from the notification bot tell the sender, as Zulip does.
//
// When ctx is done, DeliverDue returns ctx's error (possibly wrapped) at once
// with the count delivered so far, leaving the row it was on untouched. An
// error of the store while marking a row failed or notifying its sender is
// returned the same way; the next call starts over with the rows still due.
//
// Failed rows stay undelivered (so their owner can retrieve the content) and
// are left out by the store's due query, so they cost nothing per call.
func DeliverDue(ctx context.Context, svc *chatcore.Service) (delivered int, err error) {
	now := svc.Now()
	due, err := svc.DueScheduledMessages(ctx, now)
	if err != nil {
		return 0, err
	}
	for _, id := range due {
		if err := ctx.Err(); err != nil {
			return delivered, err
		}
		ok, err := deliverOne(ctx, svc, id, now)
		if err != nil {
			return delivered, err
		}
		if ok {
			delivered++
		}
	}
	return delivered, nil
}

// Run calls [DeliverDue] every interval until ctx ends, logging its errors to
// the Service's logger ([chatcore.WithLogger]).
func Run(ctx context.Context, svc *chatcore.Service, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := DeliverDue(ctx, svc); err != nil && ctx.Err() == nil {
				svc.Logger().ErrorContext(ctx, "chatcore: delivering scheduled messages", "err", err)
			}
		}
	}
}

// internalFailure is the FailureMessage of a row whose delivery failed with
// an unexpected error (Zulip's text).
const internalFailure = "Internal server error"

// deliverOne delivers the row with the id and reports whether it did; now is
// the time delivery started. A send that fails with something other than an
// *Error or the end of ctx is tried once more. A send refused with an *Error,
// or failing twice, marks the row failed (the failed transactions are rolled
// back, so they leave nothing behind).
func deliverOne(ctx context.Context, svc *chatcore.Service, id chatcore.ScheduledMessageID, now time.Time) (bool, error) {
	sent, err := svc.DeliverScheduledMessage(ctx, id, now)
	if err != nil && !isRefusal(err) && !contextEnded(ctx, err) {
		svc.Logger().WarnContext(ctx, "chatcore: delivering a scheduled message failed; trying again",
			"scheduled_message_id", id, "err", err)
		sent, err = svc.DeliverScheduledMessage(ctx, id, now)
	}
	if err == nil {
		return sent, nil
	}
	if contextEnded(ctx, err) {
		return false, err
	}
	refused, ok := errors.AsType[*chatcore.Error](err)
	if !ok {
		svc.Logger().ErrorContext(ctx, "chatcore: unexpected error delivering a scheduled message; marking it failed",
			"scheduled_message_id", id, "err", err)
		refused = &chatcore.Error{Code: chatcore.CodeBadRequest, Msg: internalFailure}
	}
	return false, svc.FailScheduledMessage(ctx, id, refused)
}

// isRefusal reports whether err is an *Error: a send refused for a reason the
// user can be told.
func isRefusal(err error) bool {
	_, ok := errors.AsType[*chatcore.Error](err)
	return ok
}

// contextEnded reports whether err comes from ctx having ended.
func contextEnded(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
