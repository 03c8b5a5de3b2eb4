package store

// Typed identifiers. Every id is a positive integer; zero means "none" or, in a
// value passed to a Create method of a [Store], "assign the next free id". Ids are
// global across realms, as in Zulip: an id never names two objects of one kind.
type (
	// RealmID identifies an organization.
	RealmID int64
	// UserID identifies a human user or a bot.
	UserID int64
	// GroupID identifies a user group.
	GroupID int64
	// StreamID identifies a channel (Zulip's wire name is "stream").
	StreamID int64
	// RecipientID identifies the set of recipients of a message: one channel, or
	// one set of direct-message participants.
	RecipientID int64
	// MessageID identifies a sent message. Messages sort by id.
	MessageID int64
	// ScheduledMessageID identifies a scheduled message or a reminder; both kinds
	// share one id space, so a reminder id never names a scheduled message.
	ScheduledMessageID int64
	// LinkifierID identifies a linkifier (Zulip's wire name is "filter").
	LinkifierID int64
	// DraftID identifies a stored draft.
	DraftID int64
	// BotServiceID identifies an outgoing-webhook service of a bot.
	BotServiceID int64
)
