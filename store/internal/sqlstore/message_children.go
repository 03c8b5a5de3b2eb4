package sqlstore

import "github.com/chatcore/chatcore/store"

// MessageChildren are the reactions, edit history and submessages of some
// messages as a store reads them: each ordered by message, then as the
// message lists them.
type MessageChildren struct {
	Reactions []ChildReaction
	Edits     []ChildEdit
	Subs      []store.Submessage
}

// ChildReaction is a reaction of the message ID.
type ChildReaction struct {
	ID store.MessageID
	R  store.Reaction
}

// ChildEdit is an edit history entry of the message ID.
type ChildEdit struct {
	ID store.MessageID
	E  store.EditHistoryEntry
}

// ReactionsSQL reads the reactions of the messages that cond (a condition
// on message_id) selects, in MessageChildren's order; ScanReaction scans
// its rows.
func ReactionsSQL(cond string) string {
	return `SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions
		WHERE ` + cond + ` ORDER BY message_id, seq`
}

// ScanReaction scans a row of ReactionsSQL into v.
func ScanReaction(r Row, v *ChildReaction) error {
	return r.Scan(&v.ID, &v.R.UserID, &v.R.EmojiName, &v.R.EmojiCode, &v.R.ReactionType)
}

// EditHistorySQL reads the edit history of the messages that cond (a
// condition on message_id) selects, in MessageChildren's order.
func EditHistorySQL(cond string) string {
	return `SELECT message_id, user_id, timestamp, prev_content, prev_rendered_content,
		prev_stream_id, stream_id, prev_topic, topic FROM edit_history
		WHERE ` + cond + ` ORDER BY message_id, seq`
}

// SubmessagesSQL reads the submessages of the messages that cond (a
// condition on message_id) selects, in MessageChildren's order;
// ScanSubmessage scans its rows.
func SubmessagesSQL(cond string) string {
	return `SELECT id, message_id, sender_id, msg_type, content FROM submessages
		WHERE ` + cond + ` ORDER BY message_id, id`
}

// ScanSubmessage scans a row of SubmessagesSQL into s.
func ScanSubmessage(r Row, s *store.Submessage) error {
	return r.Scan(&s.ID, &s.MessageID, &s.SenderID, &s.MsgType, &s.Content)
}

// Attach appends the children to their messages among msgs.
func (ch *MessageChildren) Attach(msgs []*store.Message) {
	byID := make(map[store.MessageID]*store.Message, len(msgs))
	for _, m := range msgs {
		byID[m.ID] = m
	}
	for _, v := range ch.Reactions {
		byID[v.ID].Reactions = append(byID[v.ID].Reactions, v.R)
	}
	for _, v := range ch.Edits {
		byID[v.ID].EditHistory = append(byID[v.ID].EditHistory, v.E)
	}
	for _, s := range ch.Subs {
		byID[s.MessageID].Submessages = append(byID[s.MessageID].Submessages, s)
	}
}
