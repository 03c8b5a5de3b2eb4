package chatcore

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ScheduledMessageLateCutoff is how late [Service.DeliverScheduledMessage] still sends a
// scheduled message: one found more than this after its delivery time is
// marked failed ("Message could not be sent at the scheduled time."), as in
// Zulip, so that stale messages do not surprise their recipients. Reminders
// have no cutoff.
const ScheduledMessageLateCutoff = 10 * time.Minute

// DueScheduledMessages returns the ids of the scheduled messages and
// reminders due by now that are neither delivered nor failed, in order of
// delivery time. Package scheduler delivers them one by one with
// [Service.DeliverScheduledMessage]. Errors come from the store.
func (s *Service) DueScheduledMessages(ctx context.Context, now time.Time) ([]ScheduledMessageID, error) {
	var ids []ScheduledMessageID
	err := s.View(ctx, func(tx Tx) error {
		due, err := tx.ScheduledMessages(ctx, ScheduledFilter{Delivered: new(false), Failed: new(false), DueBy: now})
		for i := range due {
			ids = append(ids, due[i].ID)
		}
		return err
	})
	return ids, err
}

// DeliverScheduledMessage delivers the scheduled message or reminder with the
// id, now being when delivery started, in one transaction that re-reads the
// row, and reports whether it did: false, with no error, when the row is gone
// or another deliverer got there first. A scheduled message is sent as its
// sender, with the checks of [Service.SendMessage], and refused when found
// more than [ScheduledMessageLateCutoff] after its delivery time; a reminder is
// sent as a direct message to its owner from the realm's notification bot
// (created on first need, see [NotificationBotEmail]), its content rebuilt
// from the target message when the owner can still read it, the stored content
// otherwise. The row is marked Delivered with DeliveredMessageID; after commit
// the message's events are published, plus scheduled_messages "remove" (or
// reminders "remove") to the owner. A refusal is an [*Error] and leaves the
// row as it was: mark it failed with [Service.FailScheduledMessage].
func (s *Service) DeliverScheduledMessage(ctx context.Context, id ScheduledMessageID, now time.Time) (bool, error) {
	sent := false
	err := s.Update(ctx, func(tx Tx, fx *Effects) error {
		sent = false
		m, err := pendingScheduled(ctx, tx, id)
		if err != nil || m == nil {
			return err
		}
		msg, err := s.sendScheduled(ctx, tx, fx, m, now)
		if err != nil {
			return err
		}
		m.Delivered = true
		m.DeliveredMessageID = msg.ID
		if err := tx.UpdateScheduledMessage(ctx, m); err != nil {
			return err
		}
		if m.Kind == ScheduledReminder {
			fx.Event(m.RealmID, []UserID{m.SenderID}, map[string]any{
				"type": "reminders", "op": "remove", "reminder_id": m.ID,
			})
		} else {
			fx.Event(m.RealmID, []UserID{m.SenderID}, map[string]any{
				"type": "scheduled_messages", "op": "remove", "scheduled_message_id": m.ID,
			})
		}
		sent = true
		return nil
	})
	return sent, err
}

// FailScheduledMessage marks the pending row with the id Failed, with
// reason's message as its FailureMessage (failed rows are never retried), and,
// for a scheduled message whose sender is still active, tells the sender: a
// scheduled_messages "update" event and a direct message from the
// notification bot, as Zulip does. A row already delivered, failed or gone is
// left alone. Errors come from the store; a refusal of the notice itself is
// logged.
func (s *Service) FailScheduledMessage(ctx context.Context, id ScheduledMessageID, reason *Error) error {
	var failed *ScheduledMessage
	err := s.Update(ctx, func(tx Tx, fx *Effects) error {
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
		if m.Kind == ScheduledSendLater && reason.Code != CodeUserDeactivated {
			fx.Event(m.RealmID, []UserID{m.SenderID}, map[string]any{
				"type": "scheduled_messages", "op": "update", "scheduled_message": scheduledView(m),
			})
			failed = m
		}
		return nil
	})
	if err != nil || failed == nil {
		return err
	}
	return s.notifyDeliveryFailure(ctx, failed)
}

// notifyDeliveryFailure sends the sender of a scheduled message that could not
// be delivered a direct message from the notification bot saying why. A
// refusal of that message itself is logged, not returned.
func (s *Service) notifyDeliveryFailure(ctx context.Context, m *ScheduledMessage) error {
	content := fmt.Sprintf("The message you scheduled for <time:%s> was not sent because of the following error:\n\n> %s\n\n[View scheduled messages](#scheduled)",
		m.DeliverAt.UTC().Format("2006-01-02T15:04:05-07:00"), m.FailureMessage)
	err := s.Update(ctx, func(tx Tx, fx *Effects) error {
		sender, err := tx.User(ctx, m.SenderID)
		if err != nil {
			return err
		}
		bot, err := s.NotificationBot(ctx, tx, m.RealmID)
		if err != nil {
			return err
		}
		_, err = s.SendInTx(ctx, tx, fx, bot, Destination{To: []UserID{sender.ID}}, content, "Internal")
		return err
	})
	if refused, ok := errors.AsType[*Error](err); ok {
		s.log.WarnContext(ctx, "chatcore: scheduled-message failure notice not sent", "scheduled_message_id", m.ID, "err", refused)
		return nil
	}
	return err
}

// pendingScheduled re-reads the row inside the delivering transaction and
// returns nil when it is gone, delivered or failed meanwhile.
func pendingScheduled(ctx context.Context, tx Tx, id ScheduledMessageID) (*ScheduledMessage, error) {
	m, err := tx.ScheduledMessage(ctx, id)
	if errors.Is(err, ErrNotFound) {
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

// sendScheduled sends the row's message inside tx; now is when delivery
// started.
func (s *Service) sendScheduled(ctx context.Context, tx Tx, fx *Effects, m *ScheduledMessage, now time.Time) (*Message, error) {
	owner, err := tx.User(ctx, m.SenderID)
	if errors.Is(err, ErrNotFound) {
		owner, err = &User{}, nil // gone: fails like a deactivated sender
	}
	if err != nil {
		return nil, err
	}
	if !owner.IsActive {
		return nil, &Error{Code: CodeUserDeactivated, Kind: KindUnauthenticated, Msg: "Account is deactivated"}
	}
	if m.Kind == ScheduledReminder {
		content := m.Content
		target, err := AccessibleMessage(ctx, tx, owner, m.ReminderTargetMessageID)
		if err != nil {
			return nil, err
		}
		if target != nil {
			if content, err = s.reminderContent(ctx, tx, target, m.ReminderNote); err != nil {
				return nil, err
			}
		}
		bot, err := s.NotificationBot(ctx, tx, owner.RealmID)
		if err != nil {
			return nil, err
		}
		return s.SendInTx(ctx, tx, fx, bot, Destination{To: []UserID{owner.ID}}, content, "Internal")
	}
	if now.After(m.DeliverAt.Add(ScheduledMessageLateCutoff)) {
		return nil, BadRequest("Message could not be sent at the scheduled time.")
	}
	dest := Destination{To: m.DirectMembers}
	if m.Type == MessageTypeStream {
		dest = Destination{StreamID: m.StreamID, Topic: m.Topic}
	}
	return s.SendInTx(ctx, tx, fx, owner, dest, m.Content, "API")
}
