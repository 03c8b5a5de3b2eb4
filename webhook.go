package chatcore

import "context"

// afterSend is called once a message has committed (see effects.sentMsg); the
// outgoing-webhook work triggers bots from here. (Placeholder, replaced by the
// webhook work.)
func (s *Service) afterSend(ctx context.Context, m *Message, mentioned []UserID) {}
