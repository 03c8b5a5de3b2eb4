package memory

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// userTopicKey identifies a user's topic row.
type userTopicKey struct {
	user   store.UserID
	stream store.StreamID
	key    string
}

// mutePair identifies a muted user row.
type mutePair struct{ user, muted store.UserID }

// personalData holds users' own settings beyond the user row: their topic
// policies, muted users, statuses and alert words. Stored values are never
// modified in place.
type personalData struct {
	userTopics map[userTopicKey]*store.UserTopic
	mutes      map[mutePair]*store.MutedUser
	statuses   map[store.UserID]*store.UserStatus
	// alertWords are each user's words in the order added.
	alertWords map[store.UserID][]string
}

func newPersonalData() personalData {
	return personalData{
		userTopics: make(map[userTopicKey]*store.UserTopic),
		mutes:      make(map[mutePair]*store.MutedUser),
		statuses:   make(map[store.UserID]*store.UserStatus),
		alertWords: make(map[store.UserID][]string),
	}
}

// UserTopics implements store.UserTopicStore.
func (t *tx) UserTopics(_ context.Context, user store.UserID) ([]store.UserTopic, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.UserTopic{}
	for k, v := range t.d.personal.userTopics {
		if k.user == user {
			out = append(out, *v)
		}
	}
	slices.SortFunc(out, func(a, b store.UserTopic) int {
		return cmp.Or(cmp.Compare(a.StreamID, b.StreamID), strings.Compare(a.TopicKey, b.TopicKey))
	})
	return out, nil
}

// TopicUserTopics implements store.UserTopicStore.
func (t *tx) TopicUserTopics(_ context.Context, stream store.StreamID, topicKey string) ([]store.UserTopic, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.UserTopic{}
	for k, v := range t.d.personal.userTopics {
		if k.stream == stream && k.key == topicKey {
			out = append(out, *v)
		}
	}
	slices.SortFunc(out, func(a, b store.UserTopic) int { return cmp.Compare(a.UserID, b.UserID) })
	return out, nil
}

// SetUserTopic implements store.UserTopicStore.
func (t *tx) SetUserTopic(_ context.Context, ut *store.UserTopic) (bool, error) {
	if err := t.write(); err != nil {
		return false, err
	}
	ut.TopicKey = store.TopicKey(ut.Topic)
	k := userTopicKey{ut.UserID, ut.StreamID, ut.TopicKey}
	cur := store.PolicyInherit
	if old, ok := t.d.personal.userTopics[k]; ok {
		cur = old.Policy
	}
	if cur == ut.Policy {
		return false, nil
	}
	if ut.Policy == store.PolicyInherit {
		del(t, t.d.personal.userTopics, k)
		return true, nil
	}
	if _, ok := t.d.users[ut.UserID]; !ok {
		return false, fmt.Errorf("user topic: user %d: %w", ut.UserID, store.ErrNotFound)
	}
	if _, ok := t.d.streams[ut.StreamID]; !ok {
		return false, fmt.Errorf("user topic: channel %d: %w", ut.StreamID, store.ErrNotFound)
	}
	row := *ut
	row.LastUpdated = row.LastUpdated.UTC()
	put(t, t.d.personal.userTopics, k, &row)
	return true, nil
}

// topicPolicy returns the user's policy for the topic of channel message m.
func (t *tx) topicPolicy(user store.UserID, m *store.Message) store.VisibilityPolicy {
	if ut, ok := t.d.personal.userTopics[userTopicKey{user, m.StreamID, m.TopicKey}]; ok {
		return ut.Policy
	}
	return store.PolicyInherit
}

// matchTopicFilter checks every condition of q.TopicFilter for q.TopicUser
// on m.
func (t *tx) matchTopicFilter(m *store.Message, q *store.MessageQuery) bool {
	f := q.TopicFilter
	if q.TopicUser == 0 || f == store.TopicsAll {
		return true
	}
	if m.Type != store.MessageTypeStream {
		return !f.OnlyChannels()
	}
	p := t.topicPolicy(q.TopicUser, m)
	sub := t.d.subs[subKey{m.StreamID, q.TopicUser}]
	channelMuted := sub != nil && sub.Active && sub.IsMuted
	muted := p == store.PolicyMuted || channelMuted && p != store.PolicyUnmuted && p != store.PolicyFollowed
	return (f&store.TopicsInHome == 0 || !muted) &&
		(f&store.TopicsInHomeOfChannel == 0 || p != store.PolicyMuted) &&
		(f&store.TopicsMuted == 0 || muted) &&
		(f&store.TopicsFollowed == 0 || p == store.PolicyFollowed)
}

// MutedUsers implements store.MutedUserStore.
func (t *tx) MutedUsers(_ context.Context, user store.UserID) ([]store.MutedUser, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.MutedUser{}
	for k, v := range t.d.personal.mutes {
		if k.user == user {
			out = append(out, *v)
		}
	}
	slices.SortFunc(out, func(a, b store.MutedUser) int { return cmp.Compare(a.MutedUserID, b.MutedUserID) })
	return out, nil
}

// MutersOf implements store.MutedUserStore.
func (t *tx) MutersOf(_ context.Context, muted store.UserID) ([]store.UserID, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.UserID
	for k := range t.d.personal.mutes {
		if k.muted == muted {
			out = append(out, k.user)
		}
	}
	slices.Sort(out)
	return out, nil
}

// AddMutedUser implements store.MutedUserStore.
func (t *tx) AddMutedUser(_ context.Context, m store.MutedUser) error {
	if err := t.write(); err != nil {
		return err
	}
	for _, id := range []store.UserID{m.UserID, m.MutedUserID} {
		if _, ok := t.d.users[id]; !ok {
			return fmt.Errorf("mute user: user %d: %w", id, store.ErrNotFound)
		}
	}
	k := mutePair{m.UserID, m.MutedUserID}
	if _, ok := t.d.personal.mutes[k]; ok {
		return fmt.Errorf("mute user %d: %w", m.MutedUserID, store.ErrConflict)
	}
	m.DateMuted = m.DateMuted.UTC()
	put(t, t.d.personal.mutes, k, &m)
	return nil
}

// RemoveMutedUser implements store.MutedUserStore.
func (t *tx) RemoveMutedUser(_ context.Context, user, muted store.UserID) error {
	if err := t.write(); err != nil {
		return err
	}
	k := mutePair{user, muted}
	if _, ok := t.d.personal.mutes[k]; !ok {
		return fmt.Errorf("unmute user %d: %w", muted, store.ErrNotFound)
	}
	del(t, t.d.personal.mutes, k)
	return nil
}

// UserStatus implements store.UserStatusStore.
func (t *tx) UserStatus(_ context.Context, user store.UserID) (*store.UserStatus, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	s, ok := t.d.personal.statuses[user]
	if !ok {
		return nil, fmt.Errorf("user status %d: %w", user, store.ErrNotFound)
	}
	c := *s
	return &c, nil
}

// UserStatuses implements store.UserStatusStore.
func (t *tx) UserStatuses(_ context.Context, realm store.RealmID) ([]store.UserStatus, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.UserStatus{}
	for _, id := range slices.Sorted(maps.Keys(t.d.personal.statuses)) {
		if s := t.d.personal.statuses[id]; s.RealmID == realm {
			out = append(out, *s)
		}
	}
	return out, nil
}

// PutUserStatus implements store.UserStatusStore.
func (t *tx) PutUserStatus(_ context.Context, s store.UserStatus) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.users[s.UserID]; !ok {
		return fmt.Errorf("user status: user %d: %w", s.UserID, store.ErrNotFound)
	}
	s.Updated = s.Updated.UTC()
	put(t, t.d.personal.statuses, s.UserID, &s)
	return nil
}

// AlertWords implements store.AlertWordStore.
func (t *tx) AlertWords(_ context.Context, user store.UserID) ([]string, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	return append([]string{}, t.d.personal.alertWords[user]...), nil
}

// RealmAlertWords implements store.AlertWordStore.
func (t *tx) RealmAlertWords(_ context.Context, realm store.RealmID) ([]store.AlertWord, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.AlertWord
	for _, id := range slices.Sorted(maps.Keys(t.d.personal.alertWords)) {
		if u, ok := t.d.users[id]; !ok || u.RealmID != realm {
			continue
		}
		for _, w := range t.d.personal.alertWords[id] {
			out = append(out, store.AlertWord{UserID: id, Word: w})
		}
	}
	return out, nil
}

// AddAlertWords implements store.AlertWordStore.
func (t *tx) AddAlertWords(_ context.Context, _ store.RealmID, user store.UserID, words []string) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.users[user]; !ok {
		return fmt.Errorf("alert words: user %d: %w", user, store.ErrNotFound)
	}
	cur := append([]string{}, t.d.personal.alertWords[user]...)
	keys := make([]string, len(cur))
	for i, c := range cur {
		keys[i] = strings.ToLower(c) // the SQL stores' word_key
	}
	for _, w := range words {
		if k := strings.ToLower(w); !slices.Contains(keys, k) {
			cur, keys = append(cur, w), append(keys, k)
		}
	}
	put(t, t.d.personal.alertWords, user, cur)
	return nil
}

// RemoveAlertWords implements store.AlertWordStore.
func (t *tx) RemoveAlertWords(_ context.Context, user store.UserID, words []string) error {
	if err := t.write(); err != nil {
		return err
	}
	keys := make([]string, len(words))
	for i, w := range words {
		keys[i] = strings.ToLower(w)
	}
	cur := slices.DeleteFunc(append([]string{}, t.d.personal.alertWords[user]...), func(c string) bool {
		return slices.Contains(keys, strings.ToLower(c))
	})
	if len(cur) == 0 {
		del(t, t.d.personal.alertWords, user)
		return nil
	}
	put(t, t.d.personal.alertWords, user, cur)
	return nil
}
