package chatcore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
)

// NotificationBotName is the full name of the per-realm bot that delivers
// reminders.
const NotificationBotName = "Notification Bot"

// NotificationBotEmail returns the e-mail of the realm's notification bot,
// which [Service.DeliverDue] creates the first time it delivers a reminder in
// the realm. The domain is reserved (.invalid), so it never clashes with a
// real address.
func NotificationBotEmail(realmStringID string) string {
	return "notification-bot@" + realmStringID + ".chatcore.invalid"
}

// DeliverDue sends every scheduled message and reminder whose delivery time
// (by the Service clock) has come and that is neither delivered nor failed, and
// returns how many it delivered. Embedders call it periodically, e.g. from a
// time.Ticker; several calls may run at once, in one process or several
// sharing a store, and still deliver each row exactly once.
//
// A scheduled message is sent as its sender, with the checks of
// [Service.SendMessage]; a reminder is sent as a direct message to its owner
// from the realm's notification bot (created on first need, see
// [NotificationBotEmail]), its content rebuilt from the target message when the
// owner can still read it, the stored content otherwise. Each row is delivered
// in its own transaction, which re-reads the row and skips it when another
// deliverer got there first, and marks it Delivered with DeliveredMessageID.
// After commit the message's events are published, plus scheduled_messages
// "remove" (or reminders "remove") to the owner.
//
// When sending is refused with an [*Error] (channel archived, sender or
// recipient deactivated, ...), the row is marked Failed with the error's
// message in FailureMessage instead (a scheduled_messages "update" event tells
// the sender) and delivery goes on with the next row; failed rows are not
// retried. Any other error (store, context) stops DeliverDue and is returned
// with the count delivered so far; the row it happened on is left untouched.
func (s *Service) DeliverDue(ctx context.Context) (delivered int, err error) {
	now := s.clock.Now()
	var due []ScheduledMessage
	err = s.view(ctx, func(tx Tx) error {
		var err error
		due, err = tx.ScheduledMessages(ctx, ScheduledFilter{Delivered: new(false), DueBy: now})
		return err
	})
	if err != nil {
		return 0, err
	}
	for i := range due {
		if due[i].Failed {
			continue
		}
		if err := ctx.Err(); err != nil {
			return delivered, err
		}
		ok, err := s.deliverOne(ctx, due[i].ID)
		if err != nil {
			return delivered, err
		}
		if ok {
			delivered++
		}
	}
	return delivered, nil
}

// deliverOne delivers the row with the id in its own transaction and reports
// whether it did. A send refused with an *Error marks the row failed in a
// second transaction (the first is rolled back, so a refused send leaves
// nothing behind).
func (s *Service) deliverOne(ctx context.Context, id ScheduledMessageID) (bool, error) {
	sent := false
	err := s.update(ctx, func(tx Tx, fx *effects) error {
		sent = false
		m, err := pendingScheduled(ctx, tx, id)
		if err != nil || m == nil {
			return err
		}
		msg, err := s.sendScheduled(ctx, tx, fx, m)
		if err != nil {
			return err
		}
		m.Delivered = true
		m.DeliveredMessageID = msg.ID
		if err := tx.UpdateScheduledMessage(ctx, m); err != nil {
			return err
		}
		if m.Kind == ScheduledReminder {
			fx.event(m.RealmID, []UserID{m.SenderID}, map[string]any{
				"type": "reminders", "op": "remove", "reminder_id": m.ID,
			})
		} else {
			fx.event(m.RealmID, []UserID{m.SenderID}, map[string]any{
				"type": "scheduled_messages", "op": "remove", "scheduled_message_id": m.ID,
			})
		}
		sent = true
		return nil
	})
	refused, ok := errors.AsType[*Error](err)
	if !ok {
		return sent, err
	}
	return false, s.update(ctx, func(tx Tx, fx *effects) error {
		m, err := pendingScheduled(ctx, tx, id)
		if err != nil || m == nil {
			return err
		}
		m.Failed = true
		m.FailureMessage = refused.Msg
		if err := tx.UpdateScheduledMessage(ctx, m); err != nil {
			return err
		}
		if m.Kind == ScheduledSendLater {
			fx.event(m.RealmID, []UserID{m.SenderID}, map[string]any{
				"type": "scheduled_messages", "op": "update", "scheduled_message": scheduledView(m),
			})
		}
		return nil
	})
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

// sendScheduled sends the row's message inside tx.
func (s *Service) sendScheduled(ctx context.Context, tx Tx, fx *effects, m *ScheduledMessage) (*Message, error) {
	owner, err := actor(ctx, tx, m.SenderID)
	if err != nil {
		return nil, err
	}
	if m.Kind == ScheduledReminder {
		content := m.Content
		target, err := accessibleMessage(ctx, tx, owner, m.ReminderTargetMessageID)
		if err != nil {
			return nil, err
		}
		if target != nil {
			if content, err = s.reminderContent(ctx, tx, target, m.ReminderNote); err != nil {
				return nil, err
			}
		}
		bot, err := s.notificationBot(ctx, tx, owner.RealmID)
		if err != nil {
			return nil, err
		}
		return s.sendInTx(ctx, tx, fx, bot, Destination{To: []UserID{owner.ID}}, content, "Internal")
	}
	dest := Destination{To: m.DirectMembers}
	if m.Type == MessageTypeStream {
		dest = Destination{StreamID: m.StreamID, Topic: m.Topic}
	}
	return s.sendInTx(ctx, tx, fx, owner, dest, m.Content, "API")
}

// notificationBot returns the realm's notification bot, creating it inside tx
// when it does not exist yet.
func (s *Service) notificationBot(ctx context.Context, tx Tx, realmID RealmID) (*User, error) {
	realm, err := tx.Realm(ctx, realmID)
	if err != nil {
		return nil, err
	}
	email := NotificationBotEmail(realm.StringID)
	bot, err := tx.UserByEmail(ctx, realmID, email)
	if err == nil {
		return bot, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	bot = &User{
		RealmID:      realmID,
		Email:        email,
		FullName:     NotificationBotName,
		Role:         RoleMember,
		IsActive:     true,
		IsBot:        true,
		BotType:      BotTypeGeneric,
		APIKeyHash:   HashAPIKey(rand.Text()), // a key nobody knows: the bot never logs in
		AvatarSource: "G",
		DateJoined:   s.clock.Now().UTC(),
		Settings:     DefaultSettings(),
	}
	if err := tx.CreateUser(ctx, bot); err != nil {
		return nil, fmt.Errorf("creating the notification bot: %w", err)
	}
	return bot, nil
}
