package chatcore

// Deleting messages: the events and first_message_id upkeep of each deleted
// batch, shared by every operation that deletes messages (single messages,
// topics, a deactivated user's messages).

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// LowestDeleted is the lowest id of a batch [Tx.DeleteMessages] returned
// (highest first), or 0 for an empty one: the BeforeID of the next batch of a
// deletion that goes on below it.
func LowestDeleted(deleted []DeletedMessage) MessageID {
	if len(deleted) == 0 {
		return 0
	}
	return deleted[len(deleted)-1].ID
}

// DeletionEffects records the events of one deleted batch and maintains
// first_message_id of the channels it touched, inside the batch's transaction.
// As in Zulip, direct-message groups come first, then each channel topic; a
// topic group that removed its channel's oldest message first recomputes
// first_message_id and tells the group's audience (stream update event), then
// the delete_message event follows. Topic groups are keyed by TopicKey, so
// spellings that fold alike share one event; it names the topic as the
// group's first (newest) deleted message stores it, lower-cased.
func DeletionEffects(ctx context.Context, tx Tx, fx *Effects, actorUser *User, realm RealmID, deleted []DeletedMessage) error {
	if len(deleted) == 0 {
		return nil
	}
	type topicKey struct {
		stream StreamID
		topic  string
	}
	type dmGroup struct {
		users []UserID
		ids   []MessageID
	}
	var (
		topicOrder []topicKey
		topics     = map[topicKey][]MessageID{}
		topicNames = map[topicKey]string{} // the event's topic of each group
		dmOrder    []string
		dms        = map[string]*dmGroup{}
	)
	for _, d := range deleted {
		if d.Type == MessageTypeStream {
			k := topicKey{d.StreamID, d.TopicKey}
			if _, ok := topics[k]; !ok {
				topicOrder = append(topicOrder, k)
				topicNames[k] = strings.ToLower(d.Topic)
			}
			topics[k] = append(topics[k], d.ID)
			continue
		}
		users := slices.Clone(d.Recipients)
		slices.Sort(users)
		users = slices.Compact(users)
		k := idsKey(users)
		g, ok := dms[k]
		if !ok {
			g = &dmGroup{users: users}
			dms[k] = g
			dmOrder = append(dmOrder, k)
		}
		g.ids = append(g.ids, d.ID)
	}

	for _, k := range dmOrder {
		g := dms[k]
		slices.Sort(g.ids)
		fx.Event(realm, IncludeUser(g.users, actorUser), map[string]any{
			"type":         "delete_message",
			"message_type": "private",
			"message_ids":  g.ids,
		})
	}

	streams := map[StreamID]*Stream{}
	stale := map[StreamID]bool{} // first_message_id unset although the channel had messages
	for _, k := range topicOrder {
		ids := topics[k]
		slices.Sort(ids)
		// One read gives the channel and the subscribers who could see the
		// group's newest message (protected history hides older messages
		// from later subscribers). A later group of the same channel keeps
		// using the first read's Stream, which carries this batch's
		// first_message_id change.
		read, audience, err := tx.StreamAudience(ctx, k.stream, ids[len(ids)-1])
		if err != nil {
			return err
		}
		st, ok := streams[k.stream]
		if !ok {
			st = read
			streams[k.stream] = st
			stale[st.ID] = st.FirstMessageID == 0
		}
		users := IncludeUser(audience, actorUser)
		if stale[st.ID] || slices.Contains(ids, st.FirstMessageID) {
			stale[st.ID] = false
			if err := updateFirstMessageID(ctx, tx, fx, realm, st, users); err != nil {
				return err
			}
		}
		fx.Event(realm, users, map[string]any{
			"type":         "delete_message",
			"message_type": "stream",
			"stream_id":    st.ID,
			"topic":        topicNames[k],
			"message_ids":  ids,
		})
	}
	return nil
}

// updateFirstMessageID recomputes st.FirstMessageID after a deletion and, when
// it changed, stores it and records a stream update event for users.
func updateFirstMessageID(ctx context.Context, tx Tx, fx *Effects, realm RealmID, st *Stream, users []UserID) error {
	oldest, err := tx.OldestMessageID(ctx, st.ID)
	if err != nil {
		return err
	}
	if oldest == st.FirstMessageID {
		return nil
	}
	st.FirstMessageID = oldest
	if err := tx.UpdateStream(ctx, st); err != nil {
		return err
	}
	var value any // JSON null when the channel has no message left
	if oldest != 0 {
		value = oldest
	}
	fx.Event(realm, users, map[string]any{
		"type":      "stream",
		"op":        "update",
		"property":  "first_message_id",
		"value":     value,
		"stream_id": st.ID,
		"name":      st.Name,
	})
	return nil
}

// IncludeUser returns the sorted set users ∪ {u} (u may be nil) as a new slice.
func IncludeUser(users []UserID, u *User) []UserID {
	set := make(map[UserID]struct{}, len(users)+1)
	for _, id := range users {
		set[id] = struct{}{}
	}
	if u != nil {
		set[u.ID] = struct{}{}
	}
	return slices.Sorted(maps.Keys(set))
}

// idsKey returns a map key for a sorted id list.
func idsKey(ids []UserID) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(id), 10))
	}
	return b.String()
}
