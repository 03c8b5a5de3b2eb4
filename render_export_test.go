package chatcore

import "context"

// RenderMessageForTest exposes RenderMessage (HTML, mentioned users, /me) to
// the external tests, in a read-only transaction.
func (s *Service) RenderMessageForTest(ctx context.Context, realm RealmID, content string) (html string, mentioned []UserID, isMe bool, err error) {
	err = s.View(ctx, func(tx Tx) error {
		html, mentioned, isMe, err = s.RenderMessage(ctx, tx, realm, content)
		return err
	})
	return html, mentioned, isMe, err
}

// TopicLinksForTest runs TopicLinksIn in a read-only transaction.
func (s *Service) TopicLinksForTest(ctx context.Context, realm RealmID, topic string) ([]TopicLink, error) {
	var out []TopicLink
	err := s.View(ctx, func(tx Tx) error {
		var err error
		out, err = s.TopicLinksIn(ctx, tx, realm, topic)
		return err
	})
	return out, err
}
