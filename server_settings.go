package chatcore

import (
	"context"
	"errors"
)

// ServerSettings is what GET /server_settings tells a client about the
// organisation before it logs in.
type ServerSettings struct {
	// RealmName is the organisation's name; "" when there is no realm.
	RealmName string
	// RealmIconPath is the path of its icon ([RealmIconPath]; the default
	// icon's when there is no realm).
	RealmIconPath string
	// RealmDescription is its description rendered to HTML, as Zulip's
	// get_realm_rendered_description ("" when it has none).
	RealmDescription string
}

// ServerSettings returns the server settings of the realm with string id
// realm, or of the realm with the lowest id when realm is "". No such realm
// (an empty store, an unknown string id) gives no name, the default icon and
// no error: the answer needs no organisation. It needs no authentication.
// Errors are internal (store, context). Safe for concurrent use.
func (s *Service) ServerSettings(ctx context.Context, realm string) (ServerSettings, error) {
	out := ServerSettings{RealmIconPath: DefaultRealmIconPath}
	err := s.View(ctx, func(tx Tx) error {
		var r *Realm
		if realm != "" {
			var err error
			r, err = tx.RealmByStringID(ctx, realm)
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
		} else {
			realms, err := tx.Realms(ctx)
			if err != nil || len(realms) == 0 {
				return err
			}
			r = &realms[0]
		}
		out.RealmName, out.RealmIconPath = r.Name, RealmIconPath(r)
		if r.Description != "" {
			html, _, _, err := s.RenderMessage(ctx, tx, r.ID, r.Description)
			if err != nil {
				return err
			}
			out.RealmDescription = html
		}
		return nil
	})
	return out, err
}
