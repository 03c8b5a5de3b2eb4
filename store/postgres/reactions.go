package postgres

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// AddReaction implements [store.ReactionStore] with one statement that
// appends the reaction after the message's last one (seq) unless the
// message is missing or the user already has the reaction; neither case is
// an error of PostgreSQL's, so the transaction stays usable. Reactions hang
// off messages (see writableKeepingAnswers).
func (t *tx) AddReaction(ctx context.Context, id store.MessageID, r store.Reaction) error {
	if err := t.writableKeepingAnswers(); err != nil {
		return err
	}
	var found, added bool
	err := t.queryRow(ctx, `WITH m AS (SELECT id FROM messages WHERE id = $1),
		ins AS (
			INSERT INTO reactions (message_id, seq, user_id, emoji_name, emoji_code, reaction_type)
			SELECT m.id, (SELECT coalesce(max(seq), -1) + 1 FROM reactions WHERE message_id = $1), $2, $3, $4, $5 FROM m
			ON CONFLICT (message_id, user_id, reaction_type, emoji_code) DO NOTHING
			RETURNING 1)
		SELECT EXISTS (SELECT 1 FROM m), EXISTS (SELECT 1 FROM ins)`,
		id, r.UserID, r.EmojiName, r.EmojiCode, r.ReactionType).Scan(&found, &added)
	switch {
	case err != nil:
		return classify(err, "add reaction")
	case !found:
		return notFound(fmt.Sprintf("add reaction: message %d", id))
	case !added:
		return fmt.Errorf("postgres: add reaction: %w: the user has this reaction", store.ErrConflict)
	}
	return nil
}

// RemoveReaction implements [store.ReactionStore]. Reactions hang off
// messages (see writableKeepingAnswers).
func (t *tx) RemoveReaction(ctx context.Context, id store.MessageID, user store.UserID, reactionType, emojiCode string) error {
	if err := t.writableKeepingAnswers(); err != nil {
		return err
	}
	tag, err := t.exec(ctx, `DELETE FROM reactions WHERE message_id = $1 AND user_id = $2 AND reaction_type = $3 AND emoji_code = $4`,
		id, user, reactionType, emojiCode)
	return mustAffect(tag, err, "remove reaction")
}
