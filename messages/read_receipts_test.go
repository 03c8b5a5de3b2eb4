package messages_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// TestReadReceipts: who read a message, as Zulip counts it: bots included,
// deactivated users, the sender and users who keep their reads private
// left out; a protected channel's message only for those who can read it;
// one answer for a message many read (timed).
func TestReadReceipts(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := context.Background()
		w := open(t)
		realm := w.AddRealm(t, "acme")
		sender := w.AddUser(t, realm, "Sender", chatcore.RoleMember)
		reader := w.AddUser(t, realm, "Reader", chatcore.RoleMember)
		private := w.AddUser(t, realm, "Private", chatcore.RoleMember, func(u *chatcore.User) { u.Settings.SendReadReceipts = false })
		gone := w.AddUser(t, realm, "Gone", chatcore.RoleMember)
		late := w.AddUser(t, realm, "Late", chatcore.RoleMember)
		bot := w.AddBot(t, realm, "Bot", sender)
		const crowd = 2000
		subs := []*chatcore.User{sender, reader, private, gone, bot}
		for i := range crowd {
			subs = append(subs, w.AddUser(t, realm, fmt.Sprintf("Crowd %d", i), chatcore.RoleMember))
		}
		st := w.AddChannel(t, chattest.Channel{Name: "protected", InviteOnly: true, Protected: true, Subscribers: subs})
		id := w.Send(t, sender, st, "t", "hello")
		w.Subscribe(t, st, late, id+1) // joined after the message
		markRead := func(users ...*chatcore.User) {
			t.Helper()
			w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
				for _, u := range users {
					if err := tx.MarkReadThrough(ctx, u.ID, st.RecipientID, id); err != nil {
						return err
					}
				}
				return nil
			})
		}
		markRead(sender, reader, private, gone, bot)
		w.UpdateUser(t, gone.ID, chattest.Deactivated)
		got, err := messages.ReadReceipts(ctx, w.Svc, reader.ID, id)
		is.NoErr(err)                                       // answered
		is.Equal(got, []chatcore.UserID{reader.ID, bot.ID}) // the reader itself and the bot; not the sender, the private reader or the deactivated one
		_, err = messages.ReadReceipts(ctx, w.Svc, late.ID, id)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid message(s)") // not readable for a later subscriber

		markRead(subs[5:]...)
		start := time.Now()
		got, err = messages.ReadReceipts(ctx, w.Svc, sender.ID, id)
		took := time.Since(start)
		is.NoErr(err)               // answered
		is.Equal(len(got), crowd+2) // everyone who read it
		t.Logf("read receipts of a message %d users read: %v", crowd+2, took)

		// Users in a mute relationship with the asker are left out: one the
		// sender muted, one who muted the sender.
		mutedBySender, muterOfSender := subs[5], subs[6]
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			if err := tx.AddMutedUser(ctx, store.MutedUser{UserID: sender.ID, MutedUserID: mutedBySender.ID, DateMuted: time.Now()}); err != nil {
				return err
			}
			return tx.AddMutedUser(ctx, store.MutedUser{UserID: muterOfSender.ID, MutedUserID: sender.ID, DateMuted: time.Now()})
		})
		got, err = messages.ReadReceipts(ctx, w.Svc, sender.ID, id)
		is.NoErr(err)
		is.Equal(len(got), crowd)                                                                   // both left out
		is.True(!slices.Contains(got, mutedBySender.ID) && !slices.Contains(got, muterOfSender.ID)) // by id
		got, err = messages.ReadReceipts(ctx, w.Svc, reader.ID, id)
		is.NoErr(err)
		is.True(slices.Contains(got, mutedBySender.ID) && slices.Contains(got, muterOfSender.ID)) // others still see them
	})
}
