// Package channels serves chatcore's channels, subscriptions and topic
// deletion: Zulip's GET /streams, GET /streams/{stream_id}, GET
// /users/me/{stream_id}/topics, POST /streams/{stream_id}/delete_topic and
// the /users/me/subscriptions endpoints as a Go API over a [chatcore.Service].
package channels

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/chatcore/chatcore"
)

// Channel limits, as Zulip sets them.
const (
	// MaxNameLength bounds a channel name, in characters.
	MaxNameLength = 60
	// MaxDescriptionLength bounds a channel description, in characters.
	MaxDescriptionLength = 1024
)

// ListRequest holds the parameters of GET /streams; nil fields take
// Zulip's defaults.
type ListRequest struct {
	IncludePublic           *bool `json:"include_public"`
	IncludeWebPublic        *bool `json:"include_web_public"`
	IncludeSubscribed       *bool `json:"include_subscribed"`
	ExcludeArchived         *bool `json:"exclude_archived"`
	IncludeAll              *bool `json:"include_all"`
	IncludeAllActive        *bool `json:"include_all_active"`
	IncludeDefault          *bool `json:"include_default"`
	IncludeOwnerSubscribed  *bool `json:"include_owner_subscribed"`
	IncludeCanAccessContent *bool `json:"include_can_access_content"`
}

func flag(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// List returns the channels GET /streams lists for the actor, by name:
// public ones (include_public, default true; never for guests), those the
// actor is subscribed to (include_subscribed, default true), those their
// bot's owner is subscribed to (include_owner_subscribed, bots only), or
// every channel (include_all or include_all_active, administrators only);
// archived ones only with exclude_archived false. chatcore has no web-public
// or default channels: include_web_public adds nothing and include_default
// marks every channel is_default false. Errors: BAD_REQUEST "User not
// authorized for this query" for include_all from a non-administrator;
// UNAUTHORIZED for a missing or deactivated actor.
func List(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req ListRequest) ([]View, error) {
	var out []View
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		w, err := loadChannelWorld(ctx, tx, u, nil)
		if err != nil {
			return err
		}
		out, err = list(ctx, svc, tx, u, req, w)
		return err
	})
	return out, err
}

// list is [List] for the actor u in tx, whose channel world is w.
func list(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, u *chatcore.User, req ListRequest, w *channelWorld) ([]View, error) {
	var out []View
	err := func() error {
		all := flag(req.IncludeAll, false) || flag(req.IncludeAllActive, false)
		if all && !u.Role.IsAdmin() {
			return chatcore.BadRequest("User not authorized for this query")
		}
		defaults, err := tx.DefaultStreams(ctx, u.RealmID)
		if err != nil {
			return err
		}
		owner := map[chatcore.StreamID]bool{}
		if flag(req.IncludeOwnerSubscribed, false) && u.IsBot && u.BotOwnerID != 0 {
			subs, err := tx.Subscriptions(ctx, 0, u.BotOwnerID)
			if err != nil {
				return err
			}
			for _, sub := range subs {
				owner[sub.StreamID] = sub.Active
			}
		}
		out = []View{}
		for i := range w.streams {
			st := &w.streams[i]
			if st.IsArchived && flag(req.ExcludeArchived, true) {
				continue
			}
			ok := all || owner[st.ID] ||
				flag(req.IncludeSubscribed, true) && w.subscribed(st.ID) ||
				flag(req.IncludePublic, true) && !st.InviteOnly && u.Role != chatcore.RoleGuest ||
				flag(req.IncludeCanAccessContent, false) && w.canSeeMetadata(st) && (w.subscribed(st.ID) || !st.InviteOnly)
			if !ok {
				continue
			}
			v, err := channelView(ctx, svc, tx, st, len(w.subscribers[st.ID]), w.p, w.admins)
			if err != nil {
				return err
			}
			if flag(req.IncludeDefault, false) {
				v.IsDefault = new(slices.Contains(defaults, st.ID))
			}
			out = append(out, v)
		}
		slices.SortFunc(out, func(a, b View) int { return cmp.Compare(a.Name, b.Name) })
		return nil
	}()
	return out, err
}

// errInvalidChannelID is Zulip's answer for a channel that does not exist or
// that the actor may not access.
func errInvalidChannelID() *chatcore.Error { return chatcore.BadRequest("Invalid channel ID") }

// Get returns one channel as GET /streams/{stream_id} shows it, to
// anyone who may know of it (public channels for non-guests, subscribers,
// administrators). Errors: BAD_REQUEST "Invalid channel ID" for a channel
// that does not exist, belongs to another realm or is hidden from the
// actor; UNAUTHORIZED for a missing or deactivated actor.
func Get(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.StreamID) (View, error) {
	var out View
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, st, err := actorAndChannel(ctx, tx, actorID, id)
		if err != nil {
			return err
		}
		w, err := loadChannelWorld(ctx, tx, u, nil)
		if err != nil {
			return err
		}
		if !w.canSeeMetadata(st) {
			return errInvalidChannelID()
		}
		out, err = channelView(ctx, svc, tx, st, len(w.subscribers[st.ID]), w.p, w.admins)
		return err
	})
	return out, err
}

// TopicView is one topic of GET /users/me/{stream_id}/topics.
type TopicView struct {
	Name  string             `json:"name"`
	MaxID chatcore.MessageID `json:"max_id"`
}

// Topics returns the topics of the channel the actor can read, newest
// first, each with the id of its newest message the actor can read (in a
// channel with protected history, from the actor's first visible message
// on). The empty topic is named by the realm's empty-topic display name
// unless allowEmptyTopicName. Errors: BAD_REQUEST "Invalid channel ID" for a
// channel that does not exist or whose messages the actor may not read;
// UNAUTHORIZED for a missing or deactivated actor.
func Topics(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.StreamID, allowEmptyTopicName bool) ([]TopicView, error) {
	var out []TopicView
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, st, err := actorAndChannel(ctx, tx, actorID, id)
		if err != nil {
			return err
		}
		acc, err := chatcore.StreamAccessFor(ctx, tx, u, st)
		if err != nil {
			return err
		}
		if !acc.OK {
			return errInvalidChannelID()
		}
		topics, err := tx.StreamTopics(ctx, st.ID, acc.MinID)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		out = make([]TopicView, 0, len(topics))
		for _, t := range topics {
			name := t.Name
			if name == "" && !allowEmptyTopicName {
				name = chatcore.DisplayedEmptyTopic(realm)
			}
			out = append(out, TopicView{Name: name, MaxID: t.MaxID})
		}
		return nil
	})
	return out, err
}

// actorAndChannel reads the actor and channel id of the actor's realm; a
// channel that does not exist there is "Invalid channel ID".
func actorAndChannel(ctx context.Context, tx chatcore.Tx, actorID chatcore.UserID, id chatcore.StreamID) (*chatcore.User, *chatcore.Stream, error) {
	u, err := chatcore.Actor(ctx, tx, actorID)
	if err != nil {
		return nil, nil, err
	}
	st, err := chatcore.StreamInRealm(ctx, tx, u.RealmID, id)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, nil, errInvalidChannelID()
	}
	if err != nil {
		return nil, nil, err
	}
	return u, st, nil
}
