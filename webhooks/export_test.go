package webhooks

import "github.com/chatcore/chatcore"

// RequestBody returns the body of h's request (nil for none).
func RequestBody(h *chatcore.OutgoingWebhook) ([]byte, error) {
	body, _, _, err := request(h)
	return body, err
}
