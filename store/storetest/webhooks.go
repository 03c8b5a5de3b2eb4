package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// normDelivery returns d with its times in UTC, as the suite compares them.
func normDelivery(d store.WebhookDelivery) store.WebhookDelivery {
	d.Created, d.AttemptedAt = d.Created.UTC(), d.AttemptedAt.UTC()
	return d
}

// deliveries lists the stored deliveries f selects, normalised.
func deliveries(t *testing.T, st store.Store, f store.WebhookDeliveryFilter) []store.WebhookDelivery {
	t.Helper()
	var out []store.WebhookDelivery
	view(t, st, func(ctx context.Context, tx store.Tx) {
		ds, err := tx.WebhookDeliveries(ctx, f)
		if err != nil {
			t.Fatalf("webhook deliveries: %v", err)
		}
		for _, d := range ds {
			out = append(out, normDelivery(d))
		}
	})
	return out
}

var webhookTests = []test{
	{"CreateListClaimDelete", func(t *testing.T, st store.Store) {
		is := is.New(t)
		mk := func(msg store.MessageID, at time.Time) *store.WebhookDelivery {
			return &store.WebhookDelivery{RealmID: 1, MessageID: msg, BotID: 7, ServiceID: 3, Trigger: "mention",
				Created: at.Add(500 * time.Millisecond), AttemptedAt: at.Add(500 * time.Millisecond)}
		}
		a, b, c := mk(10, epoch), mk(11, epoch.Add(time.Minute)), mk(12, epoch.Add(2*time.Minute))
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, d := range []*store.WebhookDelivery{a, b, c} {
				is.NoErr(tx.CreateWebhookDelivery(ctx, d)) // delivery stored
			}
		})
		is.True(a.ID > 0 && b.ID > a.ID && c.ID > b.ID) // ids assigned in order
		want := *a
		want.Created, want.AttemptedAt = epoch, epoch
		all := deliveries(t, st, store.WebhookDeliveryFilter{})
		is.Equal(len(all), 3)                                                                                                     // every delivery
		is.Equal(all[0], want)                                                                                                    // every field round-trips, times in whole seconds
		is.Equal(all[2].ID, c.ID)                                                                                                 // ascending by id
		is.Equal(len(deliveries(t, st, store.WebhookDeliveryFilter{AttemptedBefore: epoch.Add(time.Minute)})), 1)                 // attempted before a time
		is.Equal(len(deliveries(t, st, store.WebhookDeliveryFilter{AttemptedBefore: epoch.Add(time.Minute + time.Second/2)})), 2) // whole seconds compared
		page := deliveries(t, st, store.WebhookDeliveryFilter{AfterID: a.ID, Limit: 1})
		is.Equal(len(page), 1)     // paging
		is.Equal(page[0].ID, b.ID) // after the id

		claim := func(id int64, attempt int, at time.Time) bool {
			var ok bool
			update(t, st, func(ctx context.Context, tx store.Tx) {
				var err error
				ok, err = tx.ClaimWebhookAttempt(ctx, id, attempt, at)
				is.NoErr(err) // claim answered
			})
			return ok
		}
		is.True(claim(a.ID, 1, epoch.Add(time.Hour)))   // the first attempt is claimed
		is.True(!claim(a.ID, 1, epoch.Add(time.Hour)))  // once
		is.True(!claim(a.ID, 3, epoch.Add(time.Hour)))  // attempts are claimed in order
		is.True(claim(a.ID, 2, epoch.Add(2*time.Hour))) // the next one
		got := deliveries(t, st, store.WebhookDeliveryFilter{Limit: 1})[0]
		is.Equal(got.Attempts, 2)                         // attempts recorded
		is.Equal(got.AttemptedAt, epoch.Add(2*time.Hour)) // with the start of the last
		is.Equal(got.Created, epoch)                      // created stays
		is.True(!claim(999999, 1, epoch))                 // an unknown delivery is not claimed

		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			if _, err := tx.DeleteWebhookDelivery(ctx, b.ID); err != nil {
				return err
			}
			return errors.New("roll back")
		})
		is.True(err != nil)                                                // rolled back
		is.Equal(len(deliveries(t, st, store.WebhookDeliveryFilter{})), 3) // a rolled-back delete leaves the delivery
		update(t, st, func(ctx context.Context, tx store.Tx) {
			ok, err := tx.DeleteWebhookDelivery(ctx, b.ID)
			is.NoErr(err) // deleted
			is.True(ok)   // it existed
			ok, err = tx.DeleteWebhookDelivery(ctx, b.ID)
			is.NoErr(err) // deleting again
			is.True(!ok)  // finds nothing
		})
		left := deliveries(t, st, store.WebhookDeliveryFilter{})
		is.Equal([]int64{left[0].ID, left[1].ID}, []int64{a.ID, c.ID}) // the others stay
		update(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.DeleteWebhookDelivery(ctx, c.ID)
			is.NoErr(err) // the newest is deleted
			d := mk(13, epoch)
			is.NoErr(tx.CreateWebhookDelivery(ctx, d)) // a new one
			is.True(d.ID > c.ID)                       // never takes a deleted id
		})
		err = st.View(ctx, func(tx store.Tx) error { return tx.CreateWebhookDelivery(ctx, mk(14, epoch)) })
		is.True(err != nil) // storing in a View fails
	}},
}
