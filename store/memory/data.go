package memory

import "github.com/chatcore/chatcore/store"

// realmKey is a name scoped to a realm: a folded e-mail, channel name, group
// name or linkifier pattern.
type realmKey struct {
	realm store.RealmID
	key   string
}

// subKey identifies a subscription.
type subKey struct {
	stream store.StreamID
	user   store.UserID
}

// topicKey identifies a topic by its channel's recipient and its folded name.
type topicKey struct {
	recipient store.RecipientID
	key       string
}

// recipient is a channel's or a direct conversation's recipient row.
type recipient struct {
	realm   store.RealmID
	stream  store.StreamID // zero for direct conversations
	members []store.UserID // sorted; direct conversations only
}

// data holds every table and index. Stored values are never modified in place:
// a write stores a fresh copy, so the undo log restores old pointers.
type data struct {
	realms        map[store.RealmID]*store.Realm
	realmByString map[string]store.RealmID
	realmMax      store.RealmID
	// userDefaults are the realms' stored defaults for new accounts.
	userDefaults map[store.RealmID]*store.Settings

	users        map[store.UserID]*store.User
	userByEmail  map[realmKey]store.UserID
	userByAPIKey map[string]store.UserID
	usersByRealm map[store.RealmID]*idList[store.UserID]
	userMax      store.UserID
	edited       map[store.UserID][]string // sorted setting names

	services      map[store.BotServiceID]*store.BotService
	servicesByBot map[store.UserID]*idList[store.BotServiceID]
	serviceMax    store.BotServiceID

	groups         map[store.GroupID]*store.Group
	groupByName    map[realmKey]store.GroupID
	groupsByRealm  map[store.RealmID]*idList[store.GroupID]
	groupMax       store.GroupID
	groupSettings  map[groupSettingKey]store.GroupSetting
	defaultStreams map[defaultStreamKey]bool

	streams        map[store.StreamID]*store.Stream
	streamByName   map[realmKey]store.StreamID
	streamsByRealm map[store.RealmID]*idList[store.StreamID]
	streamMax      store.StreamID

	recipients   map[store.RecipientID]*recipient
	directByKey  map[string]store.RecipientID
	directByUser map[store.UserID]*idList[store.RecipientID]
	recipientMax store.RecipientID

	subs         map[subKey]*store.Subscription
	subsByStream map[store.StreamID]*idList[store.UserID]
	subsByUser   map[store.UserID]*idList[store.StreamID]

	messages       map[store.MessageID]*store.Message
	msgByRealm     map[store.RealmID]*idList[store.MessageID]
	msgByRecipient map[store.RecipientID]*idList[store.MessageID]
	msgByStream    map[store.StreamID]*idList[store.MessageID]
	msgByTopic     map[topicKey]*idList[store.MessageID]
	msgBySender    map[store.UserID]*idList[store.MessageID]
	messageMax     store.MessageID
	submessageMax  int64

	scheduled    map[store.ScheduledMessageID]*store.ScheduledMessage
	scheduledMax store.ScheduledMessageID

	linkifiers         map[store.LinkifierID]*store.Linkifier
	linkifierByPattern map[realmKey]store.LinkifierID
	linkifiersByRealm  map[store.RealmID]*idList[store.LinkifierID]
	linkifierMax       store.LinkifierID
	// linkifierVersions is each realm's LinkifiersVersion; a missing realm
	// has version 0.
	linkifierVersions map[store.RealmID]int64

	drafts       map[store.DraftID]*store.Draft
	draftsByUser map[store.UserID]*idList[store.DraftID]
	draftMax     store.DraftID

	emailChanges map[string]*store.EmailChange
	loginKeys    map[string]*store.LoginKey // by hash
	// loginKeyOrder numbers the login keys in the order they were added.
	loginKeyOrder map[string]int64
	loginKeySeq   int64
	secrets       map[string][]byte // server secrets by name

	invites     map[store.InviteID]*store.Invite
	inviteByKey map[string]store.InviteID
	inviteMax   store.InviteID

	webhooks   map[int64]*store.WebhookDelivery
	webhookMax int64

	attachments      map[store.AttachmentID]*store.Attachment
	attachmentByPath map[string]store.AttachmentID
	attachmentMax    store.AttachmentID
	// attachRefs are the attachments each message references, and
	// refsByAttachment the messages referencing each attachment.
	attachRefs       map[store.MessageID]*idList[store.AttachmentID]
	refsByAttachment map[store.AttachmentID]*idList[store.MessageID]

	realmEmoji    map[store.RealmEmojiID]*store.RealmEmoji
	realmEmojiMax store.RealmEmojiID

	flags map[flagKey]store.MessageFlags
	// marks are the read marks: the user has read the recipient's messages
	// up to the id, where no row says otherwise.
	marks       map[markKey]store.MessageID
	flagsByMsg  map[store.MessageID]*idList[store.UserID]
	flagsByUser map[store.UserID]*idList[store.MessageID]

	// log is the event log ascending by id; stored entries are never
	// modified. logMax is the highest id ever appended, prunedThrough the
	// highest pruned.
	log           []loggedEvent
	logMax        int64
	prunedThrough int64
	queues        map[string]*store.EventQueue
	presence      map[store.UserID]*store.Presence
	presenceSeq   map[store.RealmID]int64
	// personal holds users' topic policies, muted users, statuses and
	// alert words (personal.go).
	personal personalData
}

// markKey identifies a read mark.
type markKey struct {
	user      store.UserID
	recipient store.RecipientID
}

// flagKey identifies a flag row.
type flagKey struct {
	user store.UserID
	msg  store.MessageID
}

func newData() data {
	return data{
		realms:             make(map[store.RealmID]*store.Realm),
		userDefaults:       make(map[store.RealmID]*store.Settings),
		realmByString:      make(map[string]store.RealmID),
		users:              make(map[store.UserID]*store.User),
		userByEmail:        make(map[realmKey]store.UserID),
		userByAPIKey:       make(map[string]store.UserID),
		usersByRealm:       make(map[store.RealmID]*idList[store.UserID]),
		edited:             make(map[store.UserID][]string),
		services:           make(map[store.BotServiceID]*store.BotService),
		servicesByBot:      make(map[store.UserID]*idList[store.BotServiceID]),
		groups:             make(map[store.GroupID]*store.Group),
		groupByName:        make(map[realmKey]store.GroupID),
		groupsByRealm:      make(map[store.RealmID]*idList[store.GroupID]),
		groupSettings:      make(map[groupSettingKey]store.GroupSetting),
		defaultStreams:     make(map[defaultStreamKey]bool),
		streams:            make(map[store.StreamID]*store.Stream),
		streamByName:       make(map[realmKey]store.StreamID),
		streamsByRealm:     make(map[store.RealmID]*idList[store.StreamID]),
		recipients:         make(map[store.RecipientID]*recipient),
		directByKey:        make(map[string]store.RecipientID),
		directByUser:       make(map[store.UserID]*idList[store.RecipientID]),
		subs:               make(map[subKey]*store.Subscription),
		subsByStream:       make(map[store.StreamID]*idList[store.UserID]),
		subsByUser:         make(map[store.UserID]*idList[store.StreamID]),
		messages:           make(map[store.MessageID]*store.Message),
		msgByRealm:         make(map[store.RealmID]*idList[store.MessageID]),
		msgByRecipient:     make(map[store.RecipientID]*idList[store.MessageID]),
		msgByStream:        make(map[store.StreamID]*idList[store.MessageID]),
		msgByTopic:         make(map[topicKey]*idList[store.MessageID]),
		msgBySender:        make(map[store.UserID]*idList[store.MessageID]),
		scheduled:          make(map[store.ScheduledMessageID]*store.ScheduledMessage),
		linkifiers:         make(map[store.LinkifierID]*store.Linkifier),
		linkifierByPattern: make(map[realmKey]store.LinkifierID),
		linkifiersByRealm:  make(map[store.RealmID]*idList[store.LinkifierID]),
		linkifierVersions:  make(map[store.RealmID]int64),
		queues:             make(map[string]*store.EventQueue),
		drafts:             make(map[store.DraftID]*store.Draft),
		presence:           make(map[store.UserID]*store.Presence),
		presenceSeq:        make(map[store.RealmID]int64),
		personal:           newPersonalData(),
		draftsByUser:       make(map[store.UserID]*idList[store.DraftID]),
		emailChanges:       make(map[string]*store.EmailChange),
		invites:            make(map[store.InviteID]*store.Invite),
		inviteByKey:        make(map[string]store.InviteID),
		loginKeys:          make(map[string]*store.LoginKey),
		secrets:            make(map[string][]byte),
		loginKeyOrder:      make(map[string]int64),
		webhooks:           make(map[int64]*store.WebhookDelivery),
		attachments:        make(map[store.AttachmentID]*store.Attachment),
		attachmentByPath:   make(map[string]store.AttachmentID),
		attachRefs:         make(map[store.MessageID]*idList[store.AttachmentID]),
		refsByAttachment:   make(map[store.AttachmentID]*idList[store.MessageID]),
		realmEmoji:         make(map[store.RealmEmojiID]*store.RealmEmoji),
		flags:              make(map[flagKey]store.MessageFlags),
		marks:              make(map[markKey]store.MessageID),
		flagsByMsg:         make(map[store.MessageID]*idList[store.UserID]),
		flagsByUser:        make(map[store.UserID]*idList[store.MessageID]),
	}
}
