package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/chatcore/chatcore/store"
)

const webhookCols = "id, realm_id, message_id, bot_id, service_id, trigger_type, attempts, created, attempted_at"

// CreateWebhookDelivery implements [store.WebhookStore]; the id comes from
// the table (AUTOINCREMENT on SQLite, the identity sequence on PostgreSQL),
// so it is never reused.
func (x *Tx) CreateWebhookDelivery(ctx context.Context, d *store.WebhookDelivery) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "webhook_deliveries", "create webhook delivery",
		"INSERT INTO webhook_deliveries ("+webhookCols+") VALUES ("+x.d.IDValue("webhook_deliveries")+
			", $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
		0, int64(d.RealmID), int64(d.MessageID), int64(d.BotID), int64(d.ServiceID), d.Trigger, d.Attempts,
		x.d.Time(d.Created.Truncate(time.Second)), x.d.Time(d.AttemptedAt.Truncate(time.Second)))
	if err != nil {
		return err
	}
	d.ID = id
	return nil
}

// WebhookDeliveries implements [store.WebhookStore].
func (x *Tx) WebhookDeliveries(ctx context.Context, f store.WebhookDeliveryFilter) ([]store.WebhookDelivery, error) {
	query := "SELECT " + webhookCols + " FROM webhook_deliveries WHERE true"
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		query += cond + "$" + strconv.Itoa(len(args))
	}
	if !f.AttemptedBefore.IsZero() {
		add(" AND attempted_at < ", x.d.Time(expiryBound(f.AttemptedBefore)))
	}
	if f.AfterID != 0 {
		add(" AND id > ", f.AfterID)
	}
	query += " ORDER BY id"
	if f.Limit > 0 {
		add(" LIMIT ", f.Limit)
	}
	return scanAll(ctx, x, "webhook deliveries", func(r Row, d *store.WebhookDelivery) error {
		return r.Scan(&d.ID, Num(&d.RealmID), Num(&d.MessageID), Num(&d.BotID), Num(&d.ServiceID), &d.Trigger,
			&d.Attempts, Time(&d.Created), Time(&d.AttemptedAt))
	}, query, args...)
}

// ClaimWebhookAttempt implements [store.WebhookStore] with one conditional
// UPDATE.
func (x *Tx) ClaimWebhookAttempt(ctx context.Context, id int64, attempt int, at time.Time) (bool, error) {
	if err := x.q.Writable(); err != nil {
		return false, err
	}
	n, err := x.q.Exec(ctx, "UPDATE webhook_deliveries SET attempts = $1, attempted_at = $2 WHERE id = $3 AND attempts = $4",
		attempt, x.d.Time(at.Truncate(time.Second)), id, attempt-1)
	if err != nil {
		return false, x.classify(err, fmt.Sprintf("claim webhook delivery %d", id))
	}
	return n == 1, nil
}

// DeleteWebhookDelivery implements [store.WebhookStore].
func (x *Tx) DeleteWebhookDelivery(ctx context.Context, id int64) (bool, error) {
	if err := x.q.Writable(); err != nil {
		return false, err
	}
	n, err := x.q.Exec(ctx, "DELETE FROM webhook_deliveries WHERE id = $1", id)
	if err != nil {
		return false, x.classify(err, fmt.Sprintf("delete webhook delivery %d", id))
	}
	return n == 1, nil
}
