package chatcore

import "context"

// Wildcard mentions in large conversations: Zulip lets anyone mention a
// channel's subscribers or a topic's participants at once while they are
// few, and only the realm's can_mention_many_users_group beyond that.

// WildcardMentionThreshold is Zulip's Realm.WILDCARD_MENTION_THRESHOLD: a
// channel wildcard mention in a channel with more active subscribers, or a
// topic wildcard mention in a topic with more participants, needs the
// realm's can_mention_many_users_group.
const WildcardMentionThreshold = 15

// mentionManySetting is the realm setting of who may mention many users,
// with Zulip's default; the setting may be role:everyone, so guests are
// not excluded from it.
const (
	mentionManySetting             = "can_mention_many_users_group"
	mentionManyDefault SystemGroup = GroupAdministrators
)

// ErrStreamWildcardMentionNotAllowed is Zulip's
// StreamWildcardMentionNotAllowedError.
func ErrStreamWildcardMentionNotAllowed() *Error {
	return &Error{Code: "STREAM_WILDCARD_MENTION_NOT_ALLOWED", Kind: KindInvalid,
		Msg: "You do not have permission to use channel wildcard mentions in this channel."}
}

// ErrTopicWildcardMentionNotAllowed is Zulip's
// TopicWildcardMentionNotAllowedError.
func ErrTopicWildcardMentionNotAllowed() *Error {
	return &Error{Code: "TOPIC_WILDCARD_MENTION_NOT_ALLOWED", Kind: KindInvalid,
		Msg: "You do not have permission to use topic wildcard mentions in this topic."}
}

// wildcardParticipants returns the participants of m's topic (in channel
// st) when r mentions the topic with a wildcard, else none.
func wildcardParticipants(ctx context.Context, tx Tx, m *Message, st *Stream, r Rendered) ([]UserID, error) {
	if !r.TopicWildcard || st == nil {
		return nil, nil
	}
	return tx.TopicParticipants(ctx, st.ID, TopicKey(m.Topic))
}

// CheckWildcardMentions refuses a channel message of sender whose
// non-silent wildcard mentions reach more than [WildcardMentionThreshold]
// users (subscribers of the channel, participants of the topic) unless
// sender is in the realm's can_mention_many_users_group, as Zulip's
// stream_wildcard_mention_allowed and topic_wildcard_mention_allowed.
// The realm's groups are read only then. A message's send and its content
// edits ask it.
func CheckWildcardMentions(ctx context.Context, tx Tx, sender *User, st *Stream, subscribers, participants int, r Rendered) error {
	streamMany := r.StreamWildcard && subscribers > WildcardMentionThreshold
	topicMany := r.TopicWildcard && participants > WildcardMentionThreshold
	if st == nil || !streamMany && !topicMany {
		return nil
	}
	p, err := LoadPermissions(ctx, tx, sender.RealmID)
	if err != nil {
		return err
	}
	if p.Allows(sender, SettingOfRealm, int64(sender.RealmID), mentionManySetting, mentionManyDefault) {
		return nil
	}
	if streamMany {
		return ErrStreamWildcardMentionNotAllowed()
	}
	return ErrTopicWildcardMentionNotAllowed()
}
