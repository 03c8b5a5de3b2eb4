// Package reactions applies Zulip's rules for emoji reactions on messages:
// POST and DELETE /messages/{message_id}/reactions.
package reactions

import (
	"context"
	"errors"
	"strconv"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/emoji"
	"github.com/chatcore/chatcore/store"
)

// AddRequest is the emoji of [Add], as Zulip's parameters.
type AddRequest struct {
	EmojiName string `json:"emoji_name" wire:"required"`
	// EmojiCode and ReactionType are looked up from EmojiName when absent.
	EmojiCode    *string `json:"emoji_code"`
	ReactionType *string `json:"reaction_type"`
}

// RemoveRequest is the emoji of [Remove]: EmojiCode,
// or EmojiName to look the code up; ReactionType defaults to unicode_emoji.
type RemoveRequest struct {
	EmojiName    *string `json:"emoji_name"`
	EmojiCode    *string `json:"emoji_code"`
	ReactionType *string `json:"reaction_type"`
}

// Add adds the actor's emoji reaction to a message, as Zulip's
// check_add_reaction: a missing code or type is looked up from the name
// (the "zulip" extra emoji, Zulip's Unicode emoji names, else the realm's
// active custom emoji); a reaction with the code and type that another user
// already gave is a vote for it and takes its name unchecked; otherwise the
// name, code and type must agree. A message the actor can read but never
// received becomes read and historical for them. A "reaction" event (op
// add) goes to the users who can see the message.
//
// Errors (BAD_REQUEST): "Invalid message(s)" for a message that does not
// exist, that the actor cannot read, or of an archived channel; "Emoji 'x'
// does not exist"; "Invalid custom emoji." (realm_emoji), "Invalid emoji
// code.", "Invalid emoji name.", "Invalid emoji type."; code
// REACTION_ALREADY_EXISTS "Reaction already exists." when the actor already
// reacted with that emoji.
func Add(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.MessageID, req AddRequest) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		// The actor's view of the message, read below, goes with the first read.
		store.Announce(tx, chatcore.Prefetch{UserMessages: chatcore.UserMessagesRead{User: actorID, IDs: []chatcore.MessageID{id}}})
		u, m, err := reactableMessage(ctx, tx, actorID, id)
		if err != nil {
			return err
		}
		r := chatcore.Reaction{UserID: u.ID, EmojiName: req.EmojiName}
		if req.EmojiCode == nil || req.ReactionType == nil {
			code, typ, err := emojiByName(ctx, tx, u.RealmID, req.EmojiName)
			if err != nil {
				return err
			}
			r.EmojiCode, r.ReactionType = code, typ
		}
		if req.EmojiCode != nil {
			r.EmojiCode = *req.EmojiCode
		}
		if req.ReactionType != nil {
			r.ReactionType = *req.ReactionType
		}
		vote := false
		for _, x := range m.Reactions {
			if x.EmojiCode != r.EmojiCode || x.ReactionType != r.ReactionType {
				continue
			}
			if x.UserID == u.ID {
				return errReactionExists()
			}
			if !vote {
				r.EmojiName, vote = x.EmojiName, true
			}
		}
		if !vote {
			if err := checkEmoji(ctx, tx, u.RealmID, r.EmojiName, r.EmojiCode, r.ReactionType); err != nil {
				return err
			}
		}
		ums, err := tx.UserMessages(ctx, u.ID, []chatcore.MessageID{m.ID})
		if err != nil {
			return err
		}
		if len(ums) == 0 || !ums[0].Received {
			if err := tx.PutUserMessageFlags(ctx, []chatcore.UserMessageFlags{{UserID: u.ID, MessageID: m.ID, Flags: chatcore.HistoricalFlags}}); err != nil {
				return err
			}
		}
		if err := tx.AddReaction(ctx, m.ID, r); errors.Is(err, chatcore.ErrConflict) {
			return errReactionExists()
		} else if err != nil {
			return err
		}
		if err := reactionEvent(ctx, svc, tx, fx, u, m, r, "add"); err != nil {
			return err
		}
		// A reaction is participation in the topic (Zulip's
		// automatically_follow_topics_policy).
		return chatcore.FollowOnParticipation(ctx, tx, fx, svc.Now(), u, m)
	})
}

// Remove removes the actor's reaction of the type (default
// unicode_emoji) and code from a message, as Zulip's remove_reaction; the
// code is looked up from EmojiName when absent. The emoji is not validated:
// an existing reaction is removed whatever its name. A "reaction" event (op
// remove) goes to the users who can see the message.
//
// Errors (BAD_REQUEST): "Invalid message(s)" as for [Add];
// "At least one of the following arguments must be present: emoji_name,
// emoji_code"; "Emoji 'x' does not exist" for an unknown name without a
// code; code REACTION_DOES_NOT_EXIST "Reaction doesn't exist." when the
// actor has no such reaction.
func Remove(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.MessageID, req RemoveRequest) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, m, err := reactableMessage(ctx, tx, actorID, id)
		if err != nil {
			return err
		}
		typ := chatcore.ReactionUnicodeEmoji
		if req.ReactionType != nil {
			typ = *req.ReactionType
		}
		var code string
		switch {
		case req.EmojiCode != nil:
			code = *req.EmojiCode
		case req.EmojiName == nil:
			return chatcore.BadRequest("At least one of the following arguments must be present: emoji_name, emoji_code")
		default:
			if code, _, err = emojiByName(ctx, tx, u.RealmID, *req.EmojiName); err != nil {
				return err
			}
		}
		var removed *chatcore.Reaction
		for i, x := range m.Reactions {
			if x.UserID == u.ID && x.ReactionType == typ && x.EmojiCode == code {
				removed = &m.Reactions[i]
				break
			}
		}
		if removed == nil {
			return errReactionDoesNotExist()
		}
		if err := tx.RemoveReaction(ctx, m.ID, u.ID, typ, code); errors.Is(err, chatcore.ErrNotFound) {
			return errReactionDoesNotExist()
		} else if err != nil {
			return err
		}
		return reactionEvent(ctx, svc, tx, fx, u, m, *removed, "remove")
	})
}

// reactableMessage returns the actor and the message they may react to:
// one they can read, not in an archived channel (Zulip's access_message
// for a modification), else "Invalid message(s)".
func reactableMessage(ctx context.Context, tx chatcore.Tx, actorID chatcore.UserID, id chatcore.MessageID) (*chatcore.User, *chatcore.Message, error) {
	u, err := chatcore.Actor(ctx, tx, actorID)
	if err != nil {
		return nil, nil, err
	}
	m, err := chatcore.ReadableMessage(ctx, tx, u, id)
	if err != nil {
		return nil, nil, err
	}
	if m.Type == chatcore.MessageTypeStream {
		st, err := tx.Stream(ctx, m.StreamID)
		if err != nil {
			return nil, nil, err
		}
		if st.IsArchived {
			return nil, nil, chatcore.InvalidMessageError()
		}
	}
	return u, m, nil
}

// reactionEvent records Zulip's reaction event for the users who can see m
// (see reactionAudience) and the actor.
func reactionEvent(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, u *chatcore.User, m *chatcore.Message, r chatcore.Reaction, op string) error {
	users, err := reactionAudience(ctx, tx, m)
	if err != nil {
		return err
	}
	fx.Event(u.RealmID, chatcore.IncludeUser(users, u), map[string]any{
		"type": "reaction", "op": op, "user_id": u.ID,
		"user":       map[string]any{"user_id": u.ID, "email": svc.APIEmail(u), "full_name": u.FullName},
		"message_id": m.ID, "emoji_name": r.EmojiName, "emoji_code": r.EmojiCode, "reaction_type": r.ReactionType,
	})
	return nil
}

// reactionAudience returns who hears of a change to m, as Zulip's
// event_recipient_ids_for_action_on_messages: the participants of a direct
// message; the active subscribers of a channel, only those who received m
// when its history is protected, and for a public channel also the users
// (not guests) who hold a flag row for m (they starred it, reacted to it or
// received it before unsubscribing).
func reactionAudience(ctx context.Context, tx chatcore.Tx, m *chatcore.Message) ([]chatcore.UserID, error) {
	if m.Type != chatcore.MessageTypeStream {
		return m.DirectMembers, nil
	}
	st, err := tx.Stream(ctx, m.StreamID)
	if err != nil {
		return nil, err
	}
	subs, err := tx.Subscriptions(ctx, st.ID, 0)
	if err != nil {
		return nil, err
	}
	var rows []chatcore.UserMessageFlags
	if !st.HistoryPublicToSubscribers || !st.InviteOnly {
		if rows, err = tx.MessageFlagRows(ctx, m.ID); err != nil {
			return nil, err
		}
	}
	hasRow := make(map[chatcore.UserID]bool, len(rows))
	for _, r := range rows {
		hasRow[r.UserID] = true
	}
	var users []chatcore.UserID
	for _, sub := range subs {
		if sub.Active && (st.HistoryPublicToSubscribers || sub.SinceMessageID <= m.ID || hasRow[sub.UserID]) {
			users = append(users, sub.UserID)
		}
	}
	if !st.InviteOnly && len(rows) > 0 {
		ids := make([]chatcore.UserID, len(rows))
		for i, r := range rows {
			ids[i] = r.UserID
		}
		readers, err := tx.Users(ctx, chatcore.UserFilter{RealmID: m.RealmID, IDs: ids, Roles: []chatcore.Role{chatcore.RoleOwner, chatcore.RoleAdministrator, chatcore.RoleModerator, chatcore.RoleMember}})
		if err != nil {
			return nil, err
		}
		for _, u := range readers {
			users = append(users, u.ID)
		}
	}
	return users, nil
}

// zulipExtraEmoji is the one emoji of type zulip_extra_emoji.
const zulipExtraEmoji = "zulip"

// emojiByName returns the code and type of the emoji named name, as Zulip's
// get_emoji_data (without custom emoji).
func emojiByName(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID, name string) (code, typ string, err error) {
	// Built-in names first, so the common reaction reads nothing more;
	// a custom emoji that shadows a built-in name (which only
	// administrators may add) is reached with its code and type.
	if name == zulipExtraEmoji {
		return zulipExtraEmoji, chatcore.ReactionZulipExtraEmoji, nil
	}
	if code, ok := emoji.Code(name); ok {
		return code, chatcore.ReactionUnicodeEmoji, nil
	}
	e, err := chatcore.ActiveRealmEmoji(ctx, tx, realm, name)
	if err != nil {
		return "", "", err
	}
	if e != nil {
		return strconv.FormatInt(int64(e.ID), 10), chatcore.ReactionRealmEmoji, nil
	}
	return "", "", chatcore.BadRequestf("Emoji '%s' does not exist", name)
}

// checkEmoji reports whether name, code and type name one emoji a new
// reaction may use, as Zulip's check_emoji_request.
func checkEmoji(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID, name, code, typ string) error {
	switch typ {
	case chatcore.ReactionRealmEmoji:
		return chatcore.CheckRealmEmojiReaction(ctx, tx, realm, name, code)
	case chatcore.ReactionZulipExtraEmoji:
		if code != zulipExtraEmoji {
			return chatcore.BadRequest("Invalid emoji code.")
		}
		if name != code {
			return chatcore.BadRequest("Invalid emoji name.")
		}
	case chatcore.ReactionUnicodeEmoji:
		if _, ok := emoji.Name(code); !ok {
			return chatcore.BadRequest("Invalid emoji code.")
		}
		if c, ok := emoji.Code(name); !ok || c != code {
			return chatcore.BadRequest("Invalid emoji name.")
		}
	default:
		return chatcore.BadRequest("Invalid emoji type.")
	}
	return nil
}

func errReactionExists() *chatcore.Error {
	return &chatcore.Error{Code: chatcore.CodeReactionAlreadyExists, Kind: chatcore.KindInvalid, Msg: "Reaction already exists."}
}

func errReactionDoesNotExist() *chatcore.Error {
	return &chatcore.Error{Code: chatcore.CodeReactionDoesNotExist, Kind: chatcore.KindInvalid, Msg: "Reaction doesn't exist."}
}
