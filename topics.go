package chatcore

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chatcore/chatcore/store"
)

// DeleteTopicResult is the outcome of [Service.DeleteTopic], shaped as the
// extra field of Zulip's response.
type DeleteTopicResult struct {
	// Complete is false when the time budget ran out before every message of
	// the topic was deleted; the caller should repeat the request, which
	// continues where this one stopped.
	Complete bool `json:"complete"`
}

// DeleteTopic deletes every message of a channel topic that the acting
// administrator can access, newest first, in batches (see [WithTopicDeletion]).
//
// The topic is matched case-insensitively by [TopicKey]; "" and the realm's
// empty-topic display name ("general chat" unless configured) both address the
// empty topic. In a channel with protected history only the messages sent
// since the administrator joined are deleted.
//
// Each batch is its own transaction: a batch is deleted completely or not at
// all, and a finished batch stays deleted even when a later one fails. After
// each batch commits, a delete_message event goes to the subscribers who could
// see the messages and the administrator; when the channel's oldest message was
// deleted, first_message_id is recomputed (in the batch's transaction) and a
// stream update event goes to the same users first.
// When the time budget, measured with the Service's clock from the start of the
// call, runs out before a batch, DeleteTopic returns Complete false and no error.
// A topic with no (visible) messages gives Complete true.
//
// Errors: UNAUTHORIZED_PRINCIPAL "Must be an organization administrator" for
// non-administrators (checked first); BAD_REQUEST "Invalid channel ID" for an
// unknown channel, one of another realm, an archived channel, or a private
// channel the administrator is not subscribed to; UNAUTHORIZED for a missing or
// deactivated actor. Other errors are internal (store, context). Safe for
// concurrent use.
func (s *Service) DeleteTopic(ctx context.Context, actorID UserID, stream StreamID, topic string) (DeleteTopicResult, error) {
	start := s.clock.Now()
	var (
		admin   *User
		filter  MessageFilter
		nothing bool
	)
	err := s.View(ctx, func(tx Tx) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := requireAdmin(u); err != nil {
			return err
		}
		st, minID, visible, err := topicDeletionChannel(ctx, tx, u, stream)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		display := realm.EmptyTopicDisplayName
		if display == "" {
			display = DefaultEmptyTopicDisplayName
		}
		name := topic
		if name == display {
			name = ""
		}
		key := TopicKey(name)
		admin = u
		filter = MessageFilter{RealmID: u.RealmID, StreamID: st.ID, TopicKey: &key, MinID: minID}
		nothing = !visible
		return nil
	})
	if err != nil {
		return DeleteTopicResult{}, err
	}
	if nothing {
		return DeleteTopicResult{Complete: true}, nil
	}
	complete, err := s.deleteMessagesBatched(ctx, admin, filter, start.Add(s.deleteBudget))
	if err != nil {
		return DeleteTopicResult{}, err
	}
	return DeleteTopicResult{Complete: complete}, nil
}

// topicDeletionChannel checks that u may delete messages of the channel and
// returns it with the smallest message id u can access (protected history).
// visible is false when u can access no message of it at all (a channel with
// protected history u is not subscribed to).
func topicDeletionChannel(ctx context.Context, tx Tx, u *User, id StreamID) (st *Stream, minID MessageID, visible bool, err error) {
	invalid := BadRequest("Invalid channel ID")
	st, err = StreamInRealm(ctx, tx, u.RealmID, id)
	if errors.Is(err, ErrNotFound) {
		return nil, 0, false, invalid
	}
	if err != nil {
		return nil, 0, false, err
	}
	if st.IsArchived {
		return nil, 0, false, invalid
	}
	if !st.InviteOnly && st.HistoryPublicToSubscribers {
		return st, 0, true, nil
	}
	sub, err := tx.Subscription(ctx, st.ID, u.ID)
	if errors.Is(err, ErrNotFound) {
		sub, err = nil, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	subscribed := sub != nil && sub.Active
	if st.InviteOnly && !subscribed {
		return nil, 0, false, invalid
	}
	if st.HistoryPublicToSubscribers {
		return st, 0, true, nil
	}
	if !subscribed {
		return st, 0, false, nil
	}
	return st, sub.FirstVisibleMessageID, true, nil
}

// deleteMessagesBatched deletes the messages matching f, newest first, in
// batches of the configured size, each batch in its own transaction. Before
// each batch it compares the clock with deadline and returns complete false
// once the deadline has passed; a zero deadline means no time limit. ctx being
// done also stops it (with ctx's error).
//
// Each batch after a full one takes the matching messages below the lowest
// id it deleted (MessageFilter.BeforeID), so no batch walks the index entries
// the earlier ones left behind. A batch that finds fewer than a batch below
// its bound fills up from the whole filter in the same transaction, so that,
// as in Zulip, the deletion is complete when a batch comes back short, with
// nothing matching left: messages sent, or moved into the topic, while the
// batches ran are deleted too.
//
// After each batch commits it publishes delete_message events, grouped by
// direct conversation (to its participants) and by channel and topic (to the
// channel's subscribers who could see the messages), each also to actorUser
// when it is not nil. Each batch also maintains first_message_id of every
// channel it touched, with a stream update event to the topic group's users
// when it changed. Channel events carry the topic lower-cased, as Zulip sends
// it, spelt as the group's newest message of the batch stores it.
func (s *Service) deleteMessagesBatched(ctx context.Context, actorUser *User, f MessageFilter, deadline time.Time) (complete bool, err error) {
	bound := f.BeforeID // the caller's own bound, if any
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if !deadline.IsZero() && !s.clock.Now().Before(deadline) {
			return false, nil
		}
		var n int
		var next MessageID
		err := s.Update(ctx, func(tx Tx, fx *Effects) error {
			if f.StreamID != 0 {
				// DeletionEffects reads the channel's audience for the
				// batch's events.
				store.Announce(tx, Prefetch{Audiences: []StreamID{f.StreamID}})
			}
			deleted, err := tx.DeleteMessages(ctx, f, s.batchSize)
			if err != nil {
				return err
			}
			next = lowestDeleted(deleted)
			if len(deleted) < s.batchSize && f.BeforeID != bound {
				// Nothing matching is left below the sweep's bound: the
				// batch fills up with the newest of the whole filter, all
				// above that bound (sent, or moved into the topic, since
				// the sweep began), so the batch stays newest first.
				whole := f
				whole.BeforeID = bound
				rest, err := tx.DeleteMessages(ctx, whole, s.batchSize-len(deleted))
				if err != nil {
					return err
				}
				if len(rest) > 0 {
					next = lowestDeleted(rest)
				}
				deleted = append(rest, deleted...)
			}
			n = len(deleted)
			return DeletionEffects(ctx, tx, fx, actorUser, f.RealmID, deleted)
		})
		if err != nil {
			return false, err
		}
		if n < s.batchSize {
			// A short batch means nothing matching was left when it ran.
			return true, nil
		}
		f.BeforeID = next
	}
}

// lowestDeleted is the lowest id of a batch DeleteMessages returned (highest
// first), or 0 for an empty one.
func lowestDeleted(deleted []DeletedMessage) MessageID {
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
