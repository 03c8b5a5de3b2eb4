package scheduled

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chatcore/chatcore"
)

// LateCutoff is how late [DeliverDue] still sends a
// scheduled message: one found more than this after its delivery time is
// marked failed ("Message could not be sent at the scheduled time."), as in
// Zulip, so that stale messages do not surprise their recipients. Reminders
// have no cutoff.
const LateCutoff = 10 * time.Minute

// DeliverDue sends, through svc, every scheduled message and reminder whose
// delivery time (by the Service clock, [chatcore.Service.Now]) has come and
// that is neither delivered nor failed, in order of delivery time, and returns
// how many it delivered. Embedders call it periodically, e.g. from a
// time.Ticker; several calls may run at once, in one process or several sharing
// a store, and still deliver each row exactly once.
//
// A scheduled message is sent as its sender, with the checks of
// [chatcore.Service.SendMessage]; a reminder is sent as a direct message to its
// owner from the realm's notification bot (created on first need, see
// [chatcore.NotificationBotEmail]), its content rebuilt from the target message
// when the owner can still read it, the stored content otherwise. Each row is
// delivered in its own transaction, which re-reads the row and skips it when
// another deliverer got there first, and marks it Delivered with
// DeliveredMessageID. After commit the message's events are published, plus
// scheduled_messages "remove" (or reminders "remove") to the owner.
//
// When sending is refused with a [*chatcore.Error] (channel archived, sender or
// recipient deactivated, more than [LateCutoff] late, ...), the row is marked
// Failed with the error's message in FailureMessage instead and delivery goes
// on with the next row; failed rows are not retried. Sending that fails with
// any other error is tried once more in a new transaction (a passing store
// fault then costs nothing); when that fails too, the error is logged and the
// row is marked Failed with "Internal server error", as Zulip marks a message
// whose delivery raised an unexpected exception, so one bad row never holds up
// the rows after it. For a scheduled message whose sender is still active, a
// scheduled_messages "update" event and a direct message from the notification
// bot tell the sender, as Zulip does.
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
	due, err := dueIDs(ctx, svc, now)
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
	RunObserved(ctx, svc, every, nil)
}

// RunObserved is [Run] calling observed, when not nil, with the count of
// each round's deliveries (for metrics).
func RunObserved(ctx context.Context, svc *chatcore.Service, every time.Duration, observed func(delivered int)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n, err := DeliverDue(ctx, svc)
			if observed != nil && n > 0 {
				observed(n)
			}
			if err != nil && ctx.Err() == nil {
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
	sent, err := deliver(ctx, svc, id, now)
	if err != nil && !isRefusal(err) && !contextEnded(ctx, err) {
		svc.Logger().WarnContext(ctx, "chatcore: delivering a scheduled message failed; trying again",
			"scheduled_message_id", id, "err", err)
		sent, err = deliver(ctx, svc, id, now)
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
	return false, fail(ctx, svc, id, refused)
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

// dueIDs returns the ids of the scheduled messages and reminders due by now
// that are neither delivered nor failed, in order of delivery time, for
// DeliverDue to deliver one by one. Errors come from the store.
func dueIDs(ctx context.Context, svc *chatcore.Service, now time.Time) ([]chatcore.ScheduledMessageID, error) {
	var ids []chatcore.ScheduledMessageID
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		due, err := tx.ScheduledMessages(ctx, chatcore.ScheduledFilter{Delivered: new(false), Failed: new(false), DueBy: now})
		ids = ids[:0] // a store may run fn again
		for i := range due {
			ids = append(ids, due[i].ID)
		}
		return err
	})
	return ids, err
}

// deliver delivers the scheduled message or reminder with the
// id, now being when delivery started, in one transaction that re-reads the
// row, and reports whether it did: false, with no error, when the row is gone
// or another deliverer got there first. A scheduled message is sent as its
// sender, with the checks of chatcore.Service.SendMessage, and refused when found
// more than [LateCutoff] after its delivery time; a reminder is
// sent as a direct message to its owner from the realm's notification bot
// (created on first need), its content rebuilt
// from the target message when the owner can still read it, the stored content
// otherwise. The row is marked Delivered with DeliveredMessageID; after commit
// the message's events are published, plus scheduled_messages "remove" (or
// reminders "remove") to the owner. A refusal is a *chatcore.Error and
// leaves the row as it was: mark it failed with fail.
func deliver(ctx context.Context, svc *chatcore.Service, id chatcore.ScheduledMessageID, now time.Time) (bool, error) {
	sent := false
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		sent = false
		m, err := pendingScheduled(ctx, tx, id)
		if err != nil || m == nil {
			return err
		}
		msg, err := send(ctx, svc, tx, fx, m, now)
		if err != nil {
			return err
		}
		m.Delivered = true
		m.DeliveredMessageID = msg.ID
		if err := tx.UpdateScheduledMessage(ctx, m); err != nil {
			return err
		}
		removed(fx, m)
		sent = true
		return nil
	})
	return sent, err
}

// fail marks the pending row with the id Failed, with
// reason's message as its FailureMessage (failed rows are never retried), and,
// for a scheduled message whose sender is still active, tells the sender: a
// scheduled_messages "update" event and a direct message from the
// notification bot, as Zulip does. A row already delivered, failed or gone is
// left alone. Errors come from the store; a refusal of the notice itself is
// logged.
func fail(ctx context.Context, svc *chatcore.Service, id chatcore.ScheduledMessageID, reason *chatcore.Error) error {
	var failed *chatcore.ScheduledMessage
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		failed = nil
		m, err := pendingScheduled(ctx, tx, id)
		if err != nil || m == nil {
			return err
		}
		m.Failed = true
		m.FailureMessage = reason.Msg
		if err := tx.UpdateScheduledMessage(ctx, m); err != nil {
			return err
		}
		if m.Kind == chatcore.ScheduledSendLater && reason.Code != chatcore.CodeUserDeactivated {
			fx.Event(m.RealmID, []chatcore.UserID{m.SenderID}, map[string]any{
				"type": "scheduled_messages", "op": "update", "scheduled_message": view(m),
			})
			failed = m
		}
		return nil
	})
	if err != nil || failed == nil {
		return err
	}
	return notifyFailure(ctx, svc, failed)
}

// notifyFailure sends the sender of a scheduled message that could not
// be delivered a direct message from the notification bot saying why. A
// refusal of that message itself is logged, not returned.
func notifyFailure(ctx context.Context, svc *chatcore.Service, m *chatcore.ScheduledMessage) error {
	content := fmt.Sprintf("The message you scheduled for <time:%s> was not sent because of the following error:\n\n> %s\n\n[View scheduled messages](#scheduled)",
		m.DeliverAt.UTC().Format("2006-01-02T15:04:05-07:00"), m.FailureMessage)
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		sender, err := tx.User(ctx, m.SenderID)
		if err != nil {
			return err
		}
		bot, err := svc.NotificationBot(ctx, tx, m.RealmID)
		if err != nil {
			return err
		}
		_, err = svc.SendInTx(ctx, tx, fx, bot, chatcore.Destination{To: []chatcore.UserID{sender.ID}}, content, "Internal")
		return err
	})
	if refused, ok := errors.AsType[*chatcore.Error](err); ok {
		svc.Logger().WarnContext(ctx, "chatcore: scheduled-message failure notice not sent", "scheduled_message_id", m.ID, "err", refused)
		return nil
	}
	return err
}

// pendingScheduled re-reads the row inside the delivering transaction and
// returns nil when it is gone, delivered or failed meanwhile.
func pendingScheduled(ctx context.Context, tx chatcore.Tx, id chatcore.ScheduledMessageID) (*chatcore.ScheduledMessage, error) {
	m, err := tx.ScheduledMessage(ctx, id)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if m.Delivered || m.Failed {
		return nil, nil
	}
	return m, nil
}

// send sends the row's message inside tx; now is when delivery
// started.
func send(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, m *chatcore.ScheduledMessage, now time.Time) (*chatcore.Message, error) {
	owner, err := tx.User(ctx, m.SenderID)
	if errors.Is(err, chatcore.ErrNotFound) {
		owner, err = &chatcore.User{}, nil // gone: fails like a deactivated sender
	}
	if err != nil {
		return nil, err
	}
	if !owner.IsActive {
		return nil, &chatcore.Error{Code: chatcore.CodeUserDeactivated, Kind: chatcore.KindUnauthenticated, Msg: "Account is deactivated"}
	}
	if m.Kind == chatcore.ScheduledReminder {
		content := m.Content
		target, err := chatcore.AccessibleMessage(ctx, tx, owner, m.ReminderTargetMessageID)
		if err != nil {
			return nil, err
		}
		if target != nil {
			if content, err = ReminderContent(ctx, svc, tx, target, m.ReminderNote); err != nil {
				return nil, err
			}
		}
		bot, err := svc.NotificationBot(ctx, tx, owner.RealmID)
		if err != nil {
			return nil, err
		}
		return svc.SendInTx(ctx, tx, fx, bot, chatcore.Destination{To: []chatcore.UserID{owner.ID}}, content, "Internal")
	}
	if now.After(m.DeliverAt.Add(LateCutoff)) {
		return nil, chatcore.BadRequest("Message could not be sent at the scheduled time.")
	}
	dest := chatcore.Destination{To: m.DirectMembers}
	if m.Type == chatcore.MessageTypeStream {
		dest = chatcore.Destination{StreamID: m.StreamID, Topic: m.Topic}
	}
	return svc.SendInTx(ctx, tx, fx, owner, dest, m.Content, "API")
}
