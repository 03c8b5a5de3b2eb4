package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// Stream implements store.StreamStore.
func (t *tx) Stream(_ context.Context, id store.StreamID) (*store.Stream, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	s, ok := t.d.streams[id]
	if !ok {
		return nil, fmt.Errorf("channel %d: %w", id, store.ErrNotFound)
	}
	return cloneStream(s), nil
}

// StreamByName implements store.StreamStore.
func (t *tx) StreamByName(ctx context.Context, realm store.RealmID, name string) (*store.Stream, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	id, ok := t.d.streamByName[realmKey{realm, store.FoldKey(name)}]
	if !ok {
		return nil, fmt.Errorf("channel %q in realm %d: %w", name, realm, store.ErrNotFound)
	}
	return t.Stream(ctx, id)
}

// Streams implements store.StreamStore.
func (t *tx) Streams(_ context.Context, realm store.RealmID) ([]store.Stream, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.Stream{}
	for id := range t.d.streamsByRealm[realm].all() {
		out = append(out, *t.d.streams[id])
	}
	return out, nil
}

// CreateStream implements store.StreamStore.
func (t *tx) CreateStream(_ context.Context, s *store.Stream) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.streams[s.ID]; ok {
		return fmt.Errorf("channel %d: %w", s.ID, store.ErrConflict)
	}
	name := realmKey{s.RealmID, store.FoldKey(s.Name)}
	if _, ok := t.d.streamByName[name]; ok {
		return fmt.Errorf("channel %q in realm %d: %w", s.Name, s.RealmID, store.ErrConflict)
	}
	if _, ok := t.d.recipients[s.RecipientID]; ok {
		return fmt.Errorf("recipient %d: %w", s.RecipientID, store.ErrConflict)
	}
	if s.ID == 0 {
		s.ID = t.d.streamMax + 1
	}
	if s.RecipientID == 0 {
		s.RecipientID = t.d.recipientMax + 1
	}
	useID(t, &t.d.streamMax, s.ID)
	useID(t, &t.d.recipientMax, s.RecipientID)
	put(t, t.d.streams, s.ID, cloneStream(s))
	put(t, t.d.streamByName, name, s.ID)
	put(t, t.d.recipients, s.RecipientID, &recipient{realm: s.RealmID, stream: s.ID})
	index(t, t.d.streamsByRealm, s.RealmID, s.ID)
	return nil
}

// UpdateStream implements store.StreamStore. The stored RecipientID and
// RealmID are kept: they never change.
func (t *tx) UpdateStream(_ context.Context, s *store.Stream) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.streams[s.ID]
	if !ok {
		return fmt.Errorf("channel %d: %w", s.ID, store.ErrNotFound)
	}
	name := realmKey{old.RealmID, store.FoldKey(s.Name)}
	if other, ok := t.d.streamByName[name]; ok && other != s.ID {
		return fmt.Errorf("channel %q in realm %d: %w", s.Name, old.RealmID, store.ErrConflict)
	}
	c := cloneStream(s)
	c.RealmID, c.RecipientID = old.RealmID, old.RecipientID
	del(t, t.d.streamByName, realmKey{old.RealmID, store.FoldKey(old.Name)})
	put(t, t.d.streamByName, name, s.ID)
	put(t, t.d.streams, s.ID, c)
	return nil
}

// Subscription implements store.StreamStore.
func (t *tx) Subscription(_ context.Context, stream store.StreamID, user store.UserID) (*store.Subscription, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	s, ok := t.d.subs[subKey{stream, user}]
	if !ok {
		return nil, fmt.Errorf("subscription of user %d to channel %d: %w", user, stream, store.ErrNotFound)
	}
	return cloneSub(s), nil
}

// Subscriptions implements store.StreamStore.
func (t *tx) Subscriptions(_ context.Context, stream store.StreamID, user store.UserID) ([]store.Subscription, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.Subscription{}
	switch {
	case stream != 0 && user != 0:
		if s, ok := t.d.subs[subKey{stream, user}]; ok {
			out = append(out, *cloneSub(s))
		}
	case stream != 0:
		for u := range t.d.subsByStream[stream].all() {
			out = append(out, *cloneSub(t.d.subs[subKey{stream, u}]))
		}
	case user != 0:
		for st := range t.d.subsByUser[user].all() {
			out = append(out, *cloneSub(t.d.subs[subKey{st, user}]))
		}
	default:
		var streams idList[store.StreamID]
		for k := range t.d.subs {
			streams.add(k.stream)
		}
		for st := range streams.all() {
			for u := range t.d.subsByStream[st].all() {
				out = append(out, *cloneSub(t.d.subs[subKey{st, u}]))
			}
		}
	}
	return out, nil
}

// PutSubscription implements store.StreamStore.
func (t *tx) PutSubscription(_ context.Context, s store.Subscription) error {
	if err := t.write(); err != nil {
		return err
	}
	put(t, t.d.subs, subKey{s.StreamID, s.UserID}, cloneSub(&s))
	index(t, t.d.subsByStream, s.StreamID, s.UserID)
	index(t, t.d.subsByUser, s.UserID, s.StreamID)
	return nil
}

// DeactivateSubscriptions implements store.StreamStore.
func (t *tx) DeactivateSubscriptions(_ context.Context, user store.UserID) error {
	if err := t.write(); err != nil {
		return err
	}
	for st := range t.d.subsByUser[user].all() {
		k := subKey{st, user}
		if old := t.d.subs[k]; old.Active {
			c := cloneSub(old)
			c.Active = false
			put(t, t.d.subs, k, c)
		}
	}
	return nil
}

// RealmSubscribers implements store.StreamStore.
func (t *tx) RealmSubscribers(_ context.Context, realm store.RealmID) ([]store.Subscriber, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.Subscriber{}
	for st := range t.d.streamsByRealm[realm].all() {
		for u := range t.d.subsByStream[st].all() {
			if s, usr := t.d.subs[subKey{st, u}], t.d.users[u]; s.Active && usr != nil && usr.IsActive {
				out = append(out, store.Subscriber{StreamID: st, UserID: u})
			}
		}
	}
	return out, nil
}

// TopicParticipants implements store.StreamStore.
func (t *tx) TopicParticipants(_ context.Context, stream store.StreamID, key string) ([]store.UserID, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	st := t.d.streams[stream]
	if st == nil {
		return nil, nil
	}
	var out []store.UserID
	for id := range t.d.msgByTopic[topicKey{st.RecipientID, key}].all() {
		m := t.d.messages[id]
		out = append(out, m.SenderID)
		for _, r := range m.Reactions {
			out = append(out, r.UserID)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// StreamTopics implements store.StreamStore.
func (t *tx) StreamTopics(_ context.Context, stream store.StreamID, minID store.MessageID) ([]store.TopicSummary, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	newest := map[string]*store.Message{}
	for id := range t.d.msgByStream[stream].all() {
		m := t.d.messages[id]
		if id < minID {
			continue
		}
		if cur, ok := newest[m.TopicKey]; !ok || cur.ID < id {
			newest[m.TopicKey] = m
		}
	}
	out := make([]store.TopicSummary, 0, len(newest))
	for _, m := range newest {
		out = append(out, store.TopicSummary{Name: m.Topic, MaxID: m.ID})
	}
	slices.SortFunc(out, func(a, b store.TopicSummary) int { return cmp.Compare(b.MaxID, a.MaxID) })
	return out, nil
}
