package messages

import (
	"context"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/htmldiff"
)

// HistoryEntry is one version of a message in GET
// /messages/{message_id}/history, oldest first: the message as it was after
// the edit (topic, content, rendered_content), who made it and when, and
// what the edit changed (prev_* fields, stream ids of a channel move).
// The first entry is the message as sent.
type HistoryEntry struct {
	Topic               string            `json:"topic"`
	PrevTopic           *string           `json:"prev_topic,omitempty"`
	Stream              chatcore.StreamID `json:"stream,omitzero"`
	PrevStream          chatcore.StreamID `json:"prev_stream,omitzero"`
	Content             string            `json:"content"`
	RenderedContent     string            `json:"rendered_content"`
	PrevContent         *string           `json:"prev_content,omitempty"`
	PrevRenderedContent *string           `json:"prev_rendered_content,omitempty"`
	UserID              chatcore.UserID   `json:"user_id"`
	ContentHTMLDiff     *string           `json:"content_html_diff,omitempty"`
	Timestamp           int64             `json:"timestamp"`
}

// History returns the versions of message id, oldest first, as
// Zulip's GET /messages/{message_id}/history does. Without
// allowEmptyTopicName the empty topic is shown as the realm's display name
// for it. Errors (BAD_REQUEST): "Message edit history is disabled in this
// organization"; "Invalid message(s)" for a message the actor cannot see.
func History(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.MessageID, allowEmptyTopicName bool) ([]HistoryEntry, error) {
	var out []HistoryEntry
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		if realm.Messages.EditHistoryDisabled {
			return chatcore.BadRequest("Message edit history is disabled in this organization")
		}
		m, err := chatcore.ReadableMessage(ctx, tx, u, id)
		if err != nil {
			return err
		}
		out = historyOf(m)
		if !allowEmptyTopicName && m.Type == chatcore.MessageTypeStream {
			name := chatcore.DisplayedEmptyTopic(realm)
			for i := range out {
				if out[i].Topic == "" {
					out[i].Topic = name
				}
				if out[i].PrevTopic != nil && *out[i].PrevTopic == "" {
					out[i].PrevTopic = &name
				}
			}
		}
		return nil
	})
	return out, err
}

// historyOf rebuilds every version of m from its edit history (most recent
// entry first), oldest version first.
func historyOf(m *chatcore.Message) []HistoryEntry {
	content, rendered, topic := m.Content, m.RenderedContent, m.Topic
	newestFirst := make([]HistoryEntry, 0, len(m.EditHistory)+1)
	for _, e := range m.EditHistory {
		v := HistoryEntry{Topic: topic, Content: content, RenderedContent: rendered,
			UserID: e.UserID, Timestamp: e.Timestamp.Unix()}
		if e.PrevTopic != nil {
			topic = *e.PrevTopic
			v.PrevTopic = new(topic)
		}
		if e.PrevContent != "" || e.PrevRenderedContent != "" {
			v.PrevContent, v.PrevRenderedContent = new(e.PrevContent), new(e.PrevRenderedContent)
			diff := htmldiff.Diff(e.PrevRenderedContent, rendered)
			v.ContentHTMLDiff = &diff
			content, rendered = e.PrevContent, e.PrevRenderedContent
		}
		if e.PrevStreamID != 0 {
			v.PrevStream, v.Stream = e.PrevStreamID, e.StreamID
		}
		newestFirst = append(newestFirst, v)
	}
	newestFirst = append(newestFirst, HistoryEntry{Topic: topic, Content: content, RenderedContent: rendered,
		UserID: m.SenderID, Timestamp: m.SentAt.Unix()})
	out := make([]HistoryEntry, len(newestFirst))
	for i, v := range newestFirst {
		out[len(out)-1-i] = v
	}
	return out
}
