package chatcore

import "github.com/chatcore/chatcore/store"

// The store contract (package store) names the ids, entities, flags and
// store interfaces the Service works with. The names below are the same
// types and values under the root package, so code that uses chatcore.User
// or chatcore.ErrNotFound needs no second import.

type (
	// RealmEmoji is [store.RealmEmoji].
	RealmEmoji = store.RealmEmoji
	// RealmEmojiID is [store.RealmEmojiID].
	RealmEmojiID = store.RealmEmojiID
	// Attachment is [store.Attachment].
	Attachment = store.Attachment
	// AttachmentID is [store.AttachmentID].
	AttachmentID = store.AttachmentID
	// AttachmentRef is [store.AttachmentRef].
	AttachmentRef = store.AttachmentRef
	// AttachmentFilter is [store.AttachmentFilter].
	AttachmentFilter = store.AttachmentFilter
	// FileStorage is [store.FileStorage].
	FileStorage = store.FileStorage
	// StoredFile is [store.StoredFile].
	StoredFile = store.StoredFile
	// BotService is [store.BotService].
	BotService = store.BotService
	// BotServiceID is [store.BotServiceID].
	BotServiceID = store.BotServiceID
	// BotType is [store.BotType].
	BotType = store.BotType
	// BulkSettingUpdate is [store.BulkSettingUpdate].
	BulkSettingUpdate = store.BulkSettingUpdate
	// DeletedMessage is [store.DeletedMessage].
	DeletedMessage = store.DeletedMessage
	// Draft is [store.Draft].
	Draft = store.Draft
	// DraftID is [store.DraftID].
	DraftID = store.DraftID
	// DraftStore is [store.DraftStore].
	DraftStore = store.DraftStore
	// EditHistoryEntry is [store.EditHistoryEntry].
	EditHistoryEntry = store.EditHistoryEntry
	// EmailChange is [store.EmailChange].
	EmailChange = store.EmailChange
	// EmailChangeStore is [store.EmailChangeStore].
	EmailChangeStore = store.EmailChangeStore
	// EventLogQuery is [store.EventLogQuery].
	EventLogQuery = store.EventLogQuery
	// EventNotice is [store.EventNotice].
	EventNotice = store.EventNotice
	// EventQueue is [store.EventQueue].
	EventQueue = store.EventQueue
	// EventQueueFilter is [store.EventQueueFilter].
	EventQueueFilter = store.EventQueueFilter
	// EventStore is [store.EventStore].
	EventStore = store.EventStore
	// WebhookDelivery is [store.WebhookDelivery].
	WebhookDelivery = store.WebhookDelivery
	// WebhookDeliveryFilter is [store.WebhookDeliveryFilter].
	WebhookDeliveryFilter = store.WebhookDeliveryFilter
	// WebhookStore is [store.WebhookStore].
	WebhookStore = store.WebhookStore
	// FlagStore is [store.FlagStore].
	FlagStore = store.FlagStore
	// Group is [store.Group].
	Group = store.Group
	// GroupID is [store.GroupID].
	GroupID = store.GroupID
	// GroupStore is [store.GroupStore].
	GroupStore = store.GroupStore
	// Linkifier is [store.Linkifier].
	Linkifier = store.Linkifier
	// LinkifierID is [store.LinkifierID].
	LinkifierID = store.LinkifierID
	// LinkifierStore is [store.LinkifierStore].
	LinkifierStore = store.LinkifierStore
	// LoggedEvent is [store.LoggedEvent].
	LoggedEvent = store.LoggedEvent
	// Message is [store.Message].
	Message = store.Message
	// MessageFilter is [store.MessageFilter].
	MessageFilter = store.MessageFilter
	// MessageFlags is [store.MessageFlags].
	MessageFlags = store.MessageFlags
	// MessageHas is [store.MessageHas].
	MessageHas = store.MessageHas
	// MessageID is [store.MessageID].
	MessageID = store.MessageID
	// MessageKinds is [store.MessageKinds].
	MessageKinds = store.MessageKinds
	// MessageMove is [store.MessageMove].
	MessageMove = store.MessageMove
	// MessagePolicy is [store.MessagePolicy].
	MessagePolicy = store.MessagePolicy
	// MessageQuery is [store.MessageQuery].
	MessageQuery = store.MessageQuery
	// MessageStore is [store.MessageStore].
	MessageStore = store.MessageStore
	// MessageType is [store.MessageType].
	MessageType = store.MessageType
	// Prefetch is [store.Prefetch].
	Prefetch = store.Prefetch
	// Prefetcher is [store.Prefetcher].
	Prefetcher = store.Prefetcher
	// Presence is [store.Presence].
	Presence = store.Presence
	// PresenceQuery is [store.PresenceQuery].
	PresenceQuery = store.PresenceQuery
	// PresenceStore is [store.PresenceStore].
	PresenceStore = store.PresenceStore
	// Reaction is [store.Reaction].
	Reaction = store.Reaction
	// ReactionStore is [store.ReactionStore].
	ReactionStore = store.ReactionStore
	// Realm is [store.Realm].
	Realm = store.Realm
	// RealmID is [store.RealmID].
	RealmID = store.RealmID
	// RealmStore is [store.RealmStore].
	RealmStore = store.RealmStore
	// RecipientID is [store.RecipientID].
	RecipientID = store.RecipientID
	// Role is [store.Role].
	Role = store.Role
	// ScheduledFilter is [store.ScheduledFilter].
	ScheduledFilter = store.ScheduledFilter
	// ScheduledKind is [store.ScheduledKind].
	ScheduledKind = store.ScheduledKind
	// ScheduledMessage is [store.ScheduledMessage].
	ScheduledMessage = store.ScheduledMessage
	// ScheduledMessageID is [store.ScheduledMessageID].
	ScheduledMessageID = store.ScheduledMessageID
	// ScheduledMessageStore is [store.ScheduledMessageStore].
	ScheduledMessageStore = store.ScheduledMessageStore
	// SettingValue is [store.SettingValue].
	SettingValue = store.SettingValue
	// Settings is [store.Settings].
	Settings = store.Settings
	// SettingsStore is [store.SettingsStore].
	SettingsStore = store.SettingsStore
	// SingleReadStore is [store.SingleReadStore].
	SingleReadStore = store.SingleReadStore
	// Store is [store.Store].
	Store = store.Store
	// Stream is [store.Stream].
	Stream = store.Stream
	// StreamID is [store.StreamID].
	StreamID = store.StreamID
	// StreamName is [store.StreamName].
	StreamName = store.StreamName
	// StreamStore is [store.StreamStore].
	StreamStore = store.StreamStore
	// Submessage is [store.Submessage].
	Submessage = store.Submessage
	// Subscriber is [store.Subscriber].
	Subscriber = store.Subscriber
	// Subscription is [store.Subscription].
	Subscription = store.Subscription
	// SubscriptionProperties is [store.SubscriptionProperties].
	SubscriptionProperties = store.SubscriptionProperties
	// SystemGroup is [store.SystemGroup].
	SystemGroup = store.SystemGroup
	// TimeLimit is [store.TimeLimit].
	TimeLimit = store.TimeLimit
	// TopicSummary is [store.TopicSummary].
	TopicSummary = store.TopicSummary
	// Tx is [store.Tx].
	Tx = store.Tx
	// User is [store.User].
	User = store.User
	// UserFilter is [store.UserFilter].
	UserFilter = store.UserFilter
	// UserID is [store.UserID].
	UserID = store.UserID
	// UserMessage is [store.UserMessage].
	UserMessage = store.UserMessage
	// UserMessageFlags is [store.UserMessageFlags].
	UserMessageFlags = store.UserMessageFlags
	// UserMessagesRead is [store.UserMessagesRead].
	UserMessagesRead = store.UserMessagesRead
	// UserStore is [store.UserStore].
	UserStore = store.UserStore
)

const (
	BotTypeGeneric               = store.BotTypeGeneric
	BotTypeIncomingWebhook       = store.BotTypeIncomingWebhook
	BotTypeOutgoingWebhook       = store.BotTypeOutgoingWebhook
	DefaultContentEditLimit      = store.DefaultContentEditLimit
	DefaultDeleteOwnLimit        = store.DefaultDeleteOwnLimit
	DefaultEmptyTopicDisplayName = store.DefaultEmptyTopicDisplayName
	DefaultMoveLimit             = store.DefaultMoveLimit
	EditableFlags                = store.EditableFlags
	FlagCollapsed                = store.FlagCollapsed
	FlagHasAlertWord             = store.FlagHasAlertWord
	FlagHistorical               = store.FlagHistorical
	FlagMentioned                = store.FlagMentioned
	FlagRead                     = store.FlagRead
	FlagStarred                  = store.FlagStarred
	FlagStreamWildcardMentioned  = store.FlagStreamWildcardMentioned
	FlagTopicWildcardMentioned   = store.FlagTopicWildcardMentioned
	GroupAdministrators          = store.GroupAdministrators
	HasAttachment                = store.HasAttachment
	HasImage                     = store.HasImage
	HasLink                      = store.HasLink
	GroupEveryone                = store.GroupEveryone
	GroupFullMembers             = store.GroupFullMembers
	GroupMembers                 = store.GroupMembers
	GroupModerators              = store.GroupModerators
	GroupNobody                  = store.GroupNobody
	GroupOwners                  = store.GroupOwners
	HistoricalFlags              = store.HistoricalFlags
	KindDirect                   = store.KindDirect
	KindPrivateChannel           = store.KindPrivateChannel
	KindPublicChannel            = store.KindPublicChannel
	MentionFlags                 = store.MentionFlags
	MessageTypePrivate           = store.MessageTypePrivate
	MessageTypeStream            = store.MessageTypeStream
	ReactionRealmEmoji           = store.ReactionRealmEmoji
	ReactionUnicodeEmoji         = store.ReactionUnicodeEmoji
	ReactionZulipExtraEmoji      = store.ReactionZulipExtraEmoji
	RoleAdministrator            = store.RoleAdministrator
	RoleGuest                    = store.RoleGuest
	RoleMember                   = store.RoleMember
	RoleModerator                = store.RoleModerator
	RoleOwner                    = store.RoleOwner
	ScheduledReminder            = store.ScheduledReminder
	ScheduledSendLater           = store.ScheduledSendLater
	Unlimited                    = store.Unlimited
)

var (
	// ErrConflict is [store.ErrConflict]; test with errors.Is.
	ErrConflict = store.ErrConflict
	// ErrNotFound is [store.ErrNotFound]; test with errors.Is.
	ErrNotFound = store.ErrNotFound
	// ErrUnavailable is [store.ErrUnavailable]; test with errors.Is. Service
	// methods return it inside an [*Error] of kind [KindUnavailable].
	ErrUnavailable = store.ErrUnavailable
)

// FoldKey returns the key under which chatcore compares names
// case-insensitively; see [store.FoldKey].
func FoldKey(s string) string { return store.FoldKey(s) }

// TopicKey returns the key under which chatcore compares topics; see
// [store.TopicKey].
func TopicKey(topic string) string { return store.TopicKey(topic) }

// ParseMessageFlag returns the flag with the wire name, or false.
func ParseMessageFlag(name string) (MessageFlags, bool) { return store.ParseMessageFlag(name) }

// ParseRole parses a role's wire name; see [store.ParseRole].
func ParseRole(s string) (Role, bool) { return store.ParseRole(s) }

// DefaultSettings returns Zulip's defaults for a new user.
func DefaultSettings() Settings { return store.DefaultSettings() }

// SettingNames returns the wire names of all settings in declaration order.
// The slice is a fresh copy.
func SettingNames() []string { return store.SettingNames() }

// IsSetting reports whether name is the wire name of a setting.
func IsSetting(name string) bool { return store.IsSetting(name) }
