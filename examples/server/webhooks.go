package main

import "github.com/chatcore/chatcore"

// webhookOptions returns the Service options for outgoing webhooks built from
// the command line (-webhook-allow-private).
func webhookOptions(cfg config) []chatcore.Option {
	return nil
}
