// Package usertopics applies Zulip's rules for a user's visibility policy
// of a topic (mute, unmute, follow, inherit): POST /user_topics.
package usertopics

import (
	"context"
	"errors"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store"
)

// SetRequest is the parameters of POST /user_topics.
type SetRequest struct {
	StreamID *chatcore.StreamID `json:"stream_id" wire:"required"`
	Topic    *string            `json:"topic" wire:"required"`
	// VisibilityPolicy is 0 (inherit), 1 (muted), 2 (unmuted) or 3
	// (followed).
	VisibilityPolicy *int `json:"visibility_policy" wire:"required"`
}

// Set sets the actor's visibility policy for a topic, as Zulip's
// update_user_topic: the topic is normalized as a message's (trimmed, the
// realm's empty-topic name and "(no topic)" meaning the empty topic, cut at
// chatcore.MaxTopicLength characters). Setting a policy other than inherit
// needs access to the channel (a public one for a non-guest, or an active
// subscription) and an active channel; inherit also removes the policy of a
// channel the actor can no longer access. A change sends the actor a
// "muted_topics" event (their whole legacy list) and a "user_topic" event;
// setting the policy a topic already has changes nothing and sends nothing.
//
// Errors (BAD_REQUEST): "Invalid visibility_policy" for a value outside
// 0..3; "Invalid channel ID" for a channel that does not exist in the
// actor's realm, that the actor may not access, or that is archived (for a
// policy other than inherit); the topic texts of chatcore.NormalizeTopic.
func Set(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req SetRequest) error {
	p := store.VisibilityPolicy(*req.VisibilityPolicy)
	if p < store.PolicyInherit || p > store.PolicyFollowed {
		return chatcore.BadRequest("Invalid visibility_policy")
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		topic, err := chatcore.NormalizeTopic(realm, *req.Topic)
		if err != nil {
			return err
		}
		invalid := chatcore.BadRequest("Invalid channel ID")
		st, err := chatcore.StreamInRealm(ctx, tx, u.RealmID, *req.StreamID)
		if errors.Is(err, chatcore.ErrNotFound) {
			return invalid
		}
		if err != nil {
			return err
		}
		if ok, err := mayChange(ctx, tx, u, st, topic, p); err != nil {
			return err
		} else if !ok {
			return invalid
		}
		_, err = chatcore.SetTopicPolicies(ctx, tx, fx, []chatcore.UserID{u.ID}, st, topic, p, svc.Now().UTC(), false)
		return err
	})
}

// mayChange reports whether u may set the policy p of the topic of st:
// with access to an active channel (Zulip's access_stream_by_id), or, to
// remove a policy, also when u has one for the topic (Zulip's
// access_stream_to_remove_visibility_policy_by_id).
func mayChange(ctx context.Context, tx chatcore.Tx, u *chatcore.User, st *chatcore.Stream, topic string, p store.VisibilityPolicy) (bool, error) {
	if p == store.PolicyInherit {
		rows, err := tx.TopicUserTopics(ctx, st.ID, chatcore.TopicKey(topic))
		if err != nil {
			return false, err
		}
		for _, r := range rows {
			if r.UserID == u.ID {
				return true, nil
			}
		}
	}
	if st.IsArchived && p != store.PolicyInherit {
		return false, nil
	}
	acc, err := chatcore.StreamAccessFor(ctx, tx, u, st)
	return acc.OK, err
}
