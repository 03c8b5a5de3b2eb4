package eventqueue

import (
	"encoding/json"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/drafts"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/mutedusers"
)

// RealmEvent is a "realm" event: Op "update" (the realm setting Property
// changed to Value), "update_dict" (Property "default", Data holding the
// changed settings by name; Property "icon", Data holding icon_source and
// icon_url) or "deactivated" (RealmID, the realm its owner deactivated).
type RealmEvent struct {
	Header
	Op       string           `json:"op"`
	Property string           `json:"property,omitempty"`
	RealmID  chatcore.RealmID `json:"realm_id,omitempty"`
	Value    json.RawMessage  `json:"value,omitempty"`
	Data     json.RawMessage  `json:"data,omitempty"`
}

// RealmEmojiEvent is a "realm_emoji" event (Op "update"): the realm's
// custom emoji, all of them, keyed by emoji id, deactivated ones included,
// as the realm_emoji section of POST /register shows them.
type RealmEmojiEvent struct {
	Header
	Op         string                     `json:"op"`
	RealmEmoji map[string]json.RawMessage `json:"realm_emoji"`
}

// DefaultStreamsEvent is a "default_streams" event: the realm's default
// channels, all of them, by id.
type DefaultStreamsEvent struct {
	Header
	DefaultStreams []chatcore.StreamID `json:"default_streams"`
}

// UserGroupEvent is a "user_group" event: Op "add" (Group), "update"
// (GroupID, Data holding the changed fields), "add_members" and
// "remove_members" (GroupID, UserIDs), "add_subgroups" and
// "remove_subgroups" (GroupID, DirectSubgroupIDs).
type UserGroupEvent struct {
	Header
	Op                string             `json:"op"`
	Group             *groups.View       `json:"group,omitempty"`
	GroupID           chatcore.GroupID   `json:"group_id,omitempty"`
	Data              json.RawMessage    `json:"data,omitempty"`
	UserIDs           []chatcore.UserID  `json:"user_ids,omitempty"`
	DirectSubgroupIDs []chatcore.GroupID `json:"direct_subgroup_ids,omitempty"`
}

// UserStatusEvent is a "user_status" event: the parts of UserID's status
// that changed (absent fields did not; EmojiName "" clears the emoji).
type UserStatusEvent struct {
	Header
	UserID       chatcore.UserID `json:"user_id"`
	Away         *bool           `json:"away,omitempty"`
	StatusText   *string         `json:"status_text,omitempty"`
	EmojiName    *string         `json:"emoji_name,omitempty"`
	EmojiCode    *string         `json:"emoji_code,omitempty"`
	ReactionType *string         `json:"reaction_type,omitempty"`
}

// UserTopicEvent is a "user_topic" event: the queue's user's visibility
// policy of a topic (0 inherit, 1 muted, 2 unmuted, 3 followed) and when
// it was set (Unix seconds).
type UserTopicEvent struct {
	Header
	StreamID         chatcore.StreamID `json:"stream_id"`
	TopicName        string            `json:"topic_name"`
	LastUpdated      int64             `json:"last_updated"`
	VisibilityPolicy int               `json:"visibility_policy"`
}

// MutedTopicsEvent is a "muted_topics" event, the legacy form of
// user_topic: the user's muted topics, all of them, each a JSON array
// [channel name, topic, Unix seconds muted].
type MutedTopicsEvent struct {
	Header
	MutedTopics []json.RawMessage `json:"muted_topics"`
}

// MutedUsersEvent is a "muted_users" event: the users the queue's user
// muted, all of them.
type MutedUsersEvent struct {
	Header
	MutedUsers []mutedusers.View `json:"muted_users"`
}

// AlertWordsEvent is an "alert_words" event: the user's alert words, all
// of them.
type AlertWordsEvent struct {
	Header
	AlertWords []string `json:"alert_words"`
}

// DraftsEvent is a "drafts" event: Op "add" (Drafts), "update" (Draft) or
// "remove" (DraftID).
type DraftsEvent struct {
	Header
	Op      string           `json:"op"`
	Drafts  []drafts.View    `json:"drafts,omitempty"`
	Draft   *drafts.View     `json:"draft,omitempty"`
	DraftID chatcore.DraftID `json:"draft_id,omitempty"`
}

// SubmessageEvent is a "submessage" event: a widget's submessage (poll
// vote, to-do item, ...) added to MessageID; Content is the JSON document
// its sender sent, as a string.
type SubmessageEvent struct {
	Header
	MsgType      string             `json:"msg_type"`
	MessageID    chatcore.MessageID `json:"message_id"`
	SubmessageID int64              `json:"submessage_id"`
	SenderID     chatcore.UserID    `json:"sender_id"`
	Content      string             `json:"content"`
}

// AttachmentEvent is an "attachment" event: Op "add" (Attachment the new
// upload as GET /attachments shows it) or "remove" (Attachment holding
// only its id), with the realm's UploadSpaceUsed in bytes after it.
type AttachmentEvent struct {
	Header
	Op              string          `json:"op"`
	Attachment      json.RawMessage `json:"attachment"`
	UploadSpaceUsed int64           `json:"upload_space_used"`
}

// InvitesChangedEvent is an "invites_changed" event: the realm's
// invitations changed; a client showing them fetches GET /invites again.
type InvitesChangedEvent struct {
	Header
}
