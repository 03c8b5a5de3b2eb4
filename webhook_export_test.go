package chatcore

import (
	"context"
)

// WebhookBodiesForTest returns the request bodies a send of the stored message
// id, mentioning the users in mentioned, would POST (one per service).
func (s *Service) WebhookBodiesForTest(ctx context.Context, id MessageID, mentioned []UserID) ([]string, error) {
	var bodies []string
	err := s.view(ctx, func(tx Tx) error {
		m, err := tx.Message(ctx, id)
		if err != nil {
			return err
		}
		jobs, err := s.webhookJobs(ctx, tx, m, mentioned)
		for _, j := range jobs {
			bodies = append(bodies, string(j.body))
		}
		return err
	})
	return bodies, err
}
