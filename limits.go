package chatcore

// Limits of requests: bounds on list-valued parameters, and (at the end) the
// limits of message content and topics.
//
// Bounds on list-valued parameters. A store has one writer at a time, so work
// proportional to a request's size inside a write transaction delays every
// other write. Every list a request carries is therefore checked against its
// bound before any store access (the refusal names the parameter, in the
// style of Zulip's "X is too long (limit: N items)"), deduplicated, and then
// resolved set-based where the store allows it. accounts.MaxBulkTargetIDs bounds
// the lists of target_users the same way.

const (
	// MaxDirectRecipients bounds the recipients of one direct message: the
	// "to" list (or comma-separated e-mails) of POST /messages and POST
	// /scheduled_messages, and the operand of a dm or sender narrow. Zulip
	// sets no limit of its own; a group conversation this large is a
	// channel in practice, and no client sends one.
	MaxDirectRecipients = 1000
	// MaxNarrowTerms bounds the terms of a narrow (GET /messages and POST
	// /register); Zulip's clients send a handful.
	MaxNarrowTerms = 100
	// MaxOrderedLinkifierIDs bounds ordered_linkifier_ids of PATCH
	// /realm/linkifiers, which lists every linkifier of the realm once; it
	// must stay at least the number of linkifiers a realm may hold.
	MaxOrderedLinkifierIDs = 10000
	// MaxEventTypes bounds event_types and fetch_event_types of POST
	// /register; Zulip defines fewer than a hundred event types.
	MaxEventTypes = 1000
	// MaxMessageIDs bounds message_ids of GET /messages: Zulip's own limit
	// on the messages of one fetch (MAX_MESSAGES_PER_FETCH), with its
	// refusal "Too many messages requested (maximum 5000).".
	MaxMessageIDs = 5000
)

// TooLongError is the refusal of a list parameter over its bound.
func TooLongError(param string, limit int) *Error {
	return BadRequestf("%s is too long (limit: %d items)", param, limit)
}

// MaxUserIDs bounds user_ids of GET /users. Zulip sets no limit of its own;
// a client asks for the users it is missing, a handful at a time, and the
// whole realm comes without the parameter.
const MaxUserIDs = 1000

// Limits of message content and topics, as in Zulip.
const (
	// MaxMessageLength is the largest message content in bytes; longer content
	// is cut and ends with messageTruncatedMarker.
	MaxMessageLength = 10000
	// MaxTopicLength is the largest topic in characters; longer topics are cut
	// and end with "...".
	MaxTopicLength = 60
	// MaxMessagesPerFetch bounds num_before and num_after of GET /messages.
	MaxMessagesPerFetch = 1000

	messageTruncatedMarker = "\n[message truncated]"
	topicTruncatedMarker   = "..."
)
