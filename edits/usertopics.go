package edits

import (
	"context"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store"
)

// carryTopicPolicies moves the users' visibility policies of the moved
// topic to where it went, as Zulip's do_update_message, when the move took
// every message of the topic the editor can see (change_all, or no message
// left): users who cannot access the target channel lose their policy;
// the others' policy leaves the old topic and becomes, in the new one,
// their old topic's policy, or, when the new topic already had messages,
// the more visible of the two (policyAfterMerge). moved is how many
// messages the move took. Each change sends its user_topic events.
func carryTopicPolicies(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, p *editPlan, moved int) error {
	if err := refreshStreams(ctx, tx, p); err != nil {
		return err
	}
	from, to := p.fromStream, p.targetStream
	oldKey, newKey := chatcore.TopicKey(p.origTopic), chatcore.TopicKey(p.targetTopic)
	if from.ID == to.ID && oldKey == newKey {
		return nil // the same topic, renamed in case only
	}
	if p.mode != PropagateAll {
		acc, err := chatcore.StreamAccessFor(ctx, tx, p.editor, from)
		if err != nil {
			return err
		}
		if acc.OK {
			var after chatcore.MessageID
			if acc.MinID > 0 {
				after = acc.MinID - 1
			}
			left, err := tx.MessageIDs(ctx, chatcore.MessageQuery{RealmID: from.RealmID, Recipients: []chatcore.RecipientID{from.RecipientID},
				TopicKey: &oldKey, AfterID: after, Limit: 1})
			if err != nil || len(left) > 0 {
				return err
			}
		}
	}
	origRows, err := tx.TopicUserTopics(ctx, from.ID, oldKey)
	if err != nil {
		return err
	}
	targetRows, err := tx.TopicUserTopics(ctx, to.ID, newKey)
	if err != nil {
		return err
	}
	if len(origRows) == 0 && len(targetRows) == 0 {
		return nil
	}
	there, err := tx.MessageIDs(ctx, chatcore.MessageQuery{RealmID: to.RealmID, Recipients: []chatcore.RecipientID{to.RecipientID},
		TopicKey: &newKey, Limit: moved + 1})
	if err != nil {
		return err
	}
	targetHadMessages := len(there) > moved
	orig := map[chatcore.UserID]store.VisibilityPolicy{}
	target := map[chatcore.UserID]store.VisibilityPolicy{}
	var ids []chatcore.UserID
	for _, r := range origRows {
		orig[r.UserID] = r.Policy
		ids = append(ids, r.UserID)
	}
	for _, r := range targetRows {
		target[r.UserID] = r.Policy
		if _, ok := orig[r.UserID]; !ok {
			ids = append(ids, r.UserID)
		}
	}
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: from.RealmID, IDs: ids})
	if err != nil {
		return err
	}
	now := svc.Now().UTC()
	for i := range users {
		u := &users[i]
		op, tp := orig[u.ID], target[u.ID]
		if from.ID != to.ID {
			acc, err := chatcore.StreamAccessFor(ctx, tx, u, to)
			if err != nil {
				return err
			}
			if !acc.OK {
				if op != store.PolicyInherit {
					if _, err := chatcore.SetTopicPolicies(ctx, tx, fx, []chatcore.UserID{u.ID}, from, p.origTopic, store.PolicyInherit, now, false); err != nil {
						return err
					}
				}
				continue
			}
		}
		if op != store.PolicyInherit {
			// The event of the new policy, just after, carries the list.
			if _, err := chatcore.SetTopicPolicies(ctx, tx, fx, []chatcore.UserID{u.ID}, from, p.origTopic, store.PolicyInherit, now, true); err != nil {
				return err
			}
		}
		np := op
		if targetHadMessages {
			np = policyAfterMerge(op, tp)
		}
		if np == tp {
			continue
		}
		if _, err := chatcore.SetTopicPolicies(ctx, tx, fx, []chatcore.UserID{u.ID}, to, p.targetTopic, np, now, false); err != nil {
			return err
		}
	}
	return nil
}

// policyAfterMerge is Zulip's get_visibility_policy_after_merge: the more
// visible of the two policies (followed, then unmuted, then inherit, then
// muted).
func policyAfterMerge(a, b store.VisibilityPolicy) store.VisibilityPolicy {
	for _, p := range []store.VisibilityPolicy{store.PolicyFollowed, store.PolicyUnmuted, store.PolicyInherit} {
		if a == p || b == p {
			return p
		}
	}
	return store.PolicyMuted
}
