package chatcore

import "context"

// afterSend is called by the messaging code once a message has committed; the
// outgoing-webhook work triggers bots from here. (Placeholder.)
func (s *Service) afterSend(ctx context.Context, m *Message) {}
