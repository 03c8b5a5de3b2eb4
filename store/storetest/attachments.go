package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// attachments lists the attachments f selects.
func attachments(tb testing.TB, st store.Store, f store.AttachmentFilter) []store.Attachment {
	tb.Helper()
	var out []store.Attachment
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		as, err := tx.Attachments(ctx, f)
		if err != nil {
			tb.Fatalf("attachments: %v", err)
		}
		for _, a := range as {
			a.Created = a.Created.UTC()
			out = append(out, a)
		}
	})
	return out
}

// refs lists the references of existing messages to the attachments.
func refs(tb testing.TB, st store.Store, ids ...store.AttachmentID) []store.MessageID {
	tb.Helper()
	var out []store.MessageID
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		rs, err := tx.AttachmentRefs(ctx, ids)
		if err != nil {
			tb.Fatalf("attachment refs: %v", err)
		}
		for _, r := range rs {
			out = append(out, r.MessageID)
		}
	})
	return out
}

var attachmentTests = []test{
	{"CreateReadDelete", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a := &store.Attachment{RealmID: w.realm, OwnerID: w.alice, PathID: "1/ab/x/photo.png", FileName: "photo.png",
			ContentType: "image/png", Size: 120, Created: epoch.Add(400 * time.Millisecond)}
		b := &store.Attachment{RealmID: w.realm, OwnerID: w.bob, PathID: "1/cd/y/notes.txt", FileName: "notes.txt",
			ContentType: "text/plain", Size: 30, Created: epoch.Add(time.Hour)}
		z := &store.Attachment{RealmID: w.other, OwnerID: w.zed, PathID: "2/ef/z/a.pdf", FileName: "a.pdf",
			ContentType: "application/pdf", Size: 1000, Created: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, x := range []*store.Attachment{a, b, z} {
				is.NoErr(tx.CreateAttachment(ctx, x)) // created
			}
		})
		is.True(a.ID > 0 && b.ID > a.ID && z.ID > b.ID) // ids in order
		want := *a
		want.Created = epoch
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Attachment(ctx, a.ID)
			is.NoErr(err)
			got.Created = got.Created.UTC()
			is.Equal(*got, want) // every field round-trips, whole seconds
			byPath, err := tx.AttachmentByPath(ctx, b.PathID)
			is.NoErr(err)
			is.Equal(byPath.ID, b.ID) // by path
			_, err = tx.AttachmentByPath(ctx, "1/no/such")
			is.True(errors.Is(err, store.ErrNotFound)) // unknown path
			_, err = tx.Attachment(ctx, 99999)
			is.True(errors.Is(err, store.ErrNotFound)) // unknown id
			used, err := tx.AttachmentSpaceUsed(ctx, w.realm)
			is.NoErr(err)
			is.Equal(used, int64(150)) // the realm's sizes summed
			used, err = tx.AttachmentSpaceUsed(ctx, 98765)
			is.NoErr(err)
			is.Equal(used, int64(0)) // a realm without uploads
		})
		is.Equal(len(attachments(t, st, store.AttachmentFilter{RealmID: w.realm})), 2)                                // by realm
		is.Equal(attachments(t, st, store.AttachmentFilter{OwnerID: w.bob})[0].ID, b.ID)                              // by owner
		is.Equal(len(attachments(t, st, store.AttachmentFilter{PathIDs: []string{a.PathID, z.PathID, "x"}})), 2)      // by path list
		is.Equal(len(attachments(t, st, store.AttachmentFilter{PathIDs: []string{}})), 0)                             // empty path list
		is.Equal(len(attachments(t, st, store.AttachmentFilter{CreatedBefore: epoch.Add(time.Minute)})), 2)           // created before
		is.Equal(attachments(t, st, store.AttachmentFilter{AfterID: a.ID, Limit: 1})[0].ID, b.ID)                     // paging
		is.Equal(len(attachments(t, st, store.AttachmentFilter{AfterID: a.ID, Limit: 1})), 1)                         // limit
		is.Equal(len(attachments(t, st, store.AttachmentFilter{RealmID: w.realm, Unreferenced: true, Limit: 10})), 2) // nothing referenced yet

		ctx := context.Background()
		dup := &store.Attachment{RealmID: w.realm, OwnerID: w.alice, PathID: a.PathID, FileName: "x", ContentType: "x", Created: epoch}
		err := st.Update(ctx, func(tx store.Tx) error { return tx.CreateAttachment(ctx, dup) })
		is.True(errors.Is(err, store.ErrConflict)) // path taken
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.DeleteAttachment(ctx, a.ID)) })
		err = st.Update(ctx, func(tx store.Tx) error { return tx.DeleteAttachment(ctx, a.ID) })
		is.True(errors.Is(err, store.ErrNotFound)) // already deleted
		is.Equal(len(attachments(t, st, store.AttachmentFilter{RealmID: w.realm})), 1)
		again := &store.Attachment{RealmID: w.realm, OwnerID: w.alice, PathID: a.PathID, FileName: "x", ContentType: "x", Created: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.CreateAttachment(ctx, again)) }) // the path is free again
		is.True(again.ID > z.ID)                                                                            // ids are not reused
	}},
	{"ImagePreview", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a := &store.Attachment{RealmID: w.realm, OwnerID: w.alice, PathID: "1/ab/x/photo.png", FileName: "photo.png",
			ContentType: "image/png", Size: 120, Created: epoch, ImageWidth: 640, ImageHeight: 480}
		b := &store.Attachment{RealmID: w.realm, OwnerID: w.alice, PathID: "1/cd/y/notes.txt", FileName: "notes.txt",
			ContentType: "text/plain", Size: 3, Created: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateAttachment(ctx, a))
			is.NoErr(tx.CreateAttachment(ctx, b))
		})
		got := attachments(t, st, store.AttachmentFilter{PathIDs: []string{a.PathID}})[0]
		is.Equal(got.ImageWidth, 640) // the size round-trips
		is.Equal(got.ImageHeight, 480)
		is.Equal(got.Thumbnail, "") // no thumbnail yet
		awaiting := attachments(t, st, store.AttachmentFilter{AwaitingThumbnail: true, Limit: 10})
		is.Equal(len(awaiting), 1)
		is.Equal(awaiting[0].ID, a.ID)                                                                       // the image awaits its thumbnail; the text file none
		is.Equal(len(attachments(t, st, store.AttachmentFilter{AwaitingThumbnail: true, AfterID: a.ID})), 0) // paging
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.SetAttachmentImage(ctx, a.ID, 640, 480, "840x560.png")) // thumbnail made
		})
		got = attachments(t, st, store.AttachmentFilter{PathIDs: []string{a.PathID}})[0]
		is.Equal(got.Thumbnail, "840x560.png")
		is.Equal(got.ImageWidth, 640)
		is.Equal(got.FileName, "photo.png")                                                   // the rest kept
		is.Equal(len(attachments(t, st, store.AttachmentFilter{AwaitingThumbnail: true})), 0) // thumbnailed: awaits nothing
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.SetAttachmentImage(ctx, a.ID, 0, 0, "")) // thumbnail failed: no preview
		})
		got = attachments(t, st, store.AttachmentFilter{PathIDs: []string{a.PathID}})[0]
		is.Equal(got.ImageWidth+got.ImageHeight, 0)
		is.Equal(len(attachments(t, st, store.AttachmentFilter{AwaitingThumbnail: true})), 0) // failed: awaits nothing
		other := attachments(t, st, store.AttachmentFilter{PathIDs: []string{b.PathID}})[0]
		is.Equal(other.ImageWidth, 0) // another upload untouched
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error { return tx.SetAttachmentImage(ctx, 99999, 1, 1, "x") })
		is.True(errors.Is(err, store.ErrNotFound)) // unknown attachment
	}},
	{"References", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		var a, b store.Attachment
		a = store.Attachment{RealmID: w.realm, OwnerID: w.alice, PathID: "1/a/a.txt", FileName: "a.txt", ContentType: "text/plain", Size: 1, Created: epoch}
		b = store.Attachment{RealmID: w.realm, OwnerID: w.alice, PathID: "1/b/b.txt", FileName: "b.txt", ContentType: "text/plain", Size: 1, Created: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateAttachment(ctx, &a))
			is.NoErr(tx.CreateAttachment(ctx, &b))
		})
		ids := send(t, st, channelMessage(w.general, w.alice, "t"), channelMessage(w.general, w.alice, "t"), channelMessage(w.secret, w.alice, "t"))
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.SetMessageAttachments(ctx, ids[0], []store.AttachmentID{a.ID, b.ID, a.ID, 99999})) // repeats and unknown ids ignored
			is.NoErr(tx.SetMessageAttachments(ctx, ids[1], []store.AttachmentID{a.ID}))
		})
		is.Equal(refs(t, st, a.ID), []store.MessageID{ids[0], ids[1]}) // both messages
		is.Equal(refs(t, st, b.ID), []store.MessageID{ids[0]})
		is.Equal(len(refs(t, st)), 0) // no ids, no references
		view(t, st, func(ctx context.Context, tx store.Tx) {
			rs, err := tx.AttachmentRefs(ctx, []store.AttachmentID{b.ID})
			is.NoErr(err)
			is.True(rs[0].DateSent.Equal(epoch)) // the message's date
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.SetMessageAttachments(ctx, ids[0], []store.AttachmentID{b.ID})) // an edit drops a
		})
		is.Equal(refs(t, st, a.ID), []store.MessageID{ids[1]})
		is.Equal(len(attachments(t, st, store.AttachmentFilter{Unreferenced: true})), 0) // both referenced
		update(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: w.realm, IDs: []store.MessageID{ids[1]}}, 10)
			is.NoErr(err)
		})
		is.Equal(len(refs(t, st, a.ID)), 0) // a deleted message references nothing
		un := attachments(t, st, store.AttachmentFilter{Unreferenced: true})
		is.Equal(len(un), 1)
		is.Equal(un[0].ID, a.ID) // a is unreferenced now
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.SetMessageAttachments(ctx, ids[2], []store.AttachmentID{b.ID}))
			is.NoErr(tx.SetMessageAttachments(ctx, ids[0], nil)) // no references left
		})
		is.Equal(refs(t, st, b.ID), []store.MessageID{ids[2]})
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.DeleteAttachment(ctx, b.ID)) })
		is.Equal(len(refs(t, st, b.ID)), 0) // references go with the attachment
	}},
}
