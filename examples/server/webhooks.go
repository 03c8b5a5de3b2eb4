package main

import (
	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/webhooks"
)

// webhookOptions returns the Service options for outgoing webhooks: delivery
// is on, -webhook-allow-private lets it reach loopback and private addresses
// (the demo's echo bot points at 127.0.0.1:8765), and -webhook-timeout bounds
// each attempt.
func webhookOptions(cfg config, onOutcome func(string)) []chatcore.Option {
	return []chatcore.Option{
		webhooks.Delivery(webhooks.Options{AllowPrivate: cfg.webhookAllowPrivate, Timeout: cfg.webhookTimeout, OnOutcome: onOutcome}),
	}
}
