package chatcore_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

func TestServerSettings(t *testing.T) {
	svc := chattest.LoadWorld(t, memory.New())
	for _, tt := range []struct {
		realm, want string
	}{
		{"", "Acme"}, // the realm with the lowest id
		{"globex", "Globex"},
		{"nowhere", ""},
	} {
		is := is.New(t)
		got, err := svc.ServerSettings(t.Context(), tt.realm)
		is.NoErr(err)                    // no realm is not an error
		is.Equal(got.RealmName, tt.want) // the realm's name
	}
	is := is.New(t)
	got, err := svc.ServerSettings(t.Context(), "")
	is.NoErr(err)
	is.Equal(got.RealmDescription, "") // none written
	is.NoErr(svc.Store().Update(t.Context(), func(tx chatcore.Tx) error {
		r, err := tx.Realm(t.Context(), 1)
		if err != nil {
			return err
		}
		r.Description = "We make **anvils**."
		return tx.UpdateRealm(t.Context(), r)
	}))
	got, err = svc.ServerSettings(t.Context(), "")
	is.NoErr(err)
	is.Equal(got.RealmDescription, "<p>We make <strong>anvils</strong>.</p>") // rendered
	got, err = chatcore.New(memory.New()).ServerSettings(t.Context(), "")
	is.NoErr(err)                                                                        // an empty store answers too
	is.Equal(got, chatcore.ServerSettings{RealmIconPath: chatcore.DefaultRealmIconPath}) // with nothing to say but the default icon
}
