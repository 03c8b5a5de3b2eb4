package store

import (
	"context"
	"time"
)

// WebhookDelivery is an outgoing-webhook request accepted with the commit of
// the message that triggers it and not finished yet: one service of one bot
// to call about one message. It is stored in the message's own transaction,
// so a crash loses no accepted delivery, and deleted once its outcome has
// been posted.
type WebhookDelivery struct {
	// ID is set by [WebhookStore.CreateWebhookDelivery]: above every id
	// ever used.
	ID        int64
	RealmID   RealmID
	MessageID MessageID
	BotID     UserID
	ServiceID BotServiceID
	// Trigger is what made the message call the bot ("mention" or
	// "direct_message").
	Trigger string
	// Attempts is how many attempts have been started (0 at first).
	Attempts int
	// Created and AttemptedAt (when the last attempt started; Created
	// before the first) are stored in whole seconds.
	Created     time.Time
	AttemptedAt time.Time
}

// WebhookDeliveryFilter selects stored deliveries; zero fields do not filter.
type WebhookDeliveryFilter struct {
	// AttemptedBefore keeps deliveries whose AttemptedAt is before it.
	AttemptedBefore time.Time
	// AfterID keeps deliveries with a larger id (paging).
	AfterID int64
	// Limit bounds the result; zero means no limit.
	Limit int
}

// WebhookStore persists the outgoing-webhook deliveries not finished yet.
type WebhookStore interface {
	// CreateWebhookDelivery inserts d and sets d.ID.
	CreateWebhookDelivery(ctx context.Context, d *WebhookDelivery) error
	// WebhookDeliveries returns the deliveries f selects, ascending by id.
	WebhookDeliveries(ctx context.Context, f WebhookDeliveryFilter) ([]WebhookDelivery, error)
	// ClaimWebhookAttempt records that attempt number attempt of delivery
	// id starts at at: it sets Attempts to attempt and AttemptedAt to at
	// only when the stored Attempts is attempt-1, and reports whether it
	// did (false for a delivery gone or another attempt claimed), so each
	// attempt starts at most once among the processes sharing the store.
	ClaimWebhookAttempt(ctx context.Context, id int64, attempt int, at time.Time) (bool, error)
	// DeleteWebhookDelivery deletes delivery id and reports whether it
	// existed.
	DeleteWebhookDelivery(ctx context.Context, id int64) (bool, error)
}
