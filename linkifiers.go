package chatcore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/chatcore/chatcore/internal/linkify"
	"github.com/chatcore/chatcore/internal/urltemplate"
)

// Bounds on a realm's linkifiers. Zulip itself sets none; these are far above
// what real organisations use (tens of linkifiers with templates of a few
// dozen characters) and keep the work of rendering one message bounded.
const (
	// MaxLinkifierURLTemplateLength is the longest URL template, in
	// characters; 2,048 is also the longest URL that browsers have long
	// handled reliably.
	MaxLinkifierURLTemplateLength = 2048
	// MaxLinkifiersPerRealm is the largest number of linkifiers a realm may
	// have.
	MaxLinkifiersPerRealm = 2000
)

// LinkifierView is a linkifier on the wire (GET /realm/linkifiers and the
// realm_linkifiers event).
type LinkifierView struct {
	ID          LinkifierID `json:"id"`
	Pattern     string      `json:"pattern"`
	URLTemplate string      `json:"url_template"`
}

// linkifierAllField is the key Zulip uses in "errors" for checks that involve
// more than one field.
const linkifierAllField = "__all__"

// errLinkifierNotFound is Zulip's error for an unknown linkifier id (HTTP 400).
func errLinkifierNotFound() *Error { return BadRequest("Linkifier not found.") }

// linkifierValidationError builds Zulip's ValidationFailureError: msg is the
// first message, Data["errors"] maps each field to its messages.
func linkifierValidationError(fields []string, msgs map[string][]string) *Error {
	errs := map[string]any{}
	first := ""
	for _, f := range fields {
		if len(msgs[f]) == 0 {
			continue
		}
		errs[f] = msgs[f]
		if first == "" {
			first = msgs[f][0]
		}
	}
	return &Error{Code: CodeBadRequest, Kind: KindInvalid, Msg: first, Data: map[string]any{"errors": errs}}
}

// CheckLinkifier validates a linkifier's pattern and URL template (already
// trimmed) as [Service.AddLinkifier] does, without looking at the realm's
// other linkifiers. A refusal is a BAD_REQUEST [*Error] whose Msg is Zulip's
// first message and whose Data["errors"] maps each offending field
// ("pattern", "url_template" or "__all__" for the pair) to its messages.
func CheckLinkifier(pattern, urlTemplate string) error {
	if _, _, e := validateLinkifier(pattern, urlTemplate); e != nil {
		return e
	}
	return nil
}

// validateLinkifier runs Zulip's model validation of a linkifier and returns
// the compiled pattern and template, or a *Error with Zulip's messages. A URL
// template is refused only for its brace expressions (see [urltemplate.Parse])
// and its length (over [MaxLinkifierURLTemplateLength] characters); literal
// text such as a space or "%zz" is accepted, as in Zulip. A pattern may repeat
// a group name, as RE2 allows; the leftmost group of the name supplies its
// value.
func validateLinkifier(pattern, urlTemplate string) (*regexp.Regexp, *urltemplate.Template, *Error) {
	msgs := map[string][]string{}
	if pattern == "" {
		msgs["pattern"] = append(msgs["pattern"], "This field cannot be blank.")
	}
	if n := utf8.RuneCountInString(urlTemplate); n > MaxLinkifierURLTemplateLength {
		// Django's max-length text, as Zulip words its field limits.
		msgs["url_template"] = append(msgs["url_template"],
			fmt.Sprintf("Ensure this value has at most %d characters (it has %d).", MaxLinkifierURLTemplateLength, n))
		return nil, nil, linkifierValidationError([]string{"pattern", "url_template", linkifierAllField}, msgs)
	}
	tmpl, tmplOK := urltemplate.Parse(urlTemplate)
	if urlTemplate == "" {
		msgs["url_template"] = append(msgs["url_template"], "This field cannot be blank.")
	} else if !tmplOK {
		msgs["url_template"] = append(msgs["url_template"], "Invalid URL template.")
	}
	re, reErr := regexp.Compile(pattern)
	switch {
	case reErr != nil:
		msgs[linkifierAllField] = append(msgs[linkifierAllField], "Bad regular expression: "+linkify.ErrorText(reErr))
	case tmplOK:
		groups := map[string]bool{}
		for _, n := range re.SubexpNames() {
			if n != "" {
				groups[n] = true
			}
		}
		vars := map[string]bool{}
		for _, n := range tmpl.VarNames() {
			vars[n] = true
		}
		if missing := missingNames(vars, groups); missing != "" {
			msgs[linkifierAllField] = append(msgs[linkifierAllField],
				fmt.Sprintf("Group '%s' in URL template is not present in linkifier pattern.", missing))
		} else if missing := missingNames(groups, vars); missing != "" {
			msgs[linkifierAllField] = append(msgs[linkifierAllField],
				fmt.Sprintf("Group '%s' in linkifier pattern is not present in URL template.", missing))
		}
	}
	if len(msgs) > 0 {
		return nil, nil, linkifierValidationError([]string{"pattern", "url_template", linkifierAllField}, msgs)
	}
	return re, tmpl, nil
}

// missingNames returns the alphabetically first name of have that want lacks,
// or "".
func missingNames(have, want map[string]bool) string {
	var missing []string
	for n := range have {
		if !want[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return slices.Min(missing)
}

// LinkifierViews lists the realm's linkifiers in processing order.
func LinkifierViews(ctx context.Context, tx Tx, realm RealmID) ([]LinkifierView, error) {
	ls, err := tx.Linkifiers(ctx, realm)
	if err != nil {
		return nil, err
	}
	out := make([]LinkifierView, 0, len(ls))
	for _, l := range ls {
		out = append(out, LinkifierView{ID: l.ID, Pattern: l.Pattern, URLTemplate: l.URLTemplate})
	}
	return out, nil
}

// linkifiersEvent records the realm_linkifiers event with the realm's current
// list for every active user of the realm.
func linkifiersEvent(ctx context.Context, tx Tx, fx *Effects, realm RealmID) error {
	list, err := LinkifierViews(ctx, tx, realm)
	if err != nil {
		return err
	}
	active := true
	users, err := tx.Users(ctx, UserFilter{RealmID: realm, Active: &active})
	if err != nil {
		return err
	}
	ids := make([]UserID, 0, len(users))
	for _, u := range users {
		ids = append(ids, u.ID)
	}
	fx.Event(realm, ids, map[string]any{"type": "realm_linkifiers", "realm_linkifiers": list})
	return nil
}

// AddLinkifier adds a linkifier to actor's realm and returns its id; it is
// processed after every existing one. pattern and urlTemplate are trimmed.
// Errors: UNAUTHORIZED_PRINCIPAL "Must be an organization administrator";
// BAD_REQUEST with Data["errors"] (field → messages) for "This field cannot be
// blank.", "Invalid URL template.", "Bad regular expression: <RE2 text>",
// "Group '<name>' in URL template is not present in linkifier pattern.",
// "Group '<name>' in linkifier pattern is not present in URL template." and a
// pattern the realm already has ("Realm filter with this Realm and Pattern
// already exists."), a URL template over [MaxLinkifierURLTemplateLength]
// characters ("Ensure this value has at most 2048 characters (it has N).");
// BAD_REQUEST "A realm may have at most 2000 linkifiers." when the realm has
// [MaxLinkifiersPerRealm] already. Existing messages are not re-rendered.
func (s *Service) AddLinkifier(ctx context.Context, actorID UserID, pattern, urlTemplate string) (LinkifierID, error) {
	var id LinkifierID
	err := s.Update(ctx, func(tx Tx, fx *Effects) error {
		u, err := linkifierAdmin(ctx, tx, actorID)
		if err != nil {
			return err
		}
		pattern, urlTemplate, existing, err := checkLinkifierEdit(ctx, tx, u.RealmID, 0, pattern, urlTemplate)
		if err != nil {
			return err
		}
		if len(existing) >= MaxLinkifiersPerRealm {
			return errTooManyLinkifiers()
		}
		order := 0
		for i, l := range existing {
			if i == 0 || l.Order+1 > order {
				order = l.Order + 1
			}
		}
		l := &Linkifier{RealmID: u.RealmID, Pattern: pattern, URLTemplate: urlTemplate, Order: order}
		if err := tx.CreateLinkifier(ctx, l); err != nil {
			if errors.Is(err, ErrConflict) {
				return errDuplicateLinkifier()
			}
			return err
		}
		id = l.ID
		return linkifiersEvent(ctx, tx, fx, u.RealmID)
	})
	return id, err
}

// linkifierAdmin returns the actor (see [actor]) when they administer their
// realm: only administrators change linkifiers.
func linkifierAdmin(ctx context.Context, tx Tx, actorID UserID) (*User, error) {
	u, err := Actor(ctx, tx, actorID)
	if err != nil {
		return nil, err
	}
	if err := requireAdmin(u); err != nil {
		return nil, err
	}
	return u, nil
}

// checkLinkifierEdit trims and validates a pattern and URL template for a
// linkifier of realm, refusing a pattern that a linkifier other than self
// (0 for a new one) already has. It returns the trimmed pair and the realm's
// linkifiers.
func checkLinkifierEdit(ctx context.Context, tx Tx, realm RealmID, self LinkifierID, pattern, urlTemplate string) (string, string, []Linkifier, error) {
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

// errTooManyLinkifiers refuses a linkifier beyond [MaxLinkifiersPerRealm].
func errTooManyLinkifiers() *Error {
	return BadRequestf("A realm may have at most %d linkifiers.", MaxLinkifiersPerRealm)
}

func errDuplicateLinkifier() *Error {
	return linkifierValidationError([]string{linkifierAllField}, map[string][]string{
		linkifierAllField: {"Realm filter with this Realm and Pattern already exists."},
	})
}

// UpdateLinkifier replaces the pattern and URL template of a linkifier of
// actor's realm, keeping its place in the order. Errors: those of
// [Service.AddLinkifier], and "Linkifier not found." for an unknown id or one
// of another realm.
func (s *Service) UpdateLinkifier(ctx context.Context, actorID UserID, id LinkifierID, pattern, urlTemplate string) error {
	return s.Update(ctx, func(tx Tx, fx *Effects) error {
		u, err := linkifierAdmin(ctx, tx, actorID)
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
			if errors.Is(err, ErrConflict) {
				return errDuplicateLinkifier()
			}
			return err
		}
		return linkifiersEvent(ctx, tx, fx, u.RealmID)
	})
}

// linkifierInRealm returns the linkifier id of the realm, or "Linkifier not
// found." when it does not exist or belongs to another realm.
func linkifierInRealm(ctx context.Context, tx Tx, realm RealmID, id LinkifierID) (*Linkifier, error) {
	l, err := tx.Linkifier(ctx, id)
	if errors.Is(err, ErrNotFound) || (err == nil && l.RealmID != realm) {
		return nil, errLinkifierNotFound()
	}
	return l, err
}

// Linkifiers returns the linkifiers of actor's realm in processing order. Any
// active user may list them. Errors: UNAUTHORIZED for a missing or deactivated
// actor.
func (s *Service) Linkifiers(ctx context.Context, actorID UserID) ([]LinkifierView, error) {
	var out []LinkifierView
	err := s.View(ctx, func(tx Tx) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		out, err = LinkifierViews(ctx, tx, u.RealmID)
		return err
	})
	return out, err
}

// RemoveLinkifier deletes a linkifier of actor's realm; the others keep their
// order. Errors: UNAUTHORIZED_PRINCIPAL "Must be an organization
// administrator"; BAD_REQUEST "Linkifier not found." (HTTP 400) for an unknown
// id or one of another realm. Publishes realm_linkifiers with the remaining
// list after commit.
func (s *Service) RemoveLinkifier(ctx context.Context, actorID UserID, id LinkifierID) error {
	return s.Update(ctx, func(tx Tx, fx *Effects) error {
		u, err := linkifierAdmin(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if _, err := linkifierInRealm(ctx, tx, u.RealmID, id); err != nil {
			return err
		}
		if err := tx.DeleteLinkifier(ctx, id); err != nil {
			if errors.Is(err, ErrNotFound) {
				return errLinkifierNotFound()
			}
			return err
		}
		return linkifiersEvent(ctx, tx, fx, u.RealmID)
	})
}

// ReorderLinkifiers sets the processing order of actor's realm's linkifiers:
// ids must list every linkifier of the realm exactly once. Errors:
// UNAUTHORIZED_PRINCIPAL "Must be an organization administrator"; BAD_REQUEST
// "The ordered list must not contain duplicated linkifiers", "The ordered list
// must enumerate all existing linkifiers exactly once" (also for ids of other
// realms); "ordered_linkifier_ids is too long (limit: 10000 items)" over
// [MaxOrderedLinkifierIDs], before any store access. Publishes
// realm_linkifiers after commit.
func (s *Service) ReorderLinkifiers(ctx context.Context, actorID UserID, ids []LinkifierID) error {
	if len(ids) > MaxOrderedLinkifierIDs {
		return TooLongError("ordered_linkifier_ids", MaxOrderedLinkifierIDs)
	}
	return s.Update(ctx, func(tx Tx, fx *Effects) error {
		u, err := linkifierAdmin(ctx, tx, actorID)
		if err != nil {
			return err
		}
		seen := map[LinkifierID]bool{}
		for _, id := range ids {
			if seen[id] {
				return BadRequest("The ordered list must not contain duplicated linkifiers")
			}
			seen[id] = true
		}
		existing, err := tx.Linkifiers(ctx, u.RealmID)
		if err != nil {
			return err
		}
		if len(existing) != len(ids) {
			return BadRequest("The ordered list must enumerate all existing linkifiers exactly once")
		}
		byID := map[LinkifierID]Linkifier{}
		for _, l := range existing {
			if !seen[l.ID] {
				return BadRequest("The ordered list must enumerate all existing linkifiers exactly once")
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
