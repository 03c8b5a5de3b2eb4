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
}

// ServerSettings returns the server settings of the realm with string id
// realm, or of the realm with the lowest id when realm is "". No such realm
// (an empty store, an unknown string id) gives the zero ServerSettings and no
// error: the answer needs no organisation. It needs no authentication.
// Errors are internal (store, context). Safe for concurrent use.
func (s *Service) ServerSettings(ctx context.Context, realm string) (ServerSettings, error) {
	var out ServerSettings
	err := s.View(ctx, func(tx Tx) error {
		if realm != "" {
			r, err := tx.RealmByStringID(ctx, realm)
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			out.RealmName = r.Name
			return nil
		}
		realms, err := tx.Realms(ctx)
		if err != nil {
			return err
		}
		if len(realms) > 0 {
			out.RealmName = realms[0].Name
		}
		return nil
	})
	return out, err
}
