package uploads_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/edits"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store/filestore"
	"github.com/chatcore/chatcore/uploads"
	"github.com/matryer/is"
)

// world is a cast whose Service keeps uploads in a directory of the test.
func world(t *testing.T, open chattest.Open, opts ...chatcore.Option) (*chattest.World, *chattest.Cast) {
	t.Helper()
	d, err := filestore.OpenDir(filepath.Join(t.TempDir(), "up"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	t.Cleanup(func() { uploads.WaitThumbnailsIdle(t) }) // before the directory closes
	w := open(t, chattest.With(append([]chatcore.Option{chatcore.WithFileStorage(d)}, opts...)...))
	return w, w.SeedCast(t)
}

func upload(t *testing.T, w *chattest.World, u *chatcore.User, name, data string) *uploads.Uploaded {
	t.Helper()
	up, err := uploads.Upload(t.Context(), w.Svc, u, name, "", int64(len(data)), strings.NewReader(data))
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	return up
}

// readable reports whether u may open the upload.
func readable(t *testing.T, w *chattest.World, u *chatcore.User, up *uploads.Uploaded) bool {
	t.Helper()
	f, err := uploads.Open(t.Context(), w.Svc, u, up.Attachment.PathID)
	if err != nil {
		var ce *chatcore.Error
		if !errors.As(err, &ce) {
			t.Fatalf("open: %v", err)
		}
		return false
	}
	_ = f.Content.Close()
	return true
}

func str(s string) *string { return &s }

// TestAccess follows the access rule through sends, moves and deletions
// on every store: the uploader, readers of a referencing message (a
// private channel's subscribers only, guests only where subscribed),
// never another realm.
func TestAccess(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := world(t, open)
		pub := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member, c.Admin}})
		priv := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Vault", InviteOnly: true, Subscribers: []*chatcore.User{c.Member, c.Moderator}})
		up := upload(t, w, c.Member, "plan.txt", "the plan")
		is.True(readable(t, w, c.Member, up))    // the uploader
		is.True(!readable(t, w, c.Admin, up))    // nobody else yet
		is.True(!readable(t, w, c.Stranger, up)) // never another realm

		id := w.Send(t, c.Member, priv, "plans", "see "+up.URL)
		is.True(readable(t, w, c.Moderator, up)) // a subscriber of the private channel
		is.True(!readable(t, w, c.Admin, up))    // not a subscriber
		is.True(!readable(t, w, c.Guest, up))
		is.True(w.Message(t, id).Has&chatcore.HasAttachment != 0) // has:attachment from the reference

		// Moved to the public channel: its readers may read the file,
		// the guest (not subscribed) still not.
		is.NoErr(edits.Update(t.Context(), w.Svc, c.Member.ID, id, edits.Request{StreamID: &pub.ID, SendNotificationToNewThread: new(false)}))
		is.True(readable(t, w, c.Admin, up))
		is.True(!readable(t, w, c.Guest, up))
		w.Subscribe(t, pub, c.Guest, 0)
		is.True(readable(t, w, c.Guest, up)) // a subscribed guest

		// Another user may share a file they can read onward.
		dm, err := w.Svc.SendMessage(t.Context(), c.Admin.ID, chatcore.SendMessageRequest{Type: "private", To: str(c.Owner.Email), Content: "fwd " + up.URL})
		is.NoErr(err)
		is.NoErr(edits.Delete(t.Context(), w.Svc, c.Member.ID, id))
		is.True(!readable(t, w, c.Guest, up)) // the channel message is gone
		is.True(readable(t, w, c.Owner, up))  // the direct message still shares it
		is.NoErr(edits.Delete(t.Context(), w.Svc, c.Admin.ID, dm))
		is.True(!readable(t, w, c.Owner, up))
		is.True(readable(t, w, c.Member, up)) // the uploader keeps access

		// A message linking a file its sender cannot read claims nothing.
		other := upload(t, w, c.Moderator, "secret.txt", "mine")
		id2 := w.Send(t, c.Member, pub, "x", "steal "+other.URL)
		is.True(!readable(t, w, c.Admin, other))
		is.Equal(w.Message(t, id2).Has&chatcore.HasAttachment, chatcore.MessageHas(0))
	})
}

// TestTemporaryURL checks the temporary URLs: they serve the file for a
// minute without authentication, and are refused when expired or altered.
func TestTemporaryURL(t *testing.T) {
	is := is.New(t)
	w, c := world(t, chattest.Open(func(tb testing.TB, opts ...chattest.Option) *chattest.World { return chattest.New(tb, opts...) }))
	up := upload(t, w, c.Member, "a.txt", "temporary")
	_, err := uploads.TemporaryURL(t.Context(), w.Svc, c.Admin, up.Attachment.PathID)
	chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindForbidden, "You are not authorized to view this file.")
	u, err := uploads.TemporaryURL(t.Context(), w.Svc, c.Member, up.Attachment.PathID)
	is.NoErr(err)
	parts := strings.Split(strings.TrimPrefix(u, "/user_uploads/temporary/"), "/")
	is.Equal(len(parts), 2)
	is.Equal(parts[1], "a.txt")
	f, err := uploads.OpenTemporary(t.Context(), w.Svc, parts[0], parts[1])
	is.NoErr(err)
	b, _ := io.ReadAll(f.Content)
	_ = f.Content.Close()
	is.Equal(string(b), "temporary")
	w.Clock.Advance(uploads.TemporaryURLLifetime + time.Second)
	_, err = uploads.OpenTemporary(t.Context(), w.Svc, parts[0], parts[1])
	chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid token") // expired
	_, err = uploads.OpenTemporary(t.Context(), w.Svc, "bm90LWEtdG9rZW4.c2ln", "a.txt")
	chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid token") // forged
}

// TestTemporaryURLSharedKey checks that without a configured key every
// Service on one store signs temporary URLs alike (the key is the store's),
// and that a configured key replaces it.
func TestTemporaryURLSharedKey(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := world(t, open)
		up := upload(t, w, c.Member, "a.txt", "shared")
		u, err := uploads.TemporaryURL(t.Context(), w.Svc, c.Member, up.Attachment.PathID)
		is.NoErr(err)
		token, name, _ := strings.Cut(strings.TrimPrefix(u, "/user_uploads/temporary/"), "/")
		other := chatcore.New(w.Store, chatcore.WithFileStorage(w.Svc.FileStorage()), chatcore.WithClock(w.Clock))
		f, err := uploads.OpenTemporary(t.Context(), other, token, name)
		is.NoErr(err) // another Service on the same store accepts it
		b, _ := io.ReadAll(f.Content)
		_ = f.Content.Close()
		is.Equal(string(b), "shared")
		keyed := chatcore.New(w.Store, chatcore.WithFileStorage(w.Svc.FileStorage()), chatcore.WithClock(w.Clock),
			chatcore.WithUploadSigningKey([]byte("configured")))
		_, err = uploads.OpenTemporary(t.Context(), keyed, token, name)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid token") // a configured key signs otherwise
	})
}

// TestQuotaAndCollect checks the realm quota and the collection of
// unreferenced uploads after the grace period, on every store.
func TestQuotaAndCollect(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := world(t, open, chatcore.WithRealmUploadQuota(20))
		pub := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		kept := upload(t, w, c.Member, "kept.txt", "0123456789")
		w.Send(t, c.Member, pub, "t", kept.URL)
		loose := upload(t, w, c.Member, "loose.txt", "abcdefgh")
		_, err := uploads.Upload(t.Context(), w.Svc, c.Member, "more.txt", "", -1, strings.NewReader("xyz"))
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Upload would exceed your organization's upload quota.")
		list, used, err := uploads.List(t.Context(), w.Svc, c.Member)
		is.NoErr(err)
		is.Equal(len(list), 2) // the refused one is not stored
		is.Equal(used, int64(18))

		n, err := uploads.Collect(t.Context(), w.Svc, uploads.UnclaimedGrace, 10)
		is.NoErr(err)
		is.Equal(n, 0) // within the grace period
		w.Clock.Advance(uploads.UnclaimedGrace + time.Hour)
		n, err = uploads.Collect(t.Context(), w.Svc, uploads.UnclaimedGrace, 10)
		is.NoErr(err)
		is.Equal(n, 1) // the unreferenced one
		is.True(readable(t, w, c.Member, kept))
		_, err = uploads.Open(t.Context(), w.Svc, c.Member, loose.Attachment.PathID)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindNotFound, "File not found.")
		_, err = w.Svc.FileStorage().Open(t.Context(), loose.Attachment.PathID)
		is.True(errors.Is(err, chatcore.ErrNotFound)) // the file is gone too
		_, err = uploads.Upload(t.Context(), w.Svc, c.Member, "more.txt", "", -1, bytes.NewReader([]byte("xyz")))
		is.NoErr(err) // room again

		// An upload only an undelivered scheduled message names is kept
		// (Zulip keeps scheduled messages' attachments), until it is sent.
		planned := upload(t, w, c.Member, "plan.txt", "p")
		var smID chatcore.ScheduledMessageID
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			sm := &chatcore.ScheduledMessage{RealmID: c.Realm.ID, SenderID: c.Member.ID, Kind: chatcore.ScheduledSendLater,
				Type: chatcore.MessageTypeStream, StreamID: pub.ID, Topic: "t", Content: planned.URL, DeliverAt: w.Clock.Now().Add(100 * 24 * time.Hour)}
			err := tx.CreateScheduledMessage(ctx, sm)
			smID = sm.ID
			return err
		})
		w.Clock.Advance(uploads.UnclaimedGrace + time.Hour)
		n, err = uploads.Collect(t.Context(), w.Svc, uploads.UnclaimedGrace, 10)
		is.NoErr(err)
		is.Equal(n, 1)                             // more.txt, not the scheduled message's
		is.True(readable(t, w, c.Member, planned)) // kept
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error { return tx.DeleteScheduledMessage(ctx, smID) })
		n, err = uploads.Collect(t.Context(), w.Svc, uploads.UnclaimedGrace, 10)
		is.NoErr(err)
		is.Equal(n, 1) // collected once nothing names it
	})
}
