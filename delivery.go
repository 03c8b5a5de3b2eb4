package chatcore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"
)

// ScheduledMessageLateCutoff is how late [Service.DeliverDue] still sends a
// scheduled message: one found more than this after its delivery time is
// marked failed ("Message could not be sent at the scheduled time."), as in
// Zulip, so that stale messages do not surprise their recipients. Reminders
// have no cutoff.
const ScheduledMessageLateCutoff = 10 * time.Minute

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
// (by the Service clock) has come and that is neither delivered nor failed, in
// order of delivery time, and returns how many it delivered. Embedders call it
// periodically, e.g. from a time.Ticker; several calls may run at once, in one
// process or several sharing a store, and still deliver each row exactly once.
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
// recipient deactivated, more than [ScheduledMessageLateCutoff] late, ...), the
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
func (s *Service) DeliverDue(ctx context.Context) (delivered int, err error) {
	now := s.clock.Now()
	var due []ScheduledMessage
	err = s.view(ctx, func(tx Tx) error {
		var err error
		due, err = tx.ScheduledMessages(ctx, ScheduledFilter{Delivered: new(false), Failed: new(false), DueBy: now})
		return err
	})
	if err != nil {
		return 0, err
	}
	for i := range due {
		if err := ctx.Err(); err != nil {
			return delivered, err
		}
		ok, err := s.deliverOne(ctx, due[i].ID, now)
		if err != nil {
			return delivered, err
		}
		if ok {
			delivered++
		}
	}
	return delivered, nil
}

// internalDeliveryFailure is the FailureMessage of a row whose delivery failed
// with an unexpected error (Zulip's text).
const internalDeliveryFailure = "Internal server error"

// deliverOne delivers the row with the id in its own transaction and reports
// whether it did; now is the time delivery started. A send that fails with
// something other than an *Error or the end of ctx is tried once more. A send
// refused with an *Error, or failing twice, marks the row failed in another
// transaction (the failed ones are rolled back, so they leave nothing behind)
// and, for a scheduled message, notifies the sender in another.
func (s *Service) deliverOne(ctx context.Context, id ScheduledMessageID, now time.Time) (bool, error) {
	sent, err := s.sendDue(ctx, id, now)
	if err != nil && !isRefusal(err) && !contextEnded(ctx, err) {
		s.log.WarnContext(ctx, "chatcore: delivering a scheduled message failed; trying again",
			"scheduled_message_id", id, "err", err)
		sent, err = s.sendDue(ctx, id, now)
	}
	if err == nil {
		return sent, nil
	}
	if contextEnded(ctx, err) {
		return false, err
	}
	refused, ok := errors.AsType[*Error](err)
	if !ok {
		s.log.ErrorContext(ctx, "chatcore: unexpected error delivering a scheduled message; marking it failed",
			"scheduled_message_id", id, "err", err)
		refused = &Error{Code: CodeBadRequest, Msg: internalDeliveryFailure}
	}
	return false, s.markDeliveryFailed(ctx, id, refused)
}

// isRefusal reports whether err is an *Error: a send refused for a reason the
// user can be told.
func isRefusal(err error) bool {
	_, ok := errors.AsType[*Error](err)
	return ok
}

// contextEnded reports whether err comes from ctx having ended.
func contextEnded(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// sendDue sends the row with the id and marks it delivered, in one
// transaction, and reports whether it did (false: the row is gone or was
// handled meanwhile).
func (s *Service) sendDue(ctx context.Context, id ScheduledMessageID, now time.Time) (bool, error) {
	sent := false
	err := s.update(ctx, func(tx Tx, fx *effects) error {
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
	return sent, err
}

// markDeliveryFailed marks the row with the id failed for the reason refused
// and, for a scheduled message whose sender is still active, tells the sender.
func (s *Service) markDeliveryFailed(ctx context.Context, id ScheduledMessageID, refused *Error) error {
	var failed *ScheduledMessage
	err := s.update(ctx, func(tx Tx, fx *effects) error {
		failed = nil
		m, err := pendingScheduled(ctx, tx, id)
		if err != nil || m == nil {
			return err
		}
		m.Failed = true
		m.FailureMessage = refused.Msg
		if err := tx.UpdateScheduledMessage(ctx, m); err != nil {
			return err
		}
		if m.Kind == ScheduledSendLater && refused.Code != CodeUserDeactivated {
			fx.event(m.RealmID, []UserID{m.SenderID}, map[string]any{
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
	err := s.update(ctx, func(tx Tx, fx *effects) error {
		sender, err := tx.User(ctx, m.SenderID)
		if err != nil {
			return err
		}
		bot, err := s.notificationBot(ctx, tx, m.RealmID)
		if err != nil {
			return err
		}
		_, err = s.sendInTx(ctx, tx, fx, bot, Destination{To: []UserID{sender.ID}}, content, "Internal")
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
func (s *Service) sendScheduled(ctx context.Context, tx Tx, fx *effects, m *ScheduledMessage, now time.Time) (*Message, error) {
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
	if now.After(m.DeliverAt.Add(ScheduledMessageLateCutoff)) {
		return nil, BadRequest("Message could not be sent at the scheduled time.")
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
