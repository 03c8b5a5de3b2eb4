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
}

// ServerSettings returns the server settings of the realm with string id
// realm, or of the realm with the lowest id when realm is "". No such realm
// (an empty store, an unknown string id) gives no name, the default icon and
// no error: the answer needs no organisation. It needs no authentication.
// Errors are internal (store, context). Safe for concurrent use.
func (s *Service) ServerSettings(ctx context.Context, realm string) (ServerSettings, error) {
	out := ServerSettings{RealmIconPath: DefaultRealmIconPath}
	err := s.View(ctx, func(tx Tx) error {
		if realm != "" {
			r, err := tx.RealmByStringID(ctx, realm)
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			out.RealmName, out.RealmIconPath = r.Name, RealmIconPath(r)
			return nil
		}
		realms, err := tx.Realms(ctx)
		if err != nil {
			return err
		}
		if len(realms) > 0 {
			out.RealmName, out.RealmIconPath = realms[0].Name, RealmIconPath(&realms[0])
		}
		return nil
	})
	return out, err
}
