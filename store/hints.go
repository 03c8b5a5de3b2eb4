package store

import "context"

// SingleReadStore is implemented by a Store that can serve a View whose fn
// makes a single call on its Tx more cheaply than View does. One statement
// sees a consistent snapshot by itself, so it needs no transaction around it:
// on a client-server database that saves the round trips of beginning and
// ending one. The Service reads through it where one read is all it needs
// (authenticating a request), and through View otherwise.
type SingleReadStore interface {
	// ViewSingle runs fn as View does, except that fn may make only one call
	// on tx; a second one fails with an error.
	ViewSingle(ctx context.Context, fn func(tx Tx) error) error
}

// Prefetcher is implemented by a Tx whose every read costs a round trip to a
// database server. Prefetch announces reads the transaction is about to
// make; the store sends them to the server together with the transaction's
// next statement, in one round trip, and answers each announced read once
// from what it fetched. Announcing never changes an answer: a read answers
// as it would have unannounced (a write in between that may change an
// answer makes the store forget it), and an announced read that is never
// made costs only its share of that round trip. The Service announces the
// reads of a message send and of a topic deletion batch when it knows them
// up front, and package eventqueue those of an event poll.
type Prefetcher interface {
	Prefetch(p Prefetch)
}

// Prefetch names reads a transaction is about to make (see [Prefetcher]).
type Prefetch struct {
	// Realms are read with RealmStore.Realm and then
	// LinkifierStore.LinkifiersVersion.
	Realms []RealmID
	// Streams are read with StreamStore.Stream, StreamNames with
	// StreamStore.StreamByName.
	Streams     []StreamID
	StreamNames []StreamName
	// Subscribers announces StreamStore.ActiveSubscriberIDs of each of the
	// streams above that exists.
	Subscribers bool
	// Audiences are read with StreamStore.StreamAudience, for any upTo.
	Audiences []StreamID
	// EventQueues are read with EventStore.EventQueue, and then
	// EventStore.LastEventID of the realm of each one that exists.
	EventQueues []string
	// RealmStreams are read with StreamStore.Streams (every stream of the
	// realm), UserSubscriptions with StreamStore.Subscriptions for stream
	// 0 (every subscription of the user), DirectRecipients with
	// MessageStore.DirectRecipients: what a user may read, as
	// chatcore.StreamAccessMap and GET /messages find it.
	RealmStreams      []RealmID
	UserSubscriptions []UserID
	DirectRecipients  []UserID
	// NewMessages is how many messages the transaction is about to create
	// with MessageStore.CreateMessage and a zero id. A store may reserve
	// their ids with the announced reads and then hold a plain message's
	// insert (one without reactions, edit history or submessages) back
	// until the transaction's next statement or its commit, which then
	// fails when the insert does: CreateMessage's answer is the same, its
	// round trip is saved, and a later read in the transaction still sees
	// the message.
	NewMessages int
	// Muters are read with MutedUserStore.MutersOf, AlertWordRealms with
	// AlertWordStore.RealmAlertWords and TopicPolicies with
	// UserTopicStore.TopicUserTopics: what a send reads of its receivers'
	// own settings.
	Muters          []UserID
	AlertWordRealms []RealmID
	TopicPolicies   []StreamTopic
	// RealmEmojiRealms are read with RealmEmojiStore.RealmEmojis: the
	// custom emoji a message's :name: syntax may show.
	RealmEmojiRealms []RealmID
	// ChannelGroupSettings announces GroupAdminStore.ChannelGroupSettings
	// of each of the streams above that exists: the permission groups a
	// send checks (its can_send_message_group).
	ChannelGroupSettings bool
	// UserMessages, when its IDs are not empty, is read with
	// FlagStore.UserMessages for its User and the same IDs, in the same
	// order. A write of messages or flags in between forgets its answer.
	UserMessages UserMessagesRead
}

// StreamTopic is a topic of a channel by its TopicKey; the channel is
// StreamID or, when that is zero, the one StreamName names.
type StreamTopic struct {
	StreamID   StreamID
	StreamName StreamName
	TopicKey   string
}

// UserMessagesRead names a FlagStore.UserMessages read: User's view of the
// messages IDs.
type UserMessagesRead struct {
	User UserID
	IDs  []MessageID
}

// Announce tells tx the reads p names when tx prefetches (see
// [Prefetcher]); with any other Tx it does nothing.
func Announce(tx Tx, p Prefetch) {
	if f, ok := tx.(Prefetcher); ok {
		f.Prefetch(p)
	}
}

// StreamName names a stream as StreamStore.StreamByName looks it up.
type StreamName struct {
	RealmID RealmID
	Name    string
}
