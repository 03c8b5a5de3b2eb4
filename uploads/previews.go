package uploads

// Inline image previews: once an image upload's thumbnail is made (or
// found impossible to make), the messages referencing the upload are
// re-rendered and their receivers told, as Zulip's thumbnail worker does
// (update_message_rendered_content, do_update_embedded_data).

import (
	"context"
	"errors"

	"github.com/chatcore/chatcore"
)

// previewSize returns the size an image upload of type ct whose header
// gave width×height has for inline previews: that size when chatcore makes
// a thumbnail of it, else zeros (the upload then shows no preview).
func previewSize(ct string, width, height int) (int, int) {
	if _, ok := thumbnailFormatFor(ct); !ok || checkThumbnailSize(width, height) != nil {
		return 0, 0
	}
	return width, height
}

// thumbnailDone records the outcome of upload id's thumbnail in one
// transaction: format is the thumbnail format made, "" when none can be
// made (the upload then shows no preview, as Zulip deletes its
// ImageAttachment). The messages referencing the upload whose rendering
// shows its loading placeholder are rewritten ([chatcore.RewriteUploadPreviews]),
// and each message's receivers get an update_message event with
// rendering_only true, with their flags. An upload deleted meanwhile, or
// one without a preview, changes nothing.
func thumbnailDone(ctx context.Context, svc *chatcore.Service, id chatcore.AttachmentID, format string) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := tx.Attachment(ctx, id)
		if errors.Is(err, chatcore.ErrNotFound) {
			return nil
		}
		if err != nil || a.ImageWidth == 0 {
			return err
		}
		if format == "" {
			a.ImageWidth, a.ImageHeight = 0, 0
		}
		a.Thumbnail = format
		if err := tx.SetAttachmentImage(ctx, a.ID, a.ImageWidth, a.ImageHeight, a.Thumbnail); err != nil {
			return err
		}
		refs, err := tx.AttachmentRefs(ctx, []chatcore.AttachmentID{a.ID})
		if err != nil || len(refs) == 0 {
			return err
		}
		ids := make([]chatcore.MessageID, len(refs))
		for i, r := range refs {
			ids[i] = r.MessageID
		}
		ms, err := tx.Messages(ctx, chatcore.MessageQuery{RealmID: a.RealmID, IDs: ids})
		if err != nil {
			return err
		}
		now := svc.Now().Unix()
		for i := range ms {
			m := &ms[i]
			html, changed := chatcore.RewriteUploadPreviews(m.RenderedContent, a)
			if !changed {
				continue
			}
			if err := tx.SetRenderedContent(ctx, m.ID, html); err != nil {
				return err
			}
			receivers, err := messageReceivers(ctx, tx, m)
			if err != nil {
				return err
			}
			event := map[string]any{
				"type": "update_message", "user_id": nil, "edit_timestamp": now,
				"message_id": m.ID, "message_ids": []chatcore.MessageID{m.ID},
				"content": m.Content, "rendered_content": html, "rendering_only": true,
			}
			fx.EventWithFlags(a.RealmID, event, receivers)
		}
		return nil
	})
}

// messageReceivers returns the users holding a copy of m who can still
// read it, with their flags on it (Zulip's UserMessage rows filtered by
// event_recipient_ids_for_action_on_messages): a direct message's members;
// a channel message's active subscribers who received it, and the other
// users with a flag row when the channel is public and they are not
// guests.
func messageReceivers(ctx context.Context, tx chatcore.Tx, m *chatcore.Message) (map[chatcore.UserID]chatcore.MessageFlags, error) {
	out := map[chatcore.UserID]chatcore.MessageFlags{}
	rows, err := tx.MessageFlagRows(ctx, m.ID)
	if err != nil {
		return nil, err
	}
	if m.Type != chatcore.MessageTypeStream {
		for _, u := range m.DirectMembers {
			out[u] = m.DefaultFlags
		}
		for _, r := range rows {
			if _, ok := out[r.UserID]; ok {
				out[r.UserID] = r.Flags
			}
		}
		return out, nil
	}
	st, err := tx.Stream(ctx, m.StreamID)
	if err != nil {
		return nil, err
	}
	subs, err := tx.Subscriptions(ctx, st.ID, 0)
	if err != nil {
		return nil, err
	}
	active := map[chatcore.UserID]bool{}
	for _, sub := range subs {
		if sub.Active {
			active[sub.UserID] = true
			if sub.SinceMessageID <= m.ID {
				out[sub.UserID] = m.DefaultFlags
			}
		}
	}
	var others []chatcore.UserID
	for _, r := range rows {
		if active[r.UserID] {
			out[r.UserID] = r.Flags
		} else if !st.InviteOnly {
			others = append(others, r.UserID)
		}
	}
	if len(others) > 0 {
		readers, err := tx.Users(ctx, chatcore.UserFilter{RealmID: m.RealmID, IDs: others,
			Roles: []chatcore.Role{chatcore.RoleOwner, chatcore.RoleAdministrator, chatcore.RoleModerator, chatcore.RoleMember}})
		if err != nil {
			return nil, err
		}
		flags := map[chatcore.UserID]chatcore.MessageFlags{}
		for _, r := range rows {
			flags[r.UserID] = r.Flags
		}
		for _, u := range readers {
			out[u.ID] = flags[u.ID]
		}
	}
	return out, nil
}
