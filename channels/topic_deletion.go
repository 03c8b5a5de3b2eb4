package channels

import (
	"context"
	"errors"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store"
)

// DeleteTopicResult is the outcome of [DeleteTopic], shaped as the extra
// field of Zulip's response.
type DeleteTopicResult struct {
	// Complete is false when the time budget ran out before every message of
	// the topic was deleted; the caller should repeat the request, which
	// continues where this one stopped.
	Complete bool `json:"complete"`
}

// DeleteTopic deletes every message of a channel topic that the acting
// administrator can access, newest first, in batches (POST
// /streams/{stream_id}/delete_topic; batch size and time budget:
// [chatcore.WithTopicDeletion]).
//
// The topic is matched case-insensitively by [chatcore.TopicKey]; "" and the
// realm's empty-topic display name ("general chat" unless configured) both
// address the empty topic. In a channel with protected history only the
// messages sent since the administrator joined are deleted.
//
// Each batch is its own transaction: a batch is deleted completely or not at
// all, and a finished batch stays deleted even when a later one fails. After
// each batch commits, a delete_message event goes to the subscribers who could
// see the messages and the administrator; when the channel's oldest message was
// deleted, first_message_id is recomputed (in the batch's transaction) and a
// stream update event goes to the same users first (see
// [chatcore.DeletionEffects]). When the time budget, measured with the
// Service's clock from the start of the call, runs out before a batch,
// DeleteTopic returns Complete false and no error. A topic with no (visible)
// messages gives Complete true.
//
// Errors: UNAUTHORIZED_PRINCIPAL "Must be an organization administrator" for
// non-administrators (checked first); BAD_REQUEST "Invalid channel ID" for an
// unknown channel, one of another realm, an archived channel, or a private
// channel the administrator is not subscribed to; UNAUTHORIZED for a missing or
// deactivated actor. Other errors are internal (store, context). Safe for
// concurrent use.
func DeleteTopic(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, stream chatcore.StreamID, topic string) (DeleteTopicResult, error) {
	start := svc.Now()
	var (
		admin   *chatcore.User
		filter  chatcore.MessageFilter
		nothing bool
	)
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.AuthorizedActor(ctx, tx, actorID, chatcore.AccessAdmin)
		if err != nil {
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
			display = chatcore.DefaultEmptyTopicDisplayName
		}
		name := topic
		if name == display {
			name = ""
		}
		key := chatcore.TopicKey(name)
		admin = u
		filter = chatcore.MessageFilter{RealmID: u.RealmID, StreamID: st.ID, TopicKey: &key, MinID: minID}
		nothing = !visible
		return nil
	})
	if err != nil {
		return DeleteTopicResult{}, err
	}
	if nothing {
		return DeleteTopicResult{Complete: true}, nil
	}
	complete, err := deleteMessagesBatched(ctx, svc, admin, filter, start.Add(svc.TopicDeletionBudget()))
	if err != nil {
		return DeleteTopicResult{}, err
	}
	return DeleteTopicResult{Complete: complete}, nil
}

// topicDeletionChannel checks that u may delete messages of the channel and
// returns it with the smallest message id u can access (protected history).
// visible is false when u can access no message of it at all (a channel with
// protected history u is not subscribed to).
func topicDeletionChannel(ctx context.Context, tx chatcore.Tx, u *chatcore.User, id chatcore.StreamID) (st *chatcore.Stream, minID chatcore.MessageID, visible bool, err error) {
	invalid := chatcore.BadRequest("Invalid channel ID")
	st, err = chatcore.StreamInRealm(ctx, tx, u.RealmID, id)
	if errors.Is(err, chatcore.ErrNotFound) {
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
	if errors.Is(err, chatcore.ErrNotFound) {
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
// batches of the Service's topic batch size, each batch in its own
// transaction. Before each batch it compares the clock with deadline and
// returns complete false once the deadline has passed; a zero deadline means
// no time limit. ctx being done also stops it (with ctx's error).
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
// it, spelt as the group's newest message of the batch stores it (all of it
// is [chatcore.DeletionEffects]).
func deleteMessagesBatched(ctx context.Context, svc *chatcore.Service, actorUser *chatcore.User, f chatcore.MessageFilter, deadline time.Time) (complete bool, err error) {
	bound := f.BeforeID // the caller's own bound, if any
	size := svc.TopicBatchSize()
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if !deadline.IsZero() && !svc.Now().Before(deadline) {
			return false, nil
		}
		var n int
		var next chatcore.MessageID
		err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
			if f.StreamID != 0 {
				// DeletionEffects reads the channel's audience for the
				// batch's events.
				store.Announce(tx, chatcore.Prefetch{Audiences: []chatcore.StreamID{f.StreamID}})
			}
			deleted, err := tx.DeleteMessages(ctx, f, size)
			if err != nil {
				return err
			}
			next = chatcore.LowestDeleted(deleted)
			if len(deleted) < size && f.BeforeID != bound {
				// Nothing matching is left below the sweep's bound: the
				// batch fills up with the newest of the whole filter, all
				// above that bound (sent, or moved into the topic, since
				// the sweep began), so the batch stays newest first.
				whole := f
				whole.BeforeID = bound
				rest, err := tx.DeleteMessages(ctx, whole, size-len(deleted))
				if err != nil {
					return err
				}
				if len(rest) > 0 {
					next = chatcore.LowestDeleted(rest)
				}
				deleted = append(rest, deleted...)
			}
			n = len(deleted)
			return chatcore.DeletionEffects(ctx, tx, fx, actorUser, f.RealmID, deleted)
		})
		if err != nil {
			return false, err
		}
		if n < size {
			// A short batch means nothing matching was left when it ran.
			return true, nil
		}
		f.BeforeID = next
	}
}
