package chatcore_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// TestMessageQueryIDs checks MessageQuery.IDs on both stores: only the named
// messages of the realm, in id order, with the other conditions applied; an
// empty list selects nothing.
func TestMessageQueryIDs(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		w := open(t)
		realm := w.AddRealm(t, "zulip")
		u := w.AddUser(t, realm, "Iago", chatcore.RoleMember)
		var ids []chatcore.MessageID
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			for range 4 {
				m := chatcore.Message{RealmID: realm.ID, SenderID: u.ID, Type: chatcore.MessageTypePrivate,
					RecipientID: 900, DirectMembers: []chatcore.UserID{u.ID}, Content: "x", SentAt: chattest.Epoch}
				if err := tx.CreateMessage(t.Context(), &m); err != nil {
					return err
				}
				ids = append(ids, m.ID)
			}
			return nil
		})
		for _, tc := range []struct {
			name string
			q    chatcore.MessageQuery
			want []chatcore.MessageID
		}{
			{"named, repeated, unknown", chatcore.MessageQuery{IDs: []chatcore.MessageID{ids[3], ids[1], ids[3], 999999}}, []chatcore.MessageID{ids[1], ids[3]}},
			{"empty list", chatcore.MessageQuery{IDs: []chatcore.MessageID{}}, nil},
			{"with bounds and newest first", chatcore.MessageQuery{IDs: ids, AfterID: ids[0], Newest: true, Limit: 2}, []chatcore.MessageID{ids[3], ids[2]}},
			{"another realm", chatcore.MessageQuery{RealmID: realm.ID + 1, IDs: ids}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				q := tc.q
				if q.RealmID == 0 {
					q.RealmID = realm.ID
				}
				got := w.MessageIDs(t, q)
				if len(got) == 0 {
					got = nil
				}
				is.Equal(got, tc.want) // exactly the named messages that match
			})
		}
	})
}
