package chatcore

import (
	"context"
	"errors"
	"fmt"
)

// writeFixture writes a checked plan inside one transaction.
func (s *Service) writeFixture(ctx context.Context, tx Tx, plan *fixturePlan) error {
	conflict := func(path string, err error) error {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			e := BadRequestf("%s: conflicts with data already in the store", path)
			e.Err = err
			return e
		}
		return err
	}
	for i, rp := range plan.realms {
		r := rp.realm
		if err := tx.CreateRealm(ctx, &r); err != nil {
			return conflict(fmt.Sprintf("realms[%d]", i), err)
		}
	}
	for i, rp := range plan.realms {
		path := fmt.Sprintf("realms[%d]", i)
		realm := rp.realm.ID
		for _, u := range rp.users {
			if err := tx.CreateUser(ctx, u); err != nil {
				return conflict(fmt.Sprintf("%s: user %d", path, u.ID), err)
			}
		}
		for j := range rp.services {
			if err := tx.CreateBotService(ctx, &rp.services[j]); err != nil {
				return conflict(fmt.Sprintf("%s: service of bot %d", path, rp.services[j].BotID), err)
			}
		}
		for j := range rp.groups {
			if err := tx.CreateGroup(ctx, &rp.groups[j]); err != nil {
				return conflict(fmt.Sprintf("%s: group %d", path, rp.groups[j].ID), err)
			}
		}
		for j := range rp.linkifiers {
			if err := tx.CreateLinkifier(ctx, &rp.linkifiers[j]); err != nil {
				return conflict(fmt.Sprintf("%s: linkifier %d", path, rp.linkifiers[j].ID), err)
			}
		}
		streams := map[StreamID]*Stream{}
		for _, st := range rp.streams {
			if err := tx.CreateStream(ctx, st); err != nil {
				return conflict(fmt.Sprintf("%s: channel %d", path, st.ID), err)
			}
			streams[st.ID] = st
		}
		for _, sub := range rp.subs {
			if err := tx.PutSubscription(ctx, sub); err != nil {
				return err
			}
		}
		for _, m := range rp.messages {
			if m.Type == MessageTypeStream {
				st := streams[m.StreamID]
				m.RecipientID = st.RecipientID
				if st.FirstMessageID == 0 || m.ID < st.FirstMessageID {
					st.FirstMessageID = m.ID
				}
			} else {
				rid, err := tx.DirectRecipient(ctx, realm, m.DirectMembers)
				if err != nil {
					return err
				}
				m.RecipientID = rid
			}
			html, _, isMe, err := s.renderMessage(ctx, tx, realm, m.Content)
			if err != nil {
				return err
			}
			m.RenderedContent, m.IsMeMessage = html, isMe
			if err := tx.CreateMessage(ctx, m); err != nil {
				return conflict(fmt.Sprintf("%s: message %d", path, m.ID), err)
			}
		}
		for _, st := range rp.streams {
			if st.FirstMessageID != 0 {
				if err := tx.UpdateStream(ctx, st); err != nil {
					return err
				}
			}
		}
		for _, sm := range rp.scheduled {
			if sm.Kind == ScheduledReminder {
				content, err := s.reminderContent(ctx, tx, rp.reminderTargets[sm.ID], sm.ReminderNote)
				if err != nil {
					return err
				}
				sm.Content = content
			}
			html, err := s.render(ctx, tx, realm, sm.Content)
			if err != nil {
				return err
			}
			sm.RenderedContent = html
			if err := tx.CreateScheduledMessage(ctx, sm); err != nil {
				return conflict(fmt.Sprintf("%s: scheduled message %d", path, sm.ID), err)
			}
		}
		for j := range rp.drafts {
			if err := tx.CreateDraft(ctx, &rp.drafts[j]); err != nil {
				return conflict(fmt.Sprintf("%s: draft %d", path, rp.drafts[j].ID), err)
			}
		}
	}
	return nil
}
