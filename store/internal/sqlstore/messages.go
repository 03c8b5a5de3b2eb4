package sqlstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// MessageCols are the columns of a message row, in the order the stores
// insert and scan them.
const MessageCols = `id, realm_id, sender_id, type, recipient_id, stream_id, topic, topic_key, direct_members,
	content, rendered_content, client, sent_at, last_edited_at, last_moved_at, is_me_message, default_flags, has`

// allKinds are every kind a store.MessageFilter's Kinds can name.
const allKinds = store.KindPublicChannel | store.KindPrivateChannel | store.KindDirect

// FiltersKinds reports whether kinds selects some but not all kinds of
// messages, so that a statement needs a condition on them.
func FiltersKinds(kinds store.MessageKinds) bool {
	k := kinds & allKinds
	return k != 0 && k != allKinds
}

// KindsCondition returns the condition on the message row m that it is of
// one of kinds, or "" when kinds does not filter (see FiltersKinds). public
// and private are the dialect's spellings of the condition that the stream
// s is not, and is, invite-only.
func KindsCondition(kinds store.MessageKinds, public, private string) string {
	if !FiltersKinds(kinds) {
		return ""
	}
	var conds []string
	if kinds&store.KindPublicChannel != 0 {
		conds = append(conds, "(m.type = 'stream' AND EXISTS (SELECT 1 FROM streams s WHERE s.id = m.stream_id AND "+public+"))")
	}
	if kinds&store.KindPrivateChannel != 0 {
		conds = append(conds, "(m.type = 'stream' AND EXISTS (SELECT 1 FROM streams s WHERE s.id = m.stream_id AND "+private+"))")
	}
	if kinds&store.KindDirect != 0 {
		conds = append(conds, "m.type = 'private'")
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

// OrderByID returns the end of a message query: its order by id, newest
// first when newest, and its limit when limit is positive.
func OrderByID(newest bool, limit int) string {
	s := " ORDER BY id"
	if newest {
		s += " DESC"
	}
	if limit > 0 {
		s += " LIMIT " + strconv.Itoa(limit)
	}
	return s
}

// CheckDeleteLimit returns the error of DeleteMessages for a limit that is
// not positive, or nil.
func (d *Dialect) CheckDeleteLimit(limit int) error {
	if limit <= 0 {
		return fmt.Errorf("%s: delete messages: limit %d is not positive", d.Name, limit)
	}
	return nil
}

// SortDeleted orders the answer of DeleteMessages: newest first.
func SortDeleted(out []store.DeletedMessage) {
	slices.SortFunc(out, func(a, b store.DeletedMessage) int { return cmp.Compare(b.ID, a.ID) })
}

// ExistingDirectRecipient returns the direct conversation of realm whose
// key (see DirectKey) is key, with ok true. When there is none, ok is
// false and err nil in a transaction that may write, which then creates
// it; in a View err wraps both store.ErrNotFound and the View's error.
func (x *Tx) ExistingDirectRecipient(ctx context.Context, realm store.RealmID, key string) (rid store.RecipientID, ok bool, err error) {
	err = x.q.QueryRow(ctx, "SELECT id FROM recipients WHERE realm_id = $1 AND direct_key = $2", realm, key).Scan(&rid)
	if err == nil {
		return rid, true, nil
	}
	if !errors.Is(err, x.d.NoRows) {
		return 0, false, x.classify(err, "direct recipient")
	}
	if err := x.q.Writable(); err != nil {
		// The contract: in a View a missing conversation is not found.
		return 0, false, fmt.Errorf("%s: direct conversation %s: %w (%w)", x.d.Name, key, store.ErrNotFound, err)
	}
	return 0, false, nil
}
