package chatcore_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/alertwords"
	"github.com/chatcore/chatcore/edits"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/mutedusers"
	"github.com/matryer/is"
)

// sentRecorder is a MessageHook keeping what it is told.
type sentRecorder struct {
	mu   sync.Mutex
	sent []chatcore.SentMessage
}

func (r *sentRecorder) MessageSent(_ context.Context, m chatcore.SentMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, m)
}

// TestSendPersonalFlags: a send marks the message read for the receivers
// who muted its sender (and tells hooks they are muting, so that nobody
// notifies them), and flags has_alert_word for the receivers whose alert
// word it holds, in channels and direct messages alike, and again after an
// edit of the content.
func TestSendPersonalFlags(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := context.Background()
		rec := &sentRecorder{}
		w, org, _ := chattest.NewVerona(t, open, chatcore.WithMessageHook(func(*chatcore.Service) chatcore.MessageHook { return rec }))
		is.NoErr(mutedusers.Mute(ctx, w.Svc, org.Ham.ID, org.Owner.ID))
		_, err := alertwords.Add(ctx, w.Svc, org.Ophelia.ID, alertwords.Request{AlertWords: []string{"Rosemary"}})
		is.NoErr(err)
		id := sendTopic(t, w, org, org.Owner, "garden", "There's rosemary, that's for remembrance")
		flags := func(u *chatcore.User, id chatcore.MessageID) chatcore.MessageFlags {
			var f chatcore.MessageFlags
			err := w.Svc.View(ctx, func(tx chatcore.Tx) error {
				ums, err := tx.UserMessages(ctx, u.ID, []chatcore.MessageID{id})
				if err == nil && len(ums) == 1 {
					f = ums[0].Flags
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		is.Equal(flags(org.Ham, id)&chatcore.FlagRead, chatcore.FlagRead)                     // read for the muter
		is.Equal(flags(org.Ham, id)&chatcore.FlagHasAlertWord, chatcore.MessageFlags(0))      // not their word
		is.Equal(flags(org.Ophelia, id)&chatcore.FlagRead, chatcore.MessageFlags(0))          // unread for the others
		is.Equal(flags(org.Ophelia, id)&chatcore.FlagHasAlertWord, chatcore.FlagHasAlertWord) // her word, in any case
		is.Equal(rec.sent[len(rec.sent)-1].MutedBy, []chatcore.UserID{org.Ham.ID})            // hooks know who muted the sender
		sent := w.SendDM(t, org.Owner, "rosemary!", org.Ham, org.Ophelia)
		is.Equal(flags(org.Ham, sent)&chatcore.FlagRead, chatcore.FlagRead)                     // a sent direct message is read for the muter
		is.Equal(flags(org.Ophelia, sent)&chatcore.FlagHasAlertWord, chatcore.FlagHasAlertWord) // and alerts her
		is.True(!slices.Contains(rec.sent[len(rec.sent)-1].MutedBy, org.Ophelia.ID))
		// An edit recomputes has_alert_word, as Zulip's
		// update_user_message_flags does, and keeps the other flags.
		pansies, again := "There's pansies, that's for thoughts", "Rosemary again"
		is.NoErr(edits.Update(ctx, w.Svc, org.Owner.ID, id, edits.Request{Content: &pansies}))
		is.Equal(flags(org.Ophelia, id)&chatcore.FlagHasAlertWord, chatcore.MessageFlags(0)) // her word gone, the flag too
		is.Equal(flags(org.Ham, id)&chatcore.FlagRead, chatcore.FlagRead)                    // the muter's read kept
		is.NoErr(edits.Update(ctx, w.Svc, org.Owner.ID, id, edits.Request{Content: &again}))
		is.Equal(flags(org.Ophelia, id)&chatcore.FlagHasAlertWord, chatcore.FlagHasAlertWord) // back with the word
		is.Equal(flags(org.Ham, id)&chatcore.FlagHasAlertWord, chatcore.MessageFlags(0))      // only for her
		other := sendTopic(t, w, org, org.Ophelia, "garden", "rosemary")
		is.Equal(flags(org.Ham, other)&chatcore.FlagRead, chatcore.MessageFlags(0)) // another sender's message stays unread
		is.Equal(len(rec.sent[len(rec.sent)-1].MutedBy), 0)
	})
}
