package accounts

// Deactivating users: DELETE /users/{user_id} with its optional clean-ups
// and notification e-mail.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
)

// DeactivationActions are the optional clean-ups of a deactivation (Zulip
// feature level 459). They apply to the target's active bots first, then to
// the target.
type DeactivationActions struct {
	// DeleteProfile renames the user to "Deleted user" and drops the avatar.
	DeleteProfile bool `json:"delete_profile"`
	// DeletePublicChannelMessages deletes the messages the user sent to
	// channels that are not invite-only.
	DeletePublicChannelMessages bool `json:"delete_public_channel_messages"`
	// DeletePrivateChannelMessages deletes the messages the user sent to
	// invite-only channels.
	DeletePrivateChannelMessages bool `json:"delete_private_channel_messages"`
	// DeleteDirectMessages deletes the direct messages (1:1 and group) the
	// user sent.
	DeleteDirectMessages bool `json:"delete_direct_messages"`
}

// kinds returns the message kinds the actions delete; zero when none.
func (a *DeactivationActions) kinds() chatcore.MessageKinds {
	var k chatcore.MessageKinds
	if a == nil {
		return 0
	}
	if a.DeletePublicChannelMessages {
		k |= chatcore.KindPublicChannel
	}
	if a.DeletePrivateChannelMessages {
		k |= chatcore.KindPrivateChannel
	}
	if a.DeleteDirectMessages {
		k |= chatcore.KindDirect
	}
	return k
}

// DeactivateUserRequest holds the parameters of DELETE /users/{user_id}.
type DeactivateUserRequest struct {
	// Actions are extra clean-ups; nil means none.
	Actions *DeactivationActions `json:"actions"`
	// DeactivationNotificationComment, when non-nil, makes the user receive a
	// notification e-mail; a non-empty (after trimming) comment is included
	// in it. At most 2000 characters.
	DeactivationNotificationComment *string `json:"deactivation_notification_comment"`
}

// maxDeactivationCommentLength is Zulip's limit on the notification comment,
// in characters.
const maxDeactivationCommentLength = 2000

// Validate checks the request on its own: a comment longer than 2000
// characters (after trimming surrounding whitespace) gives BAD_REQUEST
// "deactivation_notification_comment is too long (limit: 2000 characters)".
func (r DeactivateUserRequest) Validate() error {
	if c := r.DeactivationNotificationComment; c != nil {
		if !utf8.ValidString(*c) {
			return chatcore.BadRequest("deactivation_notification_comment is not a valid string")
		}
		if utf8.RuneCountInString(strings.TrimSpace(*c)) > maxDeactivationCommentLength {
			return chatcore.BadRequestf("deactivation_notification_comment is too long (limit: %d characters)", maxDeactivationCommentLength)
		}
	}
	return nil
}

// DeactivateUser deactivates the human user target of the actor's realm, as
// DELETE /users/{user_id}. The target's active bots are deactivated first; the
// user's subscriptions become inactive, pending e-mail changes are dropped, the
// invitations they sent are revoked and
// their API key stops working at once. Refusals, checked in Zulip's order:
//   - BAD_REQUEST for a comment over 2000 characters (see Validate), before
//     anything is looked up;
//   - BAD_REQUEST "No such user": unknown id, another realm's, or a bot;
//   - BAD_REQUEST "User is deactivated";
//   - BAD_REQUEST "Insufficient permission": the actor is not an administrator;
//   - UNAUTHORIZED_PRINCIPAL "Must be an organization owner": an
//     administrator on an owner;
//   - BAD_REQUEST "Cannot deactivate the only organization owner".
//
// The whole deactivation is one store transaction: the rules are checked,
// the messages selected by req.Actions are deleted (the bots' first, then the
// user's), and bots and user are deactivated, all or nothing. A refusal, a
// store error or ctx ending (checked between deletion batches) rolls
// everything back: no message is deleted, nobody is deactivated, no event or
// e-mail goes out, and the call can simply be repeated. Messages are deleted
// newest first in batches of the size set by [chatcore.WithTopicDeletion], so memory
// stays bounded, but with no time budget: a user with many messages holds the
// store's writer (blocking other writes) until the deletion finishes, and
// callers that need a bound should give ctx a deadline.
//
// After the commit, and only then, the events go out in this order: for each
// deletion batch its delete_message events (and first_message_id stream
// updates), exactly as topic deletion (package channels) sends them
// ([chatcore.DeletionEffects]); the delete_profile updates; then realm_user
// updates to the realm's remaining active users and realm_bot updates to bot
// owners. The notification e-mail is sent only when
// DeactivationNotificationComment is non-nil. A missing or deactivated actor
// gives an [chatcore.Unauthorized] error. Other errors come from the store or ctx.
func DeactivateUser(ctx context.Context, svc *chatcore.Service, actorID, targetID chatcore.UserID, req DeactivateUserRequest) error {
	// Zulip validates parameters before the view looks anything up.
	if err := req.Validate(); err != nil {
		return err
	}
	kinds := req.Actions.kinds()
	deleteProfile := req.Actions != nil && req.Actions.DeleteProfile
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		t, err := checkDeactivation(ctx, tx, a, targetID)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, t.RealmID)
		if err != nil {
			return err
		}
		bots, err := activeBotsOf(ctx, tx, t)
		if err != nil {
			return err
		}
		notice := deactivationEmail{name: t.FullName, email: t.Email}
		var deactivated []*chatcore.User // bots first, then the user
		for i := range bots {
			deactivated = append(deactivated, &bots[i])
		}
		deactivated = append(deactivated, t)
		if kinds != 0 {
			for _, u := range deactivated {
				f := chatcore.MessageFilter{RealmID: t.RealmID, SenderID: u.ID, Kinds: kinds}
				if err := deleteSentMessages(ctx, svc, tx, fx, a, f); err != nil {
					return err
				}
			}
		}
		var profileEvents []pendingEvent
		if deleteProfile {
			for _, u := range deactivated {
				profileEvents = append(profileEvents, deleteUserProfile(svc, u)...)
			}
		}
		for _, u := range deactivated {
			u.IsActive = false
			if err := tx.UpdateUser(ctx, u); err != nil {
				return err
			}
			if err := tx.DeactivateSubscriptions(ctx, u.ID); err != nil {
				return err
			}
			if err := tx.DeleteEmailChanges(ctx, u.ID); err != nil {
				return err
			}
			if err := revokeInvitesOf(ctx, tx, fx, u); err != nil {
				return err
			}
			if err := deleteUserQueues(ctx, tx, u.ID); err != nil {
				return err
			}
		}
		recipients, err := chatcore.ActiveUserIDs(ctx, tx, t.RealmID)
		if err != nil {
			return err
		}
		// The profile events go out before the deactivation ones, as in
		// Zulip, to the active set known only now unless they name their own.
		for _, ev := range profileEvents {
			if ev.users == nil {
				ev.users = recipients
			}
			fx.Event(ev.realm, ev.users, ev.data)
		}
		for _, u := range deactivated {
			fx.Event(u.RealmID, recipients, map[string]any{
				"type": "realm_user", "op": "update",
				"person": map[string]any{"user_id": u.ID, "is_active": false},
			})
			if u.IsBot {
				fx.Event(u.RealmID, []chatcore.UserID{u.BotOwnerID}, map[string]any{
					"type": "realm_bot", "op": "update",
					"bot": map[string]any{"user_id": u.ID, "is_active": false},
				})
			}
		}
		if c := req.DeactivationNotificationComment; c != nil {
			notice.comment = strings.TrimSpace(*c)
			fx.Mail(deactivationMail(svc, realm, notice))
		}
		return nil
	})
}

// checkDeactivation loads target for a deactivation by a and applies Zulip's
// lookup and permission rules in their order.
func checkDeactivation(ctx context.Context, tx chatcore.Tx, a *chatcore.User, targetID chatcore.UserID) (*chatcore.User, error) {
	t, err := chatcore.UserInRealm(ctx, tx, a.RealmID, targetID)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, chatcore.BadRequest("No such user")
	}
	if err != nil {
		return nil, err
	}
	if t.IsBot {
		return nil, chatcore.BadRequest("No such user")
	}
	if !t.IsActive {
		return nil, chatcore.BadRequest("User is deactivated")
	}
	if !a.Role.IsAdmin() {
		return nil, chatcore.BadRequest("Insufficient permission")
	}
	if t.Role == chatcore.RoleOwner && a.Role != chatcore.RoleOwner {
		return nil, chatcore.ErrMustBeOwner()
	}
	if t.Role == chatcore.RoleOwner {
		owners, err := tx.Users(ctx, chatcore.UserFilter{
			RealmID: t.RealmID, Roles: []chatcore.Role{chatcore.RoleOwner}, Active: new(true), Bot: new(false),
		})
		if err != nil {
			return nil, err
		}
		if len(owners) <= 1 {
			return nil, chatcore.BadRequest("Cannot deactivate the only organization owner")
		}
	}
	return t, nil
}

// activeBotsOf returns the active bots owned by u, ordered by id.
func activeBotsOf(ctx context.Context, tx chatcore.Tx, u *chatcore.User) ([]chatcore.User, error) {
	return tx.Users(ctx, chatcore.UserFilter{RealmID: u.RealmID, BotOwnerID: u.ID, Active: new(true), Bot: new(true)})
}

// deletedUserName is the name delete_profile gives.
const deletedUserName = "Deleted user"

// pendingEvent is an event whose recipients may not be known yet: nil users
// stand for the realm's active users once the deactivation is written.
type pendingEvent struct {
	realm chatcore.RealmID
	users []chatcore.UserID
	data  map[string]any
}

// deleteUserProfile renames u to "Deleted user" and drops the avatar (the
// caller stores u), and returns the profile events: those for all active
// users have nil recipients, which DeactivateUser fills in.
func deleteUserProfile(svc *chatcore.Service, u *chatcore.User) []pendingEvent {
	u.FullName = deletedUserName
	u.FullNameKey = chatcore.FoldKey(deletedUserName)
	u.AvatarSource = chatcore.DeletedAvatarSource
	u.AvatarVersion = chatcore.AvatarVersion(u) + 1
	avatar := svc.AvatarURL(u)
	evs := []pendingEvent{{realm: u.RealmID, data: map[string]any{
		"type": "realm_user", "op": "update",
		"person": map[string]any{"user_id": u.ID, "full_name": u.FullName},
	}}, {realm: u.RealmID, data: map[string]any{
		"type": "realm_user", "op": "update",
		"person": map[string]any{
			"user_id": u.ID, "avatar_source": u.AvatarSource,
			"avatar_url": avatar, "avatar_url_medium": avatar, "avatar_version": u.AvatarVersion,
		},
	}}}
	if u.IsBot {
		evs = append(evs, pendingEvent{realm: u.RealmID, users: []chatcore.UserID{u.BotOwnerID}, data: map[string]any{
			"type": "realm_bot", "op": "update",
			"bot": map[string]any{"user_id": u.ID, "full_name": u.FullName},
		}})
	}
	return evs
}

// deleteUserQueues deletes every event queue of the user.
func deleteUserQueues(ctx context.Context, tx chatcore.Tx, user chatcore.UserID) error {
	qs, err := tx.EventQueues(ctx, chatcore.EventQueueFilter{UserID: user})
	if err != nil {
		return err
	}
	_, err = chatcore.DeleteQueues(ctx, tx, qs)
	return err
}

// deleteSentMessages deletes every message matching f inside tx, newest
// first, in batches of the configured size so that no more than one batch is
// held at a time, and records each batch's events (and first_message_id
// maintenance) with chatcore.DeletionEffects, as topic deletion does; actorUser also
// receives them. ctx is checked before each batch: once it is done, its error
// comes back and the caller's transaction rolls back. f must name a sender and
// at least one kind.
func deleteSentMessages(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, actorUser *chatcore.User, f chatcore.MessageFilter) error {
	if f.Kinds == 0 || f.SenderID == 0 {
		// MessageFilter's zero Kinds means every kind: never let that through.
		return errors.New("chatcore: refusing an unrestricted message deletion")
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		deleted, err := tx.DeleteMessages(ctx, f, svc.TopicBatchSize())
		if err != nil {
			return err
		}
		if err := chatcore.DeletionEffects(ctx, tx, fx, actorUser, f.RealmID, deleted); err != nil {
			return err
		}
		if len(deleted) < svc.TopicBatchSize() {
			// A short batch means nothing matching is left.
			return nil
		}
		// The next batch starts below this one (one transaction: nothing
		// new appears above it).
		f.BeforeID = chatcore.LowestDeleted(deleted)
	}
}

// deactivationEmail holds what the deactivation notice says.
type deactivationEmail struct {
	name, email, comment string
}

// deactivationMail builds the notice sent to a deactivated user.
func deactivationMail(svc *chatcore.Service, realm *chatcore.Realm, n deactivationEmail) chatcore.Email {
	var b strings.Builder
	fmt.Fprintf(&b, "Hello %s,\n\n", n.name)
	fmt.Fprintf(&b, "Your account on %s (%s) has been deactivated by an administrator of the organization.\n", realm.Name, svc.ExternalURL())
	if n.comment != "" {
		b.WriteString("\nThe administrator left this message for you:\n\n")
		for line := range strings.Lines(n.comment) {
			b.WriteString("    " + strings.TrimRight(line, "\n") + "\n")
		}
	}
	b.WriteString("\nYou can no longer log in with this account. If you think this is a mistake, contact the administrators of the organization.\n")
	return chatcore.Email{
		To:      n.email,
		From:    noreplyAddress(svc),
		Subject: "Notification of account deactivation on " + realm.Name,
		Body:    b.String(),
	}
}
