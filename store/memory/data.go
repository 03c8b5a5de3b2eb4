package memory

import "github.com/chatcore/chatcore"

// realmKey is a name scoped to a realm: a folded e-mail, channel name, group
// name or linkifier pattern.
type realmKey struct {
	realm chatcore.RealmID
	key   string
}

// subKey identifies a subscription.
type subKey struct {
	stream chatcore.StreamID
	user   chatcore.UserID
}

// topicKey identifies a topic by its channel's recipient and its folded name.
type topicKey struct {
	recipient chatcore.RecipientID
	key       string
}

// recipient is a channel's or a direct conversation's recipient row.
type recipient struct {
	realm   chatcore.RealmID
	stream  chatcore.StreamID // zero for direct conversations
	members []chatcore.UserID // sorted; direct conversations only
}

// data holds every table and index. Stored values are never modified in place:
// a write stores a fresh copy, so the undo log restores old pointers.
type data struct {
	realms        map[chatcore.RealmID]*chatcore.Realm
	realmByString map[string]chatcore.RealmID
	realmMax      chatcore.RealmID

	users        map[chatcore.UserID]*chatcore.User
	userByEmail  map[realmKey]chatcore.UserID
	userByAPIKey map[string]chatcore.UserID
	usersByRealm map[chatcore.RealmID]*idList[chatcore.UserID]
	userMax      chatcore.UserID
	edited       map[chatcore.UserID][]string // sorted setting names

	services      map[chatcore.BotServiceID]*chatcore.BotService
	servicesByBot map[chatcore.UserID]*idList[chatcore.BotServiceID]
	serviceMax    chatcore.BotServiceID

	groups        map[chatcore.GroupID]*chatcore.Group
	groupByName   map[realmKey]chatcore.GroupID
	groupsByRealm map[chatcore.RealmID]*idList[chatcore.GroupID]
	groupMax      chatcore.GroupID

	streams        map[chatcore.StreamID]*chatcore.Stream
	streamByName   map[realmKey]chatcore.StreamID
	streamsByRealm map[chatcore.RealmID]*idList[chatcore.StreamID]
	streamMax      chatcore.StreamID

	recipients   map[chatcore.RecipientID]*recipient
	directByKey  map[string]chatcore.RecipientID
	directByUser map[chatcore.UserID]*idList[chatcore.RecipientID]
	recipientMax chatcore.RecipientID

	subs         map[subKey]*chatcore.Subscription
	subsByStream map[chatcore.StreamID]*idList[chatcore.UserID]
	subsByUser   map[chatcore.UserID]*idList[chatcore.StreamID]

	messages       map[chatcore.MessageID]*chatcore.Message
	msgByRealm     map[chatcore.RealmID]*idList[chatcore.MessageID]
	msgByRecipient map[chatcore.RecipientID]*idList[chatcore.MessageID]
	msgByStream    map[chatcore.StreamID]*idList[chatcore.MessageID]
	msgByTopic     map[topicKey]*idList[chatcore.MessageID]
	msgBySender    map[chatcore.UserID]*idList[chatcore.MessageID]
	messageMax     chatcore.MessageID
	submessageMax  int64

	scheduled    map[chatcore.ScheduledMessageID]*chatcore.ScheduledMessage
	scheduledMax chatcore.ScheduledMessageID

	linkifiers         map[chatcore.LinkifierID]*chatcore.Linkifier
	linkifierByPattern map[realmKey]chatcore.LinkifierID
	linkifiersByRealm  map[chatcore.RealmID]*idList[chatcore.LinkifierID]
	linkifierMax       chatcore.LinkifierID
	// linkifierVersions is each realm's LinkifiersVersion; a missing realm
	// has version 0.
	linkifierVersions map[chatcore.RealmID]int64

	drafts       map[chatcore.DraftID]*chatcore.Draft
	draftsByUser map[chatcore.UserID]*idList[chatcore.DraftID]
	draftMax     chatcore.DraftID

	emailChanges map[string]*chatcore.EmailChange

	flags       map[flagKey]chatcore.MessageFlags
	flagsByMsg  map[chatcore.MessageID]*idList[chatcore.UserID]
	flagsByUser map[chatcore.UserID]*idList[chatcore.MessageID]

	// log is the event log ascending by id; stored entries are never
	// modified. logMax is the highest id ever appended, prunedThrough the
	// highest pruned.
	log           []loggedEvent
	logMax        int64
	prunedThrough int64
	queues        map[string]*chatcore.EventQueue
	presence      map[chatcore.UserID]*chatcore.Presence
	presenceSeq   map[chatcore.RealmID]int64
}

// flagKey identifies a flag row.
type flagKey struct {
	user chatcore.UserID
	msg  chatcore.MessageID
}

func newData() data {
	return data{
		realms:             make(map[chatcore.RealmID]*chatcore.Realm),
		realmByString:      make(map[string]chatcore.RealmID),
		users:              make(map[chatcore.UserID]*chatcore.User),
		userByEmail:        make(map[realmKey]chatcore.UserID),
		userByAPIKey:       make(map[string]chatcore.UserID),
		usersByRealm:       make(map[chatcore.RealmID]*idList[chatcore.UserID]),
		edited:             make(map[chatcore.UserID][]string),
		services:           make(map[chatcore.BotServiceID]*chatcore.BotService),
		servicesByBot:      make(map[chatcore.UserID]*idList[chatcore.BotServiceID]),
		groups:             make(map[chatcore.GroupID]*chatcore.Group),
		groupByName:        make(map[realmKey]chatcore.GroupID),
		groupsByRealm:      make(map[chatcore.RealmID]*idList[chatcore.GroupID]),
		streams:            make(map[chatcore.StreamID]*chatcore.Stream),
		streamByName:       make(map[realmKey]chatcore.StreamID),
		streamsByRealm:     make(map[chatcore.RealmID]*idList[chatcore.StreamID]),
		recipients:         make(map[chatcore.RecipientID]*recipient),
		directByKey:        make(map[string]chatcore.RecipientID),
		directByUser:       make(map[chatcore.UserID]*idList[chatcore.RecipientID]),
		subs:               make(map[subKey]*chatcore.Subscription),
		subsByStream:       make(map[chatcore.StreamID]*idList[chatcore.UserID]),
		subsByUser:         make(map[chatcore.UserID]*idList[chatcore.StreamID]),
		messages:           make(map[chatcore.MessageID]*chatcore.Message),
		msgByRealm:         make(map[chatcore.RealmID]*idList[chatcore.MessageID]),
		msgByRecipient:     make(map[chatcore.RecipientID]*idList[chatcore.MessageID]),
		msgByStream:        make(map[chatcore.StreamID]*idList[chatcore.MessageID]),
		msgByTopic:         make(map[topicKey]*idList[chatcore.MessageID]),
		msgBySender:        make(map[chatcore.UserID]*idList[chatcore.MessageID]),
		scheduled:          make(map[chatcore.ScheduledMessageID]*chatcore.ScheduledMessage),
		linkifiers:         make(map[chatcore.LinkifierID]*chatcore.Linkifier),
		linkifierByPattern: make(map[realmKey]chatcore.LinkifierID),
		linkifiersByRealm:  make(map[chatcore.RealmID]*idList[chatcore.LinkifierID]),
		linkifierVersions:  make(map[chatcore.RealmID]int64),
		queues:             make(map[string]*chatcore.EventQueue),
		drafts:             make(map[chatcore.DraftID]*chatcore.Draft),
		presence:           make(map[chatcore.UserID]*chatcore.Presence),
		presenceSeq:        make(map[chatcore.RealmID]int64),
		draftsByUser:       make(map[chatcore.UserID]*idList[chatcore.DraftID]),
		emailChanges:       make(map[string]*chatcore.EmailChange),
		flags:              make(map[flagKey]chatcore.MessageFlags),
		flagsByMsg:         make(map[chatcore.MessageID]*idList[chatcore.UserID]),
		flagsByUser:        make(map[chatcore.UserID]*idList[chatcore.MessageID]),
	}
}
