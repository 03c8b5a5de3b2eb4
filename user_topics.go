package chatcore

// Users' visibility policies for topics (Zulip's UserTopic): setting them
// with their events, the legacy muted_topics list, and the automatic
// follow and unmute of Zulip's automatically_follow_topics_policy,
// automatically_unmute_topics_in_muted_streams_policy and
// automatically_follow_topics_where_mentioned settings.

import (
	"context"
	"slices"
	"time"

	"github.com/chatcore/chatcore/store"
)

// The values of the automatically_follow_topics_policy and
// automatically_unmute_topics_in_muted_streams_policy settings.
const (
	AutoOnParticipation = 1 // topics the user participates in (sends, reacts)
	AutoOnSend          = 2 // topics the user sends a message to
	AutoOnInitiation    = 3 // topics the user starts
	AutoNever           = 4
)

// SetTopicPolicies sets the visibility policy p of the topic of st for
// every user of users at time now, as Zulip's
// bulk_do_set_user_topic_visibility_policy: each user whose policy changed
// gets a "muted_topics" event with their whole list (unless
// skipMutedTopicsEvent) and a "user_topic" event; users whose policy was
// already p hear nothing. It returns the users whose policy changed.
func SetTopicPolicies(ctx context.Context, tx Tx, fx *Effects, users []UserID, st *Stream, topic string, p store.VisibilityPolicy, now time.Time, skipMutedTopicsEvent bool) ([]UserID, error) {
	var changed []UserID
	for _, u := range users {
		row := store.UserTopic{UserID: u, StreamID: st.ID, Topic: topic, Policy: p, LastUpdated: now}
		ok, err := tx.SetUserTopic(ctx, &row)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		changed = append(changed, u)
		if !skipMutedTopicsEvent {
			list, err := MutedTopics(ctx, tx, u)
			if err != nil {
				return nil, err
			}
			fx.Event(st.RealmID, []UserID{u}, map[string]any{"type": "muted_topics", "muted_topics": list})
		}
		fx.Event(st.RealmID, []UserID{u}, map[string]any{
			"type": "user_topic", "stream_id": st.ID, "topic_name": topic,
			"last_updated": now.Unix(), "visibility_policy": int(p),
		})
	}
	return changed, nil
}

// UserTopicView is one entry of the user_topic section of POST /register.
type UserTopicView struct {
	StreamID         StreamID `json:"stream_id"`
	TopicName        string   `json:"topic_name"`
	LastUpdated      int64    `json:"last_updated"`
	VisibilityPolicy int      `json:"visibility_policy"`
}

// UserTopicViews returns the user's topic policies as the user_topic
// section lists them (Zulip's get_user_topics: the rows of channels that
// are not archived), ordered by channel and topic.
func UserTopicViews(ctx context.Context, tx Tx, user UserID, streams map[StreamID]*Stream) ([]UserTopicView, error) {
	rows, err := tx.UserTopics(ctx, user)
	if err != nil {
		return nil, err
	}
	out := []UserTopicView{}
	for _, r := range rows {
		if st := streams[r.StreamID]; st == nil || st.IsArchived {
			continue
		}
		out = append(out, UserTopicView{StreamID: r.StreamID, TopicName: r.Topic, LastUpdated: r.LastUpdated.Unix(), VisibilityPolicy: int(r.Policy)})
	}
	return out, nil
}

// MutedTopics returns the user's muted topics in Zulip's legacy
// muted_topics form: [channel name, topic, last updated (unix seconds)],
// for channels that are not archived.
func MutedTopics(ctx context.Context, tx Tx, user UserID) ([][]any, error) {
	rows, err := tx.UserTopics(ctx, user)
	if err != nil {
		return nil, err
	}
	out := [][]any{}
	var streams map[StreamID]*Stream
	for _, r := range rows {
		if r.Policy != store.PolicyMuted {
			continue
		}
		if streams == nil {
			streams = map[StreamID]*Stream{}
		}
		st, ok := streams[r.StreamID]
		if !ok {
			if st, err = tx.Stream(ctx, r.StreamID); err != nil {
				return nil, err
			}
			streams[r.StreamID] = st
		}
		if st.IsArchived {
			continue
		}
		out = append(out, []any{st.Name, r.Topic, r.LastUpdated.Unix()})
	}
	return out, nil
}

// TopicPolicyMap indexes a user's topic rows by channel and TopicKey.
type TopicPolicyMap map[StreamID]map[string]store.VisibilityPolicy

// TopicPolicies reads the user's topic policies into a TopicPolicyMap.
func TopicPolicies(ctx context.Context, tx Tx, user UserID) (TopicPolicyMap, error) {
	rows, err := tx.UserTopics(ctx, user)
	if err != nil {
		return nil, err
	}
	out := TopicPolicyMap{}
	for _, r := range rows {
		if out[r.StreamID] == nil {
			out[r.StreamID] = map[string]store.VisibilityPolicy{}
		}
		out[r.StreamID][r.TopicKey] = r.Policy
	}
	return out, nil
}

// Policy returns the policy of the topic (by its name) of the channel.
func (m TopicPolicyMap) Policy(stream StreamID, topic string) store.VisibilityPolicy {
	byKey := m[stream]
	if len(byKey) == 0 {
		return store.PolicyInherit // no key to compute
	}
	return byKey[TopicKey(topic)]
}

// Muted reports whether a message of the topic of the channel is muted for
// the user, as Zulip's is_row_muted: in a topic they muted, or in a
// channel they muted (channelMuted) unless they unmuted or followed the
// topic.
func (m TopicPolicyMap) Muted(stream StreamID, topic string, channelMuted bool) bool {
	switch m.Policy(stream, topic) {
	case store.PolicyMuted:
		return true
	case store.PolicyUnmuted, store.PolicyFollowed:
		return false
	}
	return channelMuted
}

// autoPolicy is Zulip's visibility_policy_for_send_message (and, with
// initiation nil and send false, visibility_policy_for_participation):
// the policy the settings of u give the topic when u acts in it, or
// PolicyInherit when they give none above cur. mutedChannel tells whether
// u muted the channel; it and initiation are asked only when the settings
// need them.
func autoPolicy(u *User, mutedChannel func() (bool, error), cur store.VisibilityPolicy, send bool, initiation func() (bool, error)) (store.VisibilityPolicy, error) {
	if cur == store.PolicyFollowed {
		return store.PolicyInherit, nil
	}
	follow, unmute := u.Settings.AutomaticallyFollowTopicsPolicy, u.Settings.AutomaticallyUnmuteTopicsInMutedStreamsPolicy
	acts := func(setting int) bool { return setting == AutoOnParticipation || send && setting == AutoOnSend }
	if acts(follow) {
		return store.PolicyFollowed, nil
	}
	channelMuted := false
	if acts(unmute) || initiation != nil && unmute == AutoOnInitiation {
		var err error
		if channelMuted, err = mutedChannel(); err != nil {
			return store.PolicyInherit, err
		}
	}
	var p store.VisibilityPolicy
	if channelMuted && acts(unmute) {
		p = store.PolicyUnmuted
	}
	if cur != store.PolicyInherit || initiation == nil {
		if p == cur {
			return store.PolicyInherit, nil
		}
		return p, nil
	}
	if follow != AutoOnInitiation && !(channelMuted && unmute == AutoOnInitiation) {
		return p, nil
	}
	first, err := initiation()
	if err != nil || !first {
		return p, err
	}
	if follow == AutoOnInitiation {
		return store.PolicyFollowed, nil
	}
	return store.PolicyUnmuted, nil
}

// channelMutedFor returns whether u has an active subscription to st that
// they muted, read when asked: from u's subscriptions, which a send
// announces (see announceSend).
func channelMutedFor(ctx context.Context, tx Tx, st *Stream, u UserID) func() (bool, error) {
	return func() (bool, error) {
		subs, err := tx.Subscriptions(ctx, 0, u)
		if err != nil {
			return false, err
		}
		i := slices.IndexFunc(subs, func(s Subscription) bool { return s.StreamID == st.ID })
		return i >= 0 && subs[i].Active && subs[i].IsMuted, nil
	}
}

// followAtSend applies the automatic policies of a send of m to st, as
// Zulip's do_send_messages: the sender's (not a bot's) policy for the
// topic rises as their settings say, and the mentioned receivers with
// automatically_follow_topics_where_mentioned follow it unless they muted
// or follow it already.
func (s *Service) followAtSend(ctx context.Context, tx Tx, fx *Effects, sender *User, st *Stream, m *Message, mentioned []UserID, receivers func(UserID) bool) error {
	rows, err := tx.TopicUserTopics(ctx, st.ID, TopicKey(m.Topic))
	if err != nil {
		return err
	}
	cur := func(u UserID) store.VisibilityPolicy {
		i := slices.IndexFunc(rows, func(r store.UserTopic) bool { return r.UserID == u })
		if i < 0 {
			return store.PolicyInherit
		}
		return rows[i].Policy
	}
	now := s.Now().UTC()
	if !sender.IsBot && sender.RealmID == st.RealmID {
		p, err := autoPolicy(sender, channelMutedFor(ctx, tx, st, sender.ID), cur(sender.ID), true, func() (bool, error) {
			older, err := tx.MessageIDs(ctx, MessageQuery{RealmID: st.RealmID, Recipients: []RecipientID{st.RecipientID},
				StreamID: st.ID, TopicKey: new(TopicKey(m.Topic)), BeforeID: m.ID, Limit: 1, FlagUser: historyReader(sender, st)})
			return len(older) == 0, err
		})
		if err != nil {
			return err
		}
		if p != store.PolicyInherit {
			if _, err := SetTopicPolicies(ctx, tx, fx, []UserID{sender.ID}, st, m.Topic, p, now, false); err != nil {
				return err
			}
		}
	}
	var candidates []UserID
	for _, u := range mentioned {
		if u != sender.ID && receivers(u) && cur(u) != store.PolicyMuted && cur(u) != store.PolicyFollowed {
			candidates = append(candidates, u)
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	active := true
	users, err := tx.Users(ctx, UserFilter{RealmID: st.RealmID, IDs: candidates, Active: &active})
	if err != nil {
		return err
	}
	var follow []UserID
	for _, u := range users {
		if !u.IsBot && u.Settings.AutomaticallyFollowTopicsWhereMentioned {
			follow = append(follow, u.ID)
		}
	}
	_, err = SetTopicPolicies(ctx, tx, fx, follow, st, m.Topic, store.PolicyFollowed, now, false)
	return err
}

// historyReader returns 0 when u may read the history of st (every
// message of the channel counts for having started a topic), else u's id:
// only the messages u received count, as Zulip reads them.
func historyReader(u *User, st *Stream) UserID {
	if st.HistoryPublicToSubscribers && (!st.InviteOnly || u.Role != RoleGuest) {
		return 0
	}
	return u.ID
}

// FollowOnParticipation applies the automatic policies of u's
// participation (a reaction) in the topic of channel message m, as Zulip's
// visibility_policy_for_participation: follow or unmute when u's settings
// say so for participation. Bots and direct messages are left alone.
func FollowOnParticipation(ctx context.Context, tx Tx, fx *Effects, now time.Time, u *User, m *Message) error {
	if m.Type != MessageTypeStream || u.IsBot || u.RealmID != m.RealmID {
		return nil
	}
	follow, unmute := u.Settings.AutomaticallyFollowTopicsPolicy, u.Settings.AutomaticallyUnmuteTopicsInMutedStreamsPolicy
	if follow != AutoOnParticipation && unmute != AutoOnParticipation {
		return nil // nothing to read: the settings never act on participation
	}
	st, err := tx.Stream(ctx, m.StreamID)
	if err != nil {
		return err
	}
	rows, err := tx.TopicUserTopics(ctx, st.ID, m.TopicKey)
	if err != nil {
		return err
	}
	cur := store.PolicyInherit
	if i := slices.IndexFunc(rows, func(r store.UserTopic) bool { return r.UserID == u.ID }); i >= 0 {
		cur = rows[i].Policy
	}
	p, err := autoPolicy(u, channelMutedFor(ctx, tx, st, u.ID), cur, false, nil)
	if err != nil || p == store.PolicyInherit || p == cur {
		return err
	}
	_, err = SetTopicPolicies(ctx, tx, fx, []UserID{u.ID}, st, m.Topic, p, now.UTC(), false)
	return err
}
