package store

// The conditions of Zulip's search operator and of negated narrow terms.

// SearchTerm is one search operand of a narrow, parsed (see package
// internal/fulltext): a message matches when its topic and the text of its
// rendered content hold every one of Lexemes (stemmed words) and its raw
// content or topic contains each of Phrases, ignoring case. Lexemes empty
// (an operand of stop words) matches nothing. Negated inverts each part on
// its own, as Zulip does: a negated term keeps the messages that hold not
// every lexeme and contain none of the phrases.
type SearchTerm struct {
	// Text is the words of the operand without stop words (see
	// fulltext.Query.Text); PostgreSQL parses it itself (plainto_tsquery
	// with the english configuration).
	Text    string
	Lexemes []string
	Phrases []string
	Negated bool
}

// NarrowConds are the conditions of a [MessageQuery] beyond its plain
// ones: full-text search and the negated terms of a narrow. The zero value
// selects everything.
type NarrowConds struct {
	// Search keeps only messages matching every term.
	Search []SearchTerm
	// NotIDs drops these messages.
	NotIDs []MessageID
	// NotSenderIDs drops the messages these users sent.
	NotSenderIDs []UserID
	// NotTopicKeys drops the channel messages with one of these TopicKeys
	// (direct messages stay).
	NotTopicKeys []string
	// NotHas drops messages whose Has holds any bit of it.
	NotHas MessageHas
	// NoReaction keeps only messages without reactions.
	NoReaction bool
	// NotTopicPrefix, when not "", drops the channel messages whose topic
	// starts with it.
	NotTopicPrefix string
}
