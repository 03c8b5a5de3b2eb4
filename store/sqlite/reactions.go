package sqlite

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// AddReaction implements [store.ReactionStore]: one INSERT that appends
// the reaction after the message's last one (seq), refused by the unique
// index on (message, user, type, code) and by the message's foreign key.
func (t *tx) AddReaction(ctx context.Context, id store.MessageID, r store.Reaction) error {
	if err := t.writable(); err != nil {
		return err
	}
	_, err := t.exec(ctx, `INSERT INTO reactions (message_id, seq, user_id, emoji_name, emoji_code, reaction_type)
		VALUES (?1, (SELECT coalesce(max(seq), -1) + 1 FROM reactions WHERE message_id = ?1), ?2, ?3, ?4, ?5)`,
		id, r.UserID, r.EmojiName, r.EmojiCode, r.ReactionType)
	return classify(err, "add reaction")
}

// RemoveReaction implements [store.ReactionStore].
func (t *tx) RemoveReaction(ctx context.Context, id store.MessageID, user store.UserID, reactionType, emojiCode string) error {
	if err := t.writable(); err != nil {
		return err
	}
	res, err := t.exec(ctx, `DELETE FROM reactions WHERE message_id = ? AND user_id = ? AND reaction_type = ? AND emoji_code = ?`,
		id, user, reactionType, emojiCode)
	if err != nil {
		return classify(err, "remove reaction")
	}
	return mustAffect(res, "remove reaction")
}
