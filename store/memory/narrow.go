package memory

import (
	"slices"
	"strings"

	"github.com/chatcore/chatcore/internal/fulltext"
	"github.com/chatcore/chatcore/store"
)

// matchNarrow reports whether m meets c: the memory store's full-text
// matcher reads the message itself, with the analysis the SQL stores'
// indexes use (package internal/fulltext).
func matchNarrow(m *store.Message, c *store.NarrowConds) bool {
	for _, t := range c.Search {
		q := fulltext.Query{Lexemes: t.Lexemes}
		words := q.Matches(m.Topic, m.Content, m.RenderedContent)
		if t.Negated {
			if len(t.Lexemes) > 0 && words {
				return false
			}
			for _, p := range t.Phrases {
				if containsFold(m.Content, p) || containsFold(m.Topic, p) {
					return false
				}
			}
			continue
		}
		if !words {
			return false
		}
		for _, p := range t.Phrases {
			if !containsFold(m.Content, p) && !containsFold(m.Topic, p) {
				return false
			}
		}
	}
	isStream := m.Type == store.MessageTypeStream
	return !slices.Contains(c.NotIDs, m.ID) && !slices.Contains(c.NotSenderIDs, m.SenderID) &&
		!(isStream && slices.Contains(c.NotTopicKeys, m.TopicKey)) && m.Has&c.NotHas == 0 &&
		(!c.NoReaction || len(m.Reactions) == 0) &&
		(c.NotTopicPrefix == "" || !(isStream && strings.HasPrefix(m.Topic, c.NotTopicPrefix)))
}

// containsFold reports whether s contains sub, ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
