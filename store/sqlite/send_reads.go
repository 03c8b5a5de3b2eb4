package sqlite

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore/internal/fifocache"
	"github.com/chatcore/chatcore/store"
)

// The reads of a channel message's send that the row cache answers besides
// users, realms, channels and subscribers (see rowCache): the sender's
// subscriptions (is the channel muted), the channel's group settings (may
// the sender post), the topic's policies, who muted the sender, and the
// realm's alert words. Each is one statement of a few rows that changes
// rarely; served from the cache, a send runs none of them. Every answer is
// a copy: the caller may change it.

// streamTopic is a channel's topic by its TopicKey.
type streamTopic struct {
	stream store.StreamID
	key    string
}

// Subscriptions implements [store.StreamStore]; a user's whole list
// (stream 0) may come from the row cache.
func (t *tx) Subscriptions(ctx context.Context, stream store.StreamID, user store.UserID) ([]store.Subscription, error) {
	if stream != 0 || user == 0 {
		return t.Tx.Subscriptions(ctx, stream, user)
	}
	return cachedRead(t, subscriptionsTable, userSubscriptionsMap, user, cloneSubscriptions, func() ([]store.Subscription, error) {
		return t.Tx.Subscriptions(ctx, 0, user)
	})
}

// ChannelGroupSettings implements [store.GroupAdminStore], from the row
// cache when it holds the channel's.
func (t *tx) ChannelGroupSettings(ctx context.Context, stream store.StreamID) ([]store.GroupSetting, error) {
	return cachedRead(t, groupSettingsTable, groupSettingsMap, stream, cloneGroupSettings, func() ([]store.GroupSetting, error) {
		return t.Tx.ChannelGroupSettings(ctx, stream)
	})
}

// TopicUserTopics implements [store.UserTopicStore], from the row cache
// when it holds the topic's.
func (t *tx) TopicUserTopics(ctx context.Context, stream store.StreamID, topicKey string) ([]store.UserTopic, error) {
	return cachedRead(t, userTopicsTable, topicUserTopicsMap, streamTopic{stream, topicKey}, slices.Clone, func() ([]store.UserTopic, error) {
		return t.Tx.TopicUserTopics(ctx, stream, topicKey)
	})
}

// MutersOf implements [store.MutedUserStore], from the row cache when it
// holds the user's.
func (t *tx) MutersOf(ctx context.Context, muted store.UserID) ([]store.UserID, error) {
	return cachedRead(t, mutedUsersTable, mutersMap, muted, slices.Clone, func() ([]store.UserID, error) {
		return t.Tx.MutersOf(ctx, muted)
	})
}

// RealmAlertWords implements [store.AlertWordStore], from the row cache
// when it holds the realm's.
func (t *tx) RealmAlertWords(ctx context.Context, realm store.RealmID) ([]store.AlertWord, error) {
	return cachedRead(t, alertWordsTable, alertWordsMap, realm, slices.Clone, func() ([]store.AlertWord, error) {
		return t.Tx.RealmAlertWords(ctx, realm)
	})
}

// cachedRead returns a copy (made by clone) of the list the row cache holds
// under k in table's map that of selects, or reads it, remembering a copy.
func cachedRead[K comparable, V any](t *tx, table cachedTable, of func(*rowCache) *fifocache.Cache[K, entry[[]V]], k K,
	clone func([]V) []V, read func() ([]V, error)) ([]V, error) {
	if v, ok := lookup(t, table, of, k); ok {
		return clone(v), nil
	}
	v, err := read()
	if err != nil {
		return nil, err
	}
	remember(t, table, of, k, clone(v))
	return v, nil
}

// cloneSubscriptions copies subs with the values of their optional
// settings.
func cloneSubscriptions(subs []store.Subscription) []store.Subscription {
	out := slices.Clone(subs)
	for i := range out {
		p := &out[i].SubscriptionProperties
		for _, b := range []**bool{&p.DesktopNotifications, &p.AudibleNotifications, &p.PushNotifications,
			&p.EmailNotifications, &p.WildcardMentionsNotify} {
			if *b != nil {
				*b = new(**b)
			}
		}
	}
	return out
}

// cloneGroupSettings copies settings with their member and subgroup lists.
func cloneGroupSettings(settings []store.GroupSetting) []store.GroupSetting {
	out := slices.Clone(settings)
	for i := range out {
		out[i].Value.DirectMembers = slices.Clone(out[i].Value.DirectMembers)
		out[i].Value.DirectSubgroups = slices.Clone(out[i].Value.DirectSubgroups)
	}
	return out
}

// The maps of the reads above.
func userSubscriptionsMap(c *rowCache) *fifocache.Cache[store.UserID, entry[[]store.Subscription]] {
	return c.userSubscriptions
}
func groupSettingsMap(c *rowCache) *fifocache.Cache[store.StreamID, entry[[]store.GroupSetting]] {
	return c.groupSettings
}
func topicUserTopicsMap(c *rowCache) *fifocache.Cache[streamTopic, entry[[]store.UserTopic]] {
	return c.topicUserTopics
}
func mutersMap(c *rowCache) *fifocache.Cache[store.UserID, entry[[]store.UserID]] { return c.muters }
func alertWordsMap(c *rowCache) *fifocache.Cache[store.RealmID, entry[[]store.AlertWord]] {
	return c.alertWords
}
