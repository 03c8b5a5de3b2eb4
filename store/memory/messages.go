package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// Message implements store.MessageStore.
func (t *tx) Message(_ context.Context, id store.MessageID) (*store.Message, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	m, ok := t.d.messages[id]
	if !ok {
		return nil, fmt.Errorf("message %d: %w", id, store.ErrNotFound)
	}
	return cloneMessage(m), nil
}

// Messages implements store.MessageStore.
func (t *tx) Messages(ctx context.Context, q store.MessageQuery) ([]store.Message, error) {
	ids, err := t.MessageIDs(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]store.Message, len(ids))
	for i, id := range ids {
		out[i] = copyMessage(t.d.messages[id])
	}
	return out, nil
}

// MessageIDs implements store.MessageStore.
func (t *tx) MessageIDs(_ context.Context, q store.MessageQuery) ([]store.MessageID, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	// Pick candidate lists from the indexes; match re-checks every condition.
	var lists []*idList[store.MessageID]
	switch {
	case q.IDs != nil:
		// The ids themselves are the candidates: match checks the rest.
		ids := slices.DeleteFunc(slices.Compact(slices.Sorted(slices.Values(q.IDs))), func(id store.MessageID) bool {
			_, ok := t.d.messages[id]
			return !ok
		})
		lists = append(lists, &idList[store.MessageID]{ids: ids})
	case q.Recipients == nil:
		lists = append(lists, t.d.msgByRealm[q.RealmID])
	case q.TopicKey != nil:
		for _, r := range slices.Compact(slices.Sorted(slices.Values(q.Recipients))) {
			lists = append(lists, t.d.msgByTopic[topicKey{r, *q.TopicKey}])
		}
	default:
		for _, r := range slices.Compact(slices.Sorted(slices.Values(q.Recipients))) {
			lists = append(lists, t.d.msgByRecipient[r])
		}
	}
	match := func(m *store.Message) bool {
		return m.RealmID == q.RealmID &&
			(q.Recipients == nil || slices.Contains(q.Recipients, m.RecipientID)) &&
			(q.TopicKey == nil || m.Type == store.MessageTypeStream && m.TopicKey == *q.TopicKey) &&
			(q.StreamID == 0 || m.Type == store.MessageTypeStream && m.StreamID == q.StreamID) &&
			(q.SenderID == 0 || m.SenderID == q.SenderID) && m.Has&q.Has == q.Has &&
			(!q.HasReaction || len(m.Reactions) > 0) &&
			(q.TopicPrefix == "" || m.Type == store.MessageTypeStream && strings.HasPrefix(m.Topic, q.TopicPrefix)) &&
			t.matchFlags(m, &q) && t.matchTopicFilter(m, &q) && matchNarrow(m, &q.NarrowConds)
	}
	var ids []store.MessageID
	for _, l := range lists {
		n := 0
		for id := range l.between(q.AfterID, q.BeforeID, q.Newest) {
			if q.Limit > 0 && n == q.Limit {
				break
			}
			if match(t.d.messages[id]) {
				ids = append(ids, id)
				n++
			}
		}
	}
	slices.Sort(ids)
	if q.Newest {
		slices.Reverse(ids)
	}
	if q.Limit > 0 && len(ids) > q.Limit {
		ids = ids[:q.Limit]
	}
	return ids, nil
}

// CreateMessage implements store.MessageStore. It also fills in the
// MessageID of m's submessages and the ID of those whose ID is zero.
func (t *tx) CreateMessage(_ context.Context, m *store.Message) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.messages[m.ID]; ok {
		return fmt.Errorf("message %d: %w", m.ID, store.ErrConflict)
	}
	if m.ID == 0 {
		m.ID = t.d.messageMax + 1
	}
	useID(t, &t.d.messageMax, m.ID)
	m.TopicKey = store.TopicKey(m.Topic)
	for i := range m.Submessages {
		sm := &m.Submessages[i]
		if sm.ID == 0 {
			sm.ID = t.d.submessageMax + 1
		}
		useID(t, &t.d.submessageMax, sm.ID)
		sm.MessageID = m.ID
	}
	put(t, t.d.messages, m.ID, cloneMessage(m))
	index(t, t.d.msgByRealm, m.RealmID, m.ID)
	index(t, t.d.msgByRecipient, m.RecipientID, m.ID)
	index(t, t.d.msgBySender, m.SenderID, m.ID)
	if m.Type == store.MessageTypeStream {
		index(t, t.d.msgByStream, m.StreamID, m.ID)
		index(t, t.d.msgByTopic, topicKey{m.RecipientID, m.TopicKey}, m.ID)
	}
	return nil
}

// DeleteMessages implements store.MessageStore. Reactions, edit history and
// submessages live inside the message, so removing it removes them.
func (t *tx) DeleteMessages(_ context.Context, f store.MessageFilter, limit int) ([]store.DeletedMessage, error) {
	if err := t.write(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, errors.New("memory: DeleteMessages: limit must be positive")
	}
	// The narrowest index gives the candidates; match re-checks everything.
	l := t.d.msgByRealm[f.RealmID]
	switch {
	case f.StreamID != 0 && f.TopicKey != nil:
		if st, ok := t.d.streams[f.StreamID]; ok {
			l = t.d.msgByTopic[topicKey{st.RecipientID, *f.TopicKey}]
		} else {
			l = t.d.msgByStream[f.StreamID]
		}
	case f.StreamID != 0:
		l = t.d.msgByStream[f.StreamID]
	case f.SenderID != 0:
		l = t.d.msgBySender[f.SenderID]
	}
	if f.IDs != nil {
		ids := slices.DeleteFunc(slices.Compact(slices.Sorted(slices.Values(f.IDs))), func(id store.MessageID) bool {
			_, ok := t.d.messages[id]
			return !ok
		})
		l = &idList[store.MessageID]{ids: ids}
	}
	var after store.MessageID
	if f.MinID > 0 {
		after = f.MinID - 1
	}
	var victims []*store.Message
	for id := range l.between(after, f.BeforeID, true) {
		if len(victims) == limit {
			break
		}
		if m := t.d.messages[id]; t.matchDelete(m, &f) {
			victims = append(victims, m)
		}
	}
	out := make([]store.DeletedMessage, len(victims))
	for i, m := range victims {
		out[i] = store.DeletedMessage{
			ID: m.ID, Type: m.Type, StreamID: m.StreamID, Topic: m.Topic, TopicKey: m.TopicKey, SenderID: m.SenderID,
		}
		if m.Type == store.MessageTypePrivate {
			out[i].Recipients = append([]store.UserID{}, m.DirectMembers...)
		}
		del(t, t.d.messages, m.ID)
		t.deleteFlagRows(m.ID)
		unindex(t, t.d.msgByRealm, m.RealmID, m.ID)
		unindex(t, t.d.msgByRecipient, m.RecipientID, m.ID)
		unindex(t, t.d.msgBySender, m.SenderID, m.ID)
		if m.Type == store.MessageTypeStream {
			unindex(t, t.d.msgByStream, m.StreamID, m.ID)
			unindex(t, t.d.msgByTopic, topicKey{m.RecipientID, m.TopicKey}, m.ID)
		}
	}
	return out, nil
}

// matchDelete reports whether m matches f.
func (t *tx) matchDelete(m *store.Message, f *store.MessageFilter) bool {
	switch {
	case m.RealmID != f.RealmID,
		f.StreamID != 0 && m.StreamID != f.StreamID,
		f.TopicKey != nil && (m.Type != store.MessageTypeStream || m.TopicKey != *f.TopicKey),
		m.ID < f.MinID,
		f.BeforeID != 0 && m.ID >= f.BeforeID,
		f.SenderID != 0 && m.SenderID != f.SenderID,
		f.IDs != nil && !slices.Contains(f.IDs, m.ID):
		return false
	}
	if f.Kinds == 0 {
		return true
	}
	kind := store.KindDirect
	if m.Type == store.MessageTypeStream {
		kind = store.KindPublicChannel
		if st, ok := t.d.streams[m.StreamID]; ok && st.InviteOnly {
			kind = store.KindPrivateChannel
		}
	}
	return f.Kinds&kind != 0
}

// OldestMessageID implements store.MessageStore.
func (t *tx) OldestMessageID(_ context.Context, stream store.StreamID) (store.MessageID, error) {
	if err := t.read(); err != nil {
		return 0, err
	}
	for id := range t.d.msgByStream[stream].all() {
		return id, nil
	}
	return 0, nil
}

// DirectRecipient implements store.MessageStore. In a View a conversation
// that does not exist gives an error wrapping both store.ErrNotFound and
// ErrReadOnly.
func (t *tx) DirectRecipient(_ context.Context, realm store.RealmID, members []store.UserID) (store.RecipientID, error) {
	if err := t.read(); err != nil {
		return 0, err
	}
	set := slices.Compact(slices.Sorted(slices.Values(members)))
	var b strings.Builder
	b.WriteString(strconv.FormatInt(int64(realm), 10))
	for _, u := range set {
		b.WriteByte(',')
		b.WriteString(strconv.FormatInt(int64(u), 10))
	}
	key := b.String()
	if id, ok := t.d.directByKey[key]; ok {
		return id, nil
	}
	if err := t.write(); err != nil {
		if errors.Is(err, ErrReadOnly) {
			// The contract: in a View a missing conversation is not found.
			return 0, fmt.Errorf("direct conversation %s: %w (%w)", key, store.ErrNotFound, err)
		}
		return 0, err
	}
	id := t.d.recipientMax + 1
	useID(t, &t.d.recipientMax, id)
	put(t, t.d.recipients, id, &recipient{realm: realm, members: set})
	put(t, t.d.directByKey, key, id)
	for _, u := range set {
		index(t, t.d.directByUser, u, id)
	}
	return id, nil
}

// DirectRecipients implements store.MessageStore.
func (t *tx) DirectRecipients(_ context.Context, user store.UserID) ([]store.RecipientID, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	return append([]store.RecipientID{}, t.d.directByUser[user].collect()...), nil
}
