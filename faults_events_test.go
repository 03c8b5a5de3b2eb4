package chatcore_test

import (
	"context"
	"time"

	"github.com/chatcore/chatcore"
)

// The EventStore and WebhookStore methods of faultyTx (see faults_test.go).

func (t faultyTx) AppendEvents(ctx context.Context, events []chatcore.LoggedEvent) error {
	return faultStepErr(t.f, func() error { return t.tx.AppendEvents(ctx, events) })
}

func (t faultyTx) LastEventID(ctx context.Context, realm chatcore.RealmID) (int64, error) {
	return faultStep(t.f, func() (int64, error) { return t.tx.LastEventID(ctx, realm) })
}

func (t faultyTx) EventsFor(ctx context.Context, q chatcore.EventLogQuery) ([]chatcore.LoggedEvent, error) {
	return faultStep(t.f, func() ([]chatcore.LoggedEvent, error) { return t.tx.EventsFor(ctx, q) })
}

func (t faultyTx) CountEventsFor(ctx context.Context, q chatcore.EventLogQuery, max int) (int, error) {
	return faultStep(t.f, func() (int, error) { return t.tx.CountEventsFor(ctx, q, max) })
}

func (t faultyTx) PruneEvents(ctx context.Context, through int64, limit int) (int, error) {
	return faultStep(t.f, func() (int, error) { return t.tx.PruneEvents(ctx, through, limit) })
}

func (t faultyTx) EventsPrunedThrough(ctx context.Context, realm chatcore.RealmID) (int64, error) {
	return faultStep(t.f, func() (int64, error) { return t.tx.EventsPrunedThrough(ctx, realm) })
}

func (t faultyTx) CreateEventQueue(ctx context.Context, q *chatcore.EventQueue) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateEventQueue(ctx, q) })
}

func (t faultyTx) EventQueue(ctx context.Context, id string) (*chatcore.EventQueue, error) {
	return faultStep(t.f, func() (*chatcore.EventQueue, error) { return t.tx.EventQueue(ctx, id) })
}

func (t faultyTx) UpdateEventQueue(ctx context.Context, q *chatcore.EventQueue) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateEventQueue(ctx, q) })
}

func (t faultyTx) DeleteEventQueues(ctx context.Context, ids []string) (int, error) {
	return faultStep(t.f, func() (int, error) { return t.tx.DeleteEventQueues(ctx, ids) })
}

func (t faultyTx) EventQueues(ctx context.Context, f chatcore.EventQueueFilter) ([]chatcore.EventQueue, error) {
	return faultStep(t.f, func() ([]chatcore.EventQueue, error) { return t.tx.EventQueues(ctx, f) })
}

func (t faultyTx) OldestEventQueuePosition(ctx context.Context) (int64, bool, error) {
	var ok bool
	p, err := faultStep(t.f, func() (int64, error) {
		p, found, err := t.tx.OldestEventQueuePosition(ctx)
		ok = found
		return p, err
	})
	return p, ok, err
}

func (t faultyTx) CountEventQueues(ctx context.Context, f chatcore.EventQueueFilter) (int, error) {
	return faultStep(t.f, func() (int, error) { return t.tx.CountEventQueues(ctx, f) })
}

func (t faultyTx) CreateWebhookDelivery(ctx context.Context, d *chatcore.WebhookDelivery) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateWebhookDelivery(ctx, d) })
}

func (t faultyTx) WebhookDeliveries(ctx context.Context, f chatcore.WebhookDeliveryFilter) ([]chatcore.WebhookDelivery, error) {
	return faultStep(t.f, func() ([]chatcore.WebhookDelivery, error) { return t.tx.WebhookDeliveries(ctx, f) })
}

func (t faultyTx) ClaimWebhookAttempt(ctx context.Context, id int64, attempt int, at time.Time) (bool, error) {
	return faultStep(t.f, func() (bool, error) { return t.tx.ClaimWebhookAttempt(ctx, id, attempt, at) })
}

func (t faultyTx) DeleteWebhookDelivery(ctx context.Context, id int64) (bool, error) {
	return faultStep(t.f, func() (bool, error) { return t.tx.DeleteWebhookDelivery(ctx, id) })
}
