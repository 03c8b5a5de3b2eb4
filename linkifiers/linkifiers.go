// Package linkifiers serves a realm's linkifiers: Zulip's GET, POST, PATCH
// and DELETE /realm/linkifiers and /realm/filters as a Go API over a
// [chatcore.Service].
//
// A linkifier turns text matching its pattern into a link made from its URL
// template. Administrators add, change, reorder and remove them; every
// change publishes the realm_linkifiers event with the realm's whole list
// after commit. Rendering applies them to new messages and topics (the
// compiled linkifiers and their cache are the Service's); existing messages
// are not re-rendered.
package linkifiers

import (
	"context"
	"errors"
	"strings"

	"github.com/chatcore/chatcore"
)

// View is a linkifier on the wire (GET /realm/linkifiers and the
// realm_linkifiers event).
type View struct {
	ID          chatcore.LinkifierID `json:"id"`
	Pattern     string               `json:"pattern"`
	URLTemplate string               `json:"url_template"`
}

// Views lists the realm's linkifiers in processing order, as tx sees them.
func Views(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID) ([]View, error) {
	ls, err := tx.Linkifiers(ctx, realm)
	if err != nil {
		return nil, err
	}
	out := make([]View, 0, len(ls))
	for _, l := range ls {
		out = append(out, View{ID: l.ID, Pattern: l.Pattern, URLTemplate: l.URLTemplate})
	}
	return out, nil
}

// linkifiersEvent records the realm_linkifiers event with the realm's current
// list for every active user of the realm.
func linkifiersEvent(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, realm chatcore.RealmID) error {
	list, err := Views(ctx, tx, realm)
	if err != nil {
		return err
	}
	active := true
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: realm, Active: &active})
	if err != nil {
		return err
	}
	ids := make([]chatcore.UserID, 0, len(users))
	for _, u := range users {
		ids = append(ids, u.ID)
	}
	fx.Event(realm, ids, map[string]any{"type": "realm_linkifiers", "realm_linkifiers": list})
	return nil
}

// List returns the linkifiers of actor's realm in processing order (GET
// /realm/linkifiers). Any active user may list them. Errors: UNAUTHORIZED
// for a missing or deactivated actor.
func List(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) ([]View, error) {
	var out []View
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		out, err = Views(ctx, tx, u.RealmID)
		return err
	})
	return out, err
}

// Add adds a linkifier to actor's realm and returns its id (POST
// /realm/filters); it is processed after every existing one. pattern and
// urlTemplate are trimmed. Errors: UNAUTHORIZED_PRINCIPAL "Must be an
// organization administrator"; BAD_REQUEST with Data["errors"] (field →
// messages) for "This field cannot be blank.", "Invalid URL template.", "Bad
// regular expression: <RE2 text>", "Group '<name>' in URL template is not
// present in linkifier pattern.", "Group '<name>' in linkifier pattern is not
// present in URL template." and a pattern the realm already has ("Realm
// filter with this Realm and Pattern already exists."), a URL template over
// [MaxURLTemplateLength] characters ("Ensure this value has at most 2048
// characters (it has N)."); BAD_REQUEST "A realm may have at most 2000
// linkifiers." when the realm has [MaxPerRealm] already. Existing messages
// are not re-rendered. Publishes realm_linkifiers after commit.
func Add(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, pattern, urlTemplate string) (chatcore.LinkifierID, error) {
	var id chatcore.LinkifierID
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.AuthorizedActor(ctx, tx, actorID, chatcore.AccessAdmin)
		if err != nil {
			return err
		}
		pattern, urlTemplate, existing, err := checkLinkifierEdit(ctx, tx, u.RealmID, 0, pattern, urlTemplate)
		if err != nil {
			return err
		}
		if len(existing) >= MaxPerRealm {
			return errTooManyLinkifiers()
		}
		order := 0
		for i, l := range existing {
			if i == 0 || l.Order+1 > order {
				order = l.Order + 1
			}
		}
		l := &chatcore.Linkifier{RealmID: u.RealmID, Pattern: pattern, URLTemplate: urlTemplate, Order: order}
		if err := tx.CreateLinkifier(ctx, l); err != nil {
			if errors.Is(err, chatcore.ErrConflict) {
				return errDuplicateLinkifier()
			}
			return err
		}
		id = l.ID
		return linkifiersEvent(ctx, tx, fx, u.RealmID)
	})
	return id, err
}

// checkLinkifierEdit trims and validates a pattern and URL template for a
// linkifier of realm, refusing a pattern that a linkifier other than self
// (0 for a new one) already has. It returns the trimmed pair and the realm's
// linkifiers.
func checkLinkifierEdit(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID, self chatcore.LinkifierID, pattern, urlTemplate string) (string, string, []chatcore.Linkifier, error) {
	pattern, urlTemplate = strings.TrimSpace(pattern), strings.TrimSpace(urlTemplate)
	if _, _, verr := validateLinkifier(pattern, urlTemplate); verr != nil {
		return "", "", nil, verr
	}
	existing, err := tx.Linkifiers(ctx, realm)
	if err != nil {
		return "", "", nil, err
	}
	for _, o := range existing {
		if o.ID != self && o.Pattern == pattern {
			return "", "", nil, errDuplicateLinkifier()
		}
	}
	return pattern, urlTemplate, existing, nil
}

// errTooManyLinkifiers refuses a linkifier beyond [MaxPerRealm].
func errTooManyLinkifiers() *chatcore.Error {
	return chatcore.BadRequestf("A realm may have at most %d linkifiers.", MaxPerRealm)
}

// errDuplicateLinkifier refuses a pattern the realm already has.
func errDuplicateLinkifier() *chatcore.Error {
	return linkifierValidationError([]string{linkifierAllField}, map[string][]string{
		linkifierAllField: {"Realm filter with this Realm and Pattern already exists."},
	})
}

// Update replaces the pattern and URL template of a linkifier of actor's
// realm, keeping its place in the order (PATCH /realm/filters/{filter_id}).
// Errors: those of [Add], and "Linkifier not found." for an unknown id or one
// of another realm. Publishes realm_linkifiers after commit.
func Update(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.LinkifierID, pattern, urlTemplate string) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.AuthorizedActor(ctx, tx, actorID, chatcore.AccessAdmin)
		if err != nil {
			return err
		}
		l, err := linkifierInRealm(ctx, tx, u.RealmID, id)
		if err != nil {
			return err
		}
		pattern, urlTemplate, _, err := checkLinkifierEdit(ctx, tx, u.RealmID, l.ID, pattern, urlTemplate)
		if err != nil {
			return err
		}
		l.Pattern, l.URLTemplate = pattern, urlTemplate
		if err := tx.UpdateLinkifier(ctx, l); err != nil {
			if errors.Is(err, chatcore.ErrConflict) {
				return errDuplicateLinkifier()
			}
			return err
		}
		return linkifiersEvent(ctx, tx, fx, u.RealmID)
	})
}

// linkifierInRealm returns the linkifier id of the realm, or "Linkifier not
// found." when it does not exist or belongs to another realm.
func linkifierInRealm(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID, id chatcore.LinkifierID) (*chatcore.Linkifier, error) {
	l, err := tx.Linkifier(ctx, id)
	if errors.Is(err, chatcore.ErrNotFound) || (err == nil && l.RealmID != realm) {
		return nil, errLinkifierNotFound()
	}
	return l, err
}

// Remove deletes a linkifier of actor's realm; the others keep their order
// (DELETE /realm/filters/{filter_id}). Errors: UNAUTHORIZED_PRINCIPAL "Must be
// an organization administrator"; BAD_REQUEST "Linkifier not found." (HTTP
// 400) for an unknown id or one of another realm. Publishes realm_linkifiers
// with the remaining list after commit.
func Remove(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.LinkifierID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.AuthorizedActor(ctx, tx, actorID, chatcore.AccessAdmin)
		if err != nil {
			return err
		}
		if _, err := linkifierInRealm(ctx, tx, u.RealmID, id); err != nil {
			return err
		}
		if err := tx.DeleteLinkifier(ctx, id); err != nil {
			if errors.Is(err, chatcore.ErrNotFound) {
				return errLinkifierNotFound()
			}
			return err
		}
		return linkifiersEvent(ctx, tx, fx, u.RealmID)
	})
}

// Reorder sets the processing order of actor's realm's linkifiers (PATCH
// /realm/linkifiers): ids must list every linkifier of the realm exactly
// once. Errors: UNAUTHORIZED_PRINCIPAL "Must be an organization
// administrator"; BAD_REQUEST "The ordered list must not contain duplicated
// linkifiers", "The ordered list must enumerate all existing linkifiers
// exactly once" (also for ids of other realms); "ordered_linkifier_ids is too
// long (limit: 10000 items)" over [chatcore.MaxOrderedLinkifierIDs], before
// any store access. Publishes realm_linkifiers after commit.
func Reorder(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, ids []chatcore.LinkifierID) error {
	if len(ids) > chatcore.MaxOrderedLinkifierIDs {
		return chatcore.TooLongError("ordered_linkifier_ids", chatcore.MaxOrderedLinkifierIDs)
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.AuthorizedActor(ctx, tx, actorID, chatcore.AccessAdmin)
		if err != nil {
			return err
		}
		seen := map[chatcore.LinkifierID]bool{}
		for _, id := range ids {
			if seen[id] {
				return chatcore.BadRequest("The ordered list must not contain duplicated linkifiers")
			}
			seen[id] = true
		}
		existing, err := tx.Linkifiers(ctx, u.RealmID)
		if err != nil {
			return err
		}
		if len(existing) != len(ids) {
			return chatcore.BadRequest("The ordered list must enumerate all existing linkifiers exactly once")
		}
		byID := map[chatcore.LinkifierID]chatcore.Linkifier{}
		for _, l := range existing {
			if !seen[l.ID] {
				return chatcore.BadRequest("The ordered list must enumerate all existing linkifiers exactly once")
			}
			byID[l.ID] = l
		}
		for i, id := range ids {
			l := byID[id]
			if l.Order == i {
				continue
			}
			l.Order = i
			if err := tx.UpdateLinkifier(ctx, &l); err != nil {
				return err
			}
		}
		return linkifiersEvent(ctx, tx, fx, u.RealmID)
	})
}
