package memory

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// userMessage derives the user's view of m: a flag row wins; otherwise a
// participant of a direct message, or a user whose active subscription
// covers m, has m's DefaultFlags, with FlagRead when they sent m or their
// read mark of m's recipient covers it.
func (t *tx) userMessage(user store.UserID, m *store.Message) store.UserMessage {
	um := store.UserMessage{ID: m.ID, RealmID: m.RealmID, Type: m.Type, StreamID: m.StreamID, Topic: m.Topic,
		SenderID: m.SenderID, DirectMembers: slices.Clone(m.DirectMembers)}
	if f, ok := t.d.flags[flagKey{user, m.ID}]; ok {
		um.Received, um.Flags = true, f
		return um
	}
	if m.Type == store.MessageTypePrivate {
		um.Received = slices.Contains(m.DirectMembers, user)
	} else if sub, ok := t.d.subs[subKey{m.StreamID, user}]; ok {
		um.Received = sub.Active && sub.SinceMessageID <= m.ID
	}
	if um.Received {
		um.Flags = m.DefaultFlags
		if m.SenderID == user || m.ID <= t.d.marks[markKey{user, m.RecipientID}] {
			um.Flags |= store.FlagRead
		}
	}
	return um
}

// memberSince reports whether user is in the recipient (a participant of
// the direct conversation or an active subscriber of the channel) and
// from which message id on its messages are theirs.
func (t *tx) memberSince(user store.UserID, recipient store.RecipientID) (store.MessageID, bool) {
	r, ok := t.d.recipients[recipient]
	if !ok {
		return 0, false
	}
	if r.stream == 0 {
		_, ok := slices.BinarySearch(r.members, user)
		return 0, ok
	}
	sub, ok := t.d.subs[subKey{r.stream, user}]
	if !ok || !sub.Active {
		return 0, false
	}
	return sub.SinceMessageID, true
}

// MarkReadThrough implements store.FlagStore.
func (t *tx) MarkReadThrough(_ context.Context, user store.UserID, recipient store.RecipientID, through store.MessageID) error {
	if err := t.write(); err != nil {
		return err
	}
	if through <= 0 {
		return nil
	}
	k := markKey{user, recipient}
	if through > t.d.marks[k] {
		put(t, t.d.marks, k, through)
	}
	since, member := t.memberSince(user, recipient)
	for _, id := range t.d.flagsByUser[user].collect() {
		fk := flagKey{user, id}
		f := t.d.flags[fk]
		m, ok := t.d.messages[id]
		if !ok || id > through || m.RecipientID != recipient {
			continue
		}
		switch {
		case member && id >= since && f|store.FlagRead == m.DefaultFlags|store.FlagRead:
			t.dropFlags(fk) // the mark derives it now
		case f&store.FlagRead == 0:
			t.putFlags(user, id, f|store.FlagRead)
		}
	}
	return nil
}

// dropFlags deletes the flag row k.
func (t *tx) dropFlags(k flagKey) {
	del(t, t.d.flags, k)
	unindex(t, t.d.flagsByMsg, k.msg, k.user)
	unindex(t, t.d.flagsByUser, k.user, k.msg)
}

// maxPinned bounds the unread messages one mark move pins with a row, as
// the SQL stores do.
const maxPinned = 100

// advanceReadMarks moves the user's read marks after the messages ids
// became read, as the SQL stores do (sqlstore.Tx.AdvanceReadMarks): each
// recipient's mark rises to the highest of them when at most maxPinned
// messages without a row lie between, which get a row with their flags,
// and the rows in between the mark now derives are deleted.
func (t *tx) advanceReadMarks(user store.UserID, ids []store.MessageID) {
	high := map[store.RecipientID]store.MessageID{}
	for _, id := range ids {
		if m, ok := t.d.messages[id]; ok && id > high[m.RecipientID] {
			high[m.RecipientID] = id
		}
	}
	for r, h := range high {
		since, ok := t.memberSince(user, r)
		if !ok {
			continue
		}
		k := markKey{user, r}
		base := max(t.d.marks[k], since-1)
		if h <= base {
			continue
		}
		var pinned []store.MessageID
		for id := range t.d.msgByRecipient[r].between(base, h+1, false) {
			if _, row := t.d.flags[flagKey{user, id}]; !row && t.d.messages[id].SenderID != user {
				pinned = append(pinned, id)
			}
			if len(pinned) > maxPinned {
				break
			}
		}
		if len(pinned) > maxPinned {
			continue
		}
		for _, id := range pinned {
			t.putFlags(user, id, t.d.messages[id].DefaultFlags)
		}
		put(t, t.d.marks, k, h)
		for id := range t.d.msgByRecipient[r].between(base, h+1, false) {
			fk := flagKey{user, id}
			if f, row := t.d.flags[fk]; row && id >= since && f == t.d.messages[id].DefaultFlags|store.FlagRead {
				t.dropFlags(fk)
			}
		}
	}
}

// matchFlags applies the flag conditions of q to m.
func (t *tx) matchFlags(m *store.Message, q *store.MessageQuery) bool {
	if q.FlagUser == 0 {
		return true
	}
	um := t.userMessage(q.FlagUser, m)
	return um.Received && um.Flags&q.AllFlags == q.AllFlags &&
		(q.AnyFlags == 0 || um.Flags&q.AnyFlags != 0) && um.Flags&q.NoFlags == 0
}

// deleteFlagRows deletes every flag row of the message.
func (t *tx) deleteFlagRows(id store.MessageID) {
	for _, u := range t.d.flagsByMsg[id].collect() {
		del(t, t.d.flags, flagKey{u, id})
		unindex(t, t.d.flagsByMsg, id, u)
		unindex(t, t.d.flagsByUser, u, id)
	}
}

// UserMessages implements store.FlagStore.
func (t *tx) UserMessages(_ context.Context, user store.UserID, ids []store.MessageID) ([]store.UserMessage, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.UserMessage
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		if m, ok := t.d.messages[id]; ok {
			out = append(out, t.userMessage(user, m))
		}
	}
	return out, nil
}

// PutUserMessageFlags implements store.FlagStore.
func (t *tx) PutUserMessageFlags(_ context.Context, rows []store.UserMessageFlags) error {
	if err := t.write(); err != nil {
		return err
	}
	for _, r := range rows {
		t.putFlags(r.UserID, r.MessageID, r.Flags)
	}
	return nil
}

func (t *tx) putFlags(user store.UserID, msg store.MessageID, f store.MessageFlags) {
	put(t, t.d.flags, flagKey{user, msg}, f)
	index(t, t.d.flagsByMsg, msg, user)
	index(t, t.d.flagsByUser, user, msg)
}

// UpdateUserMessageFlags implements store.FlagStore.
func (t *tx) UpdateUserMessageFlags(_ context.Context, user store.UserID, ids []store.MessageID, flag store.MessageFlags, add bool) ([]store.MessageID, error) {
	if err := t.write(); err != nil {
		return nil, err
	}
	var changed []store.MessageID
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		m, ok := t.d.messages[id]
		if !ok {
			continue
		}
		um := t.userMessage(user, m)
		if !um.Received {
			continue
		}
		next := um.Flags | flag
		if !add {
			next = um.Flags &^ flag
		}
		if next == um.Flags {
			continue
		}
		if since, member := t.memberSince(user, m.RecipientID); m.SenderID == user && member && since <= id &&
			next == m.DefaultFlags|store.FlagRead {
			t.dropFlags(flagKey{user, id}) // what is derived for their own message
		} else {
			t.putFlags(user, id, next)
		}
		changed = append(changed, id)
	}
	if add && flag&store.FlagRead != 0 {
		t.advanceReadMarks(user, changed)
	}
	return changed, nil
}

// UnreadMessages implements store.FlagStore.
func (t *tx) UnreadMessages(_ context.Context, user store.UserID, limit int) ([]store.UserMessage, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	seen := map[store.MessageID]bool{}
	var ids []store.MessageID
	consider := func(id store.MessageID) {
		if seen[id] {
			return
		}
		seen[id] = true
		if m, ok := t.d.messages[id]; ok {
			if um := t.userMessage(user, m); um.Received && um.Flags&store.FlagRead == 0 {
				ids = append(ids, id)
			}
		}
	}
	for r := range t.d.directByUser[user].all() {
		for id := range t.d.msgByRecipient[r].all() {
			consider(id)
		}
	}
	for st := range t.d.subsByUser[user].all() {
		sub := t.d.subs[subKey{st, user}]
		if !sub.Active {
			continue
		}
		var after store.MessageID
		if sub.SinceMessageID > 0 {
			after = sub.SinceMessageID - 1
		}
		for id := range t.d.msgByStream[st].between(after, 0, false) {
			consider(id)
		}
	}
	for id := range t.d.flagsByUser[user].all() {
		consider(id)
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	if len(ids) > limit {
		ids = ids[:limit]
	}
	out := make([]store.UserMessage, len(ids))
	for i, id := range ids {
		out[i] = t.userMessage(user, t.d.messages[id])
	}
	return out, nil
}

// FlaggedMessageIDs implements store.FlagStore.
func (t *tx) FlaggedMessageIDs(_ context.Context, user store.UserID, flag store.MessageFlags) ([]store.MessageID, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.MessageID
	for id, m := range t.d.messages {
		if um := t.userMessage(user, m); um.Received && um.Flags&flag == flag {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

// StreamAudience implements store.StreamStore.
func (t *tx) StreamAudience(ctx context.Context, stream store.StreamID, upTo store.MessageID) (*store.Stream, []store.UserID, error) {
	st, err := t.Stream(ctx, stream)
	if err != nil {
		return nil, nil, err
	}
	var out []store.UserID
	for u := range t.d.subsByStream[stream].all() {
		s := t.d.subs[subKey{stream, u}]
		if s.Active && (st.HistoryPublicToSubscribers || s.FirstVisibleMessageID <= upTo) {
			out = append(out, u)
		}
	}
	return st, out, nil
}

// ActiveSubscriberIDs implements store.StreamStore.
func (t *tx) ActiveSubscriberIDs(_ context.Context, stream store.StreamID) ([]store.UserID, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.UserID
	for u := range t.d.subsByStream[stream].all() {
		if t.d.subs[subKey{stream, u}].Active {
			out = append(out, u)
		}
	}
	return out, nil
}
