package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore"
)

// Stream implements chatcore.StreamStore.
func (t *tx) Stream(_ context.Context, id chatcore.StreamID) (*chatcore.Stream, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	s, ok := t.d.streams[id]
	if !ok {
		return nil, fmt.Errorf("channel %d: %w", id, chatcore.ErrNotFound)
	}
	return cloneStream(s), nil
}

// StreamByName implements chatcore.StreamStore.
func (t *tx) StreamByName(ctx context.Context, realm chatcore.RealmID, name string) (*chatcore.Stream, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	id, ok := t.d.streamByName[realmKey{realm, chatcore.FoldKey(name)}]
	if !ok {
		return nil, fmt.Errorf("channel %q in realm %d: %w", name, realm, chatcore.ErrNotFound)
	}
	return t.Stream(ctx, id)
}

// Streams implements chatcore.StreamStore.
func (t *tx) Streams(_ context.Context, realm chatcore.RealmID) ([]chatcore.Stream, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []chatcore.Stream{}
	for id := range t.d.streamsByRealm[realm].all() {
		out = append(out, *t.d.streams[id])
	}
	return out, nil
}

// CreateStream implements chatcore.StreamStore.
func (t *tx) CreateStream(_ context.Context, s *chatcore.Stream) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.streams[s.ID]; ok {
		return fmt.Errorf("channel %d: %w", s.ID, chatcore.ErrConflict)
	}
	name := realmKey{s.RealmID, chatcore.FoldKey(s.Name)}
	if _, ok := t.d.streamByName[name]; ok {
		return fmt.Errorf("channel %q in realm %d: %w", s.Name, s.RealmID, chatcore.ErrConflict)
	}
	if _, ok := t.d.recipients[s.RecipientID]; ok {
		return fmt.Errorf("recipient %d: %w", s.RecipientID, chatcore.ErrConflict)
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

// UpdateStream implements chatcore.StreamStore. The stored RecipientID and
// RealmID are kept: they never change.
func (t *tx) UpdateStream(_ context.Context, s *chatcore.Stream) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.streams[s.ID]
	if !ok {
		return fmt.Errorf("channel %d: %w", s.ID, chatcore.ErrNotFound)
	}
	name := realmKey{old.RealmID, chatcore.FoldKey(s.Name)}
	if other, ok := t.d.streamByName[name]; ok && other != s.ID {
		return fmt.Errorf("channel %q in realm %d: %w", s.Name, old.RealmID, chatcore.ErrConflict)
	}
	c := cloneStream(s)
	c.RealmID, c.RecipientID = old.RealmID, old.RecipientID
	del(t, t.d.streamByName, realmKey{old.RealmID, chatcore.FoldKey(old.Name)})
	put(t, t.d.streamByName, name, s.ID)
	put(t, t.d.streams, s.ID, c)
	return nil
}

// Subscription implements chatcore.StreamStore.
func (t *tx) Subscription(_ context.Context, stream chatcore.StreamID, user chatcore.UserID) (*chatcore.Subscription, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	s, ok := t.d.subs[subKey{stream, user}]
	if !ok {
		return nil, fmt.Errorf("subscription of user %d to channel %d: %w", user, stream, chatcore.ErrNotFound)
	}
	return cloneSub(s), nil
}

// Subscriptions implements chatcore.StreamStore.
func (t *tx) Subscriptions(_ context.Context, stream chatcore.StreamID, user chatcore.UserID) ([]chatcore.Subscription, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []chatcore.Subscription{}
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
		var streams idList[chatcore.StreamID]
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

// PutSubscription implements chatcore.StreamStore.
func (t *tx) PutSubscription(_ context.Context, s chatcore.Subscription) error {
	if err := t.write(); err != nil {
		return err
	}
	put(t, t.d.subs, subKey{s.StreamID, s.UserID}, cloneSub(&s))
	index(t, t.d.subsByStream, s.StreamID, s.UserID)
	index(t, t.d.subsByUser, s.UserID, s.StreamID)
	return nil
}

// DeactivateSubscriptions implements chatcore.StreamStore.
func (t *tx) DeactivateSubscriptions(_ context.Context, user chatcore.UserID) error {
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

// ActiveRealmSubscriptions implements chatcore.StreamStore.
func (t *tx) ActiveRealmSubscriptions(_ context.Context, realm chatcore.RealmID) ([]chatcore.Subscription, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []chatcore.Subscription{}
	for st := range t.d.streamsByRealm[realm].all() {
		for u := range t.d.subsByStream[st].all() {
			if s := t.d.subs[subKey{st, u}]; s.Active {
				out = append(out, *cloneSub(s))
			}
		}
	}
	return out, nil
}

// StreamTopics implements chatcore.StreamStore.
func (t *tx) StreamTopics(_ context.Context, stream chatcore.StreamID, minID chatcore.MessageID) ([]chatcore.TopicSummary, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	newest := map[string]*chatcore.Message{}
	for id := range t.d.msgByStream[stream].all() {
		m := t.d.messages[id]
		if id < minID {
			continue
		}
		if cur, ok := newest[m.TopicKey]; !ok || cur.ID < id {
			newest[m.TopicKey] = m
		}
	}
	out := make([]chatcore.TopicSummary, 0, len(newest))
	for _, m := range newest {
		out = append(out, chatcore.TopicSummary{Name: m.Topic, MaxID: m.ID})
	}
	slices.SortFunc(out, func(a, b chatcore.TopicSummary) int { return cmp.Compare(b.MaxID, a.MaxID) })
	return out, nil
}
