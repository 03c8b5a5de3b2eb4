package memory

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/chatcore/chatcore/store"
)

// CreateWebhookDelivery implements store.WebhookStore.
func (t *tx) CreateWebhookDelivery(_ context.Context, d *store.WebhookDelivery) error {
	if err := t.write(); err != nil {
		return err
	}
	d.ID = t.d.webhookMax + 1
	useID(t, &t.d.webhookMax, d.ID)
	c := *d
	c.Created, c.AttemptedAt = d.Created.Truncate(time.Second), d.AttemptedAt.Truncate(time.Second)
	put(t, t.d.webhooks, d.ID, &c)
	return nil
}

// WebhookDeliveries implements store.WebhookStore.
func (t *tx) WebhookDeliveries(_ context.Context, f store.WebhookDeliveryFilter) ([]store.WebhookDelivery, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.WebhookDelivery
	for _, d := range t.d.webhooks {
		if (f.AttemptedBefore.IsZero() || d.AttemptedAt.Before(f.AttemptedBefore)) && d.ID > f.AfterID {
			out = append(out, *d)
		}
	}
	slices.SortFunc(out, func(a, b store.WebhookDelivery) int { return cmp.Compare(a.ID, b.ID) })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// ClaimWebhookAttempt implements store.WebhookStore.
func (t *tx) ClaimWebhookAttempt(_ context.Context, id int64, attempt int, at time.Time) (bool, error) {
	if err := t.write(); err != nil {
		return false, err
	}
	d := t.d.webhooks[id]
	if d == nil || d.Attempts != attempt-1 {
		return false, nil
	}
	c := *d
	c.Attempts, c.AttemptedAt = attempt, at.Truncate(time.Second)
	put(t, t.d.webhooks, id, &c)
	return true, nil
}

// DeleteWebhookDelivery implements store.WebhookStore.
func (t *tx) DeleteWebhookDelivery(_ context.Context, id int64) (bool, error) {
	if err := t.write(); err != nil {
		return false, err
	}
	if t.d.webhooks[id] == nil {
		return false, nil
	}
	del(t, t.d.webhooks, id)
	return true, nil
}
