package chatcore

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
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

// WebhookAddrAllowedForTest exposes the address guard.
func WebhookAddrAllowedForTest(ip netip.Addr) bool { return webhookAddrAllowed(ip) }

// WebhookDialControlForTest exposes the dialer's Control function.
var WebhookDialControlForTest = webhookDialControl

// ErrWebhookBlockedForTest is wrapped by refused dials.
var ErrWebhookBlockedForTest = errWebhookBlocked

// WebhookClientForTest returns the dispatcher's HTTP client with the guard, except
// that connections to the loopback port allowPort are let through (standing in
// for a public address).
func WebhookClientForTest(allowPort string) *http.Client {
	return newGuardedClient(WebhookOptions{}.withDefaults(), func(network, address string, c syscall.RawConn) error {
		if strings.HasSuffix(address, ":"+allowPort) {
			return nil
		}
		return webhookDialControl(network, address, c)
	})
}
