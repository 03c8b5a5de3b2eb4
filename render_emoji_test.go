package chatcore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// addRealmEmoji stores a custom emoji of the realm.
func addRealmEmoji(tb testing.TB, st chatcore.Store, realm chatcore.RealmID, name, file string, deactivated bool) {
	tb.Helper()
	chattest.Write(tb, st, func(ctx context.Context, tx chatcore.Tx) error {
		return tx.CreateRealmEmoji(ctx, &chatcore.RealmEmoji{RealmID: realm, Name: name, FileName: file,
			ContentType: "image/png", Deactivated: deactivated, Created: time.Now()})
	})
}

// TestRenderRealmEmoji: :name: shows the sender's realm's active custom
// emoji by its image (Zulip's source_url), before a Unicode emoji of the
// same name; deactivated ones and other realms' stay text. When an emoji is
// added between the send's pre-rendering and its write transaction, the
// message is rendered again with it.
func TestRenderRealmEmoji(t *testing.T) {
	ctx := context.Background()
	for _, addLate := range []bool{false, true} {
		t.Run(fmt.Sprintf("added late %v", addLate), func(t *testing.T) {
			is := is.New(t)
			st := memory.New()
			w := chattest.New(t, chattest.OnStore(st))
			realm := w.AddRealm(t, "zulip")
			other := w.AddRealm(t, "lear")
			sender := w.AddUser(t, realm, "King Hamlet", chatcore.RoleMember)
			to := w.AddUser(t, realm, "Othello", chatcore.RoleMember)
			addRealmEmoji(t, st, realm.ID, "party", "1.png", false)
			addRealmEmoji(t, st, realm.ID, "gone", "2.png", true)
			addRealmEmoji(t, st, other.ID, "theirs", "3.png", false)
			rs := &linkifierReadStore{Store: st}
			if addLate {
				rs.before = func() { addRealmEmoji(t, st, realm.ID, "smile", "4.png", false) }
			} else {
				addRealmEmoji(t, st, realm.ID, "smile", "4.png", false)
			}
			svc := chatcore.New(rs)
			id, err := svc.SendMessage(ctx, sender.ID, chatcore.SendMessageRequest{
				Type: "private", To: new(fmt.Sprintf("[%d]", to.ID)), Content: ":party: :gone: :theirs: :smile: :+1:"})
			is.NoErr(err) // sent
			view, _, err := messages.One(ctx, svc, sender.ID, id, messages.OneRequest{})
			is.NoErr(err) // readable
			src := func(file string) string { return fmt.Sprintf("/user_avatars/%d/emoji/images/%s", realm.ID, file) }
			is.Equal(view.Content, `<p><img alt=":party:" class="emoji" src="`+src("1.png")+`" title="party"> :gone: :theirs: `+
				`<img alt=":smile:" class="emoji" src="`+src("4.png")+`" title="smile"> `+
				`<span aria-label="+1" class="emoji emoji-1f44d" role="img" title="+1">:+1:</span></p>`) // Zulip's HTML
		})
	}
}
