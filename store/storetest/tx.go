package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var errAbort = errors.New("storetest: abort")

// snapshot is what rollback tests compare before and after a failed Update.
type snapshot struct {
	realms     []store.Realm
	users      []store.User
	edited     []string
	groups     []store.Group
	streams    []store.Stream
	subs       []store.Subscription
	messages   []store.Message
	direct     []store.RecipientID
	scheduled  []store.ScheduledMessage
	linkifiers []store.Linkifier
	drafts     []store.Draft
	services   []store.BotService
	change     *store.EmailChange
}

// takeSnapshot reads everything the world w and the rollback seed contain.
func takeSnapshot(tb testing.TB, st store.Store, w *world) snapshot {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var s snapshot
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		var err error
		s.realms, err = tx.Realms(ctx)
		is.NoErr(err) // realms read
		s.realms = normAll(s.realms, normRealm)
		s.users, err = tx.Users(ctx, store.UserFilter{})
		is.NoErr(err) // users read
		s.users = normAll(s.users, normUser)
		s.edited, err = tx.EditedSettings(ctx, w.alice)
		is.NoErr(err) // edited settings read
		s.edited = list(s.edited...)
		s.groups, err = tx.Groups(ctx, w.realm)
		is.NoErr(err) // groups read
		s.groups = normAll(s.groups, normGroup)
		s.streams, err = tx.Streams(ctx, w.realm)
		is.NoErr(err) // channels read
		s.streams = normAll(s.streams, normStream)
		s.subs, err = tx.Subscriptions(ctx, 0, w.alice)
		is.NoErr(err) // subscriptions read
		s.subs = list(s.subs...)
		s.messages, err = tx.Messages(ctx, store.MessageQuery{RealmID: w.realm})
		is.NoErr(err) // messages read
		s.messages = normAll(s.messages, normMessage)
		s.direct, err = tx.DirectRecipients(ctx, w.bob)
		is.NoErr(err) // direct conversations read
		s.direct = list(s.direct...)
		s.scheduled, err = tx.ScheduledMessages(ctx, store.ScheduledFilter{})
		is.NoErr(err) // scheduled messages read
		s.scheduled = normAll(s.scheduled, normScheduled)
		s.linkifiers, err = tx.Linkifiers(ctx, w.realm)
		is.NoErr(err) // linkifiers read
		s.linkifiers = list(s.linkifiers...)
		s.drafts, err = tx.Drafts(ctx, w.alice)
		is.NoErr(err) // drafts read
		s.drafts = normAll(s.drafts, normDraft)
		s.services, err = tx.BotServices(ctx, w.bot)
		is.NoErr(err) // bot services read
		s.services = list(s.services...)
		s.change, err = tx.EmailChange(ctx, "key-1")
		if errors.Is(err, store.ErrNotFound) {
			err = nil
		}
		is.NoErr(err) // e-mail change read
		if s.change != nil {
			c := normEmailChange(*s.change)
			s.change = &c
		}
	})
	return s
}

// seedEverything adds one row of every kind to w, so rollback tests can
// modify and delete each.
func seedEverything(tb testing.TB, st store.Store, w *world) {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	dm := directRecipient(tb, st, w.realm, w.alice, w.bob)
	send(tb, st, channelMessage(w.general, w.alice, "t"), directMessage(w.realm, dm, w.alice, w.alice, w.bob))
	update(tb, st, func(ctx context.Context, tx store.Tx) {
		is.NoErr(tx.RecordSettingEdits(ctx, w.alice, []string{"enter_sends"}))                                                                                                                                                                        // edit recorded
		is.NoErr(tx.CreateGroup(ctx, &store.Group{RealmID: w.realm, Name: "g", Members: []store.UserID{w.alice}}))                                                                                                                                    // group created
		is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.general.ID, UserID: w.alice, Active: true}))                                                                                                                                  // subscription stored
		is.NoErr(tx.CreateScheduledMessage(ctx, &store.ScheduledMessage{RealmID: w.realm, SenderID: w.alice, Kind: store.ScheduledSendLater, Type: store.MessageTypeStream, StreamID: w.general.ID, Topic: "t", Content: "later", DeliverAt: epoch})) // scheduled message stored
		is.NoErr(tx.CreateLinkifier(ctx, &store.Linkifier{RealmID: w.realm, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://x/{id}"}))                                                                                                              // linkifier stored
		is.NoErr(tx.CreateDraft(ctx, &store.Draft{UserID: w.alice, Type: store.MessageTypeStream, StreamID: w.general.ID, Topic: "t", Content: "d", LastEdit: epoch}))                                                                                // draft stored
		is.NoErr(tx.CreateEmailChange(ctx, &store.EmailChange{Key: "key-1", UserID: w.alice, RealmID: w.realm, OldEmail: "alice@x.test", NewEmail: "new@x.test", CreatedAt: epoch}))                                                                  // e-mail change stored
	})
}

// writeEverything changes every kind of row through tx, failing the test on
// the first error. The caller then aborts the transaction.
func writeEverything(ctx context.Context, tb testing.TB, tx store.Tx, w *world) {
	is := is.New(tb)
	is.Helper()
	is.NoErr(tx.CreateRealm(ctx, &store.Realm{StringID: "new"})) // realm created
	r, err := tx.Realm(ctx, w.realm)
	is.NoErr(err) // realm read
	r.Name, r.StringID = "changed", "changed"
	is.NoErr(tx.UpdateRealm(ctx, r))                           // realm updated
	is.NoErr(tx.CreateUser(ctx, human(w.realm, "new@x.test"))) // user created
	u, err := tx.User(ctx, w.alice)
	is.NoErr(err) // user read
	u.Email, u.FullName, u.IsActive = "renamed@x.test", "Renamed", false
	u.APIKeyHash = "changed"
	is.NoErr(tx.UpdateUser(ctx, u))                                                  // user updated
	is.NoErr(tx.CreateBotService(ctx, &store.BotService{BotID: w.bot, Name: "svc"})) // service created
	_, err = tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{RealmID: w.realm, UserIDs: []store.UserID{w.alice, w.bob}, Setting: "color_scheme", Value: 3})
	is.NoErr(err)                                                                       // bulk update applied
	is.NoErr(tx.RecordSettingEdits(ctx, w.alice, []string{"color_scheme", "emojiset"})) // edits recorded
	is.NoErr(tx.CreateGroup(ctx, &store.Group{RealmID: w.realm, Name: "g2"}))           // group created
	s, err := tx.Stream(ctx, w.general.ID)
	is.NoErr(err) // channel read
	s.Name, s.InviteOnly = "renamed", true
	is.NoErr(tx.UpdateStream(ctx, s))                                                                           // channel updated
	is.NoErr(tx.CreateStream(ctx, &store.Stream{RealmID: w.realm, Name: "new"}))                                // channel created
	is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.secret.ID, UserID: w.alice, Active: true})) // subscription added
	is.NoErr(tx.DeactivateSubscriptions(ctx, w.alice))                                                          // subscriptions deactivated
	_, err = tx.DeleteMessages(ctx, store.MessageFilter{RealmID: w.realm}, 100)
	is.NoErr(err)                                                           // messages deleted
	is.NoErr(tx.CreateMessage(ctx, channelMessage(w.secret, w.bob, "new"))) // message created
	_, err = tx.DirectRecipient(ctx, w.realm, []store.UserID{w.bob, w.carol})
	is.NoErr(err) // conversation created
	sms, err := tx.ScheduledMessages(ctx, store.ScheduledFilter{})
	is.NoErr(err) // scheduled messages read
	sm := sms[0]
	sm.Delivered, sm.Content = true, "changed"
	is.NoErr(tx.UpdateScheduledMessage(ctx, &sm))                                                                                        // scheduled message updated
	is.NoErr(tx.CreateScheduledMessage(ctx, &store.ScheduledMessage{RealmID: w.realm, Kind: store.ScheduledReminder, DeliverAt: epoch})) // reminder created
	ls, err := tx.Linkifiers(ctx, w.realm)
	is.NoErr(err)                                                                                                 // linkifiers read
	is.NoErr(tx.DeleteLinkifier(ctx, ls[0].ID))                                                                   // linkifier deleted
	is.NoErr(tx.CreateLinkifier(ctx, &store.Linkifier{RealmID: w.realm, Pattern: "x", URLTemplate: "https://x"})) // linkifier created
	_, err = tx.DeleteDrafts(ctx, w.alice)
	is.NoErr(err)                                                                                 // drafts deleted
	is.NoErr(tx.CreateDraft(ctx, &store.Draft{UserID: w.alice, Content: "new", LastEdit: epoch})) // draft created
	is.NoErr(tx.DeleteEmailChanges(ctx, w.alice))                                                 // e-mail changes deleted
	is.NoErr(tx.DeleteScheduledMessage(ctx, sm.ID))                                               // scheduled message deleted
}

var txTests = []test{
	{"RollbackOnError", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		seedEverything(t, st, w)
		before := takeSnapshot(t, st, w)
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			writeEverything(ctx, t, tx, w)
			return fmt.Errorf("wrapped: %w", errAbort)
		})
		is.True(errors.Is(err, errAbort))        // Update returns fn's error
		is.Equal(takeSnapshot(t, st, w), before) // every write of the failed transaction is undone
		// The rolled-back transaction left no unique key behind.
		is.NoErr(st.Update(ctx, func(tx store.Tx) error {
			if err := tx.CreateRealm(ctx, &store.Realm{StringID: "new"}); err != nil {
				return err
			}
			return tx.CreateUser(ctx, human(w.realm, "new@x.test"))
		})) // the names used by the failed transaction are free
	}},
	{"RollbackOnPanic", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		seedEverything(t, st, w)
		before := takeSnapshot(t, st, w)
		ctx := context.Background()
		recovered := func() (p any) {
			defer func() { p = recover() }()
			_ = st.Update(ctx, func(tx store.Tx) error {
				writeEverything(ctx, t, tx, w)
				panic("boom")
			})
			return nil
		}()
		is.Equal(recovered, "boom")              // the panic propagates out of Update
		is.Equal(takeSnapshot(t, st, w), before) // every write of the panicking transaction is undone
		is.NoErr(st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateRealm(ctx, &store.Realm{StringID: "after-panic"})
		})) // the store stays usable after a panic
	}},
	{"CommitKeepsWrites", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		seedEverything(t, st, w)
		before := takeSnapshot(t, st, w)
		update(t, st, func(ctx context.Context, tx store.Tx) { writeEverything(ctx, t, tx, w) })
		after := takeSnapshot(t, st, w)
		is.True(len(after.realms) == len(before.realms)+1) // the new realm is kept
		is.Equal(len(after.drafts), 1)                     // the drafts were replaced by one
		is.Equal(after.change, (*store.EmailChange)(nil))  // the e-mail change is gone
		is.Equal(len(after.messages), 1)                   // only the new message is left
	}},
	{"ViewIsReadOnly", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		seedEverything(t, st, w)
		before := takeSnapshot(t, st, w)
		ctx := context.Background()
		writes := []struct {
			name string
			fn   func(tx store.Tx) error
		}{
			{"CreateRealm", func(tx store.Tx) error { return tx.CreateRealm(ctx, &store.Realm{StringID: "v"}) }},
			{"UpdateRealm", func(tx store.Tx) error {
				return tx.UpdateRealm(ctx, &store.Realm{ID: w.realm, StringID: "acme", Name: "v"})
			}},
			{"CreateUser", func(tx store.Tx) error { return tx.CreateUser(ctx, human(w.realm, "v@x.test")) }},
			{"UpdateUser", func(tx store.Tx) error {
				u := human(w.realm, "alice@x.test")
				u.ID, u.FullName = w.alice, "v"
				return tx.UpdateUser(ctx, u)
			}},
			{"CreateBotService", func(tx store.Tx) error {
				return tx.CreateBotService(ctx, &store.BotService{BotID: w.bot, Name: "v"})
			}},
			{"UpdateSettingBulk", func(tx store.Tx) error {
				_, err := tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{RealmID: w.realm, UserIDs: []store.UserID{w.bob}, Setting: "color_scheme", Value: 3})
				return err
			}},
			{"RecordSettingEdits", func(tx store.Tx) error { return tx.RecordSettingEdits(ctx, w.bob, []string{"emojiset"}) }},
			{"CreateGroup", func(tx store.Tx) error { return tx.CreateGroup(ctx, &store.Group{RealmID: w.realm, Name: "v"}) }},
			{"CreateStream", func(tx store.Tx) error { return tx.CreateStream(ctx, &store.Stream{RealmID: w.realm, Name: "v"}) }},
			{"UpdateStream", func(tx store.Tx) error {
				s := *w.general
				s.Description = "v"
				return tx.UpdateStream(ctx, &s)
			}},
			{"PutSubscription", func(tx store.Tx) error {
				return tx.PutSubscription(ctx, store.Subscription{StreamID: w.secret.ID, UserID: w.alice, Active: true})
			}},
			{"DeactivateSubscriptions", func(tx store.Tx) error { return tx.DeactivateSubscriptions(ctx, w.alice) }},
			{"CreateMessage", func(tx store.Tx) error { return tx.CreateMessage(ctx, channelMessage(w.general, w.bob, "v")) }},
			{"DeleteMessages", func(tx store.Tx) error {
				_, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: w.realm}, 10)
				return err
			}},
			{"DirectRecipient", func(tx store.Tx) error {
				_, err := tx.DirectRecipient(ctx, w.realm, []store.UserID{w.bob, w.carol})
				return err
			}},
			{"CreateScheduledMessage", func(tx store.Tx) error {
				return tx.CreateScheduledMessage(ctx, &store.ScheduledMessage{RealmID: w.realm, Kind: store.ScheduledReminder, DeliverAt: epoch})
			}},
			{"CreateLinkifier", func(tx store.Tx) error {
				return tx.CreateLinkifier(ctx, &store.Linkifier{RealmID: w.realm, Pattern: "v", URLTemplate: "https://v"})
			}},
			{"CreateDraft", func(tx store.Tx) error { return tx.CreateDraft(ctx, &store.Draft{UserID: w.bob, Content: "v"}) }},
			{"DeleteDrafts", func(tx store.Tx) error { _, err := tx.DeleteDrafts(ctx, w.alice); return err }},
			{"DeleteDraftsOf", func(tx store.Tx) error {
				_, err := tx.DeleteDraftsOf(ctx, []store.UserID{w.alice})
				return err
			}},
			{"CreateEmailChange", func(tx store.Tx) error {
				return tx.CreateEmailChange(ctx, &store.EmailChange{Key: "v", UserID: w.bob, RealmID: w.realm})
			}},
			{"DeleteEmailChanges", func(tx store.Tx) error { return tx.DeleteEmailChanges(ctx, w.alice) }},
		}
		for _, wr := range writes {
			t.Run(wr.name, func(t *testing.T) {
				is := is.New(t)
				var inner error
				err := st.View(ctx, func(tx store.Tx) error {
					inner = wr.fn(tx)
					return nil
				})
				is.NoErr(err)         // the View itself succeeds
				is.True(inner != nil) // a write through a read-only transaction fails
			})
		}
		is.Equal(takeSnapshot(t, st, w), before) // nothing was written
	}},
	{"ViewDuringUpdate", func(t *testing.T, st store.Store) {
		// A View running while an Update is in progress either waits for it or
		// sees the state before it, never half of it. Whichever it does, it never
		// sees a write that is later rolled back.
		for _, commit := range []bool{true, false} {
			is := is.New(t)
			ctx := context.Background()
			written, release := make(chan struct{}), make(chan struct{})
			updateErr := make(chan error, 1)
			go func() {
				updateErr <- st.Update(ctx, func(tx store.Tx) error {
					if err := tx.CreateRealm(ctx, &store.Realm{StringID: fmt.Sprint("first-", commit)}); err != nil {
						return err
					}
					close(written)
					<-release
					if err := tx.CreateRealm(ctx, &store.Realm{StringID: fmt.Sprint("second-", commit)}); err != nil {
						return err
					}
					if !commit {
						return errAbort
					}
					return nil
				})
			}()
			<-written
			type seen struct {
				n   int
				err error
			}
			seenc := make(chan seen, 1)
			go func() {
				var s seen
				s.err = st.View(ctx, func(tx store.Tx) error {
					for _, name := range []string{"first-", "second-"} {
						_, err := tx.RealmByStringID(ctx, fmt.Sprint(name, commit))
						if err == nil {
							s.n++
						} else if !errors.Is(err, store.ErrNotFound) {
							return err
						}
					}
					return nil
				})
				seenc <- s
			}()
			var got seen
			early := false
			select {
			case got = <-seenc:
				early = true
			case <-time.After(50 * time.Millisecond):
			}
			close(release)
			err := <-updateErr
			if !early {
				got = <-seenc
			}
			is.NoErr(got.err) // the View succeeds
			if commit {
				is.NoErr(err) // the Update commits
			} else {
				is.True(errors.Is(err, errAbort)) // the Update rolls back
			}
			is.True(got.n == 0 || got.n == 2 && commit) // the View sees all of a committed transaction or none of it
			if early {
				is.Equal(got.n, 0) // a View that finished during the Update saw none of its writes
			}
		}
	}},
	{"ConcurrentUpdates", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ctx := context.Background()
		const workers, rounds = 8, 25
		type result struct {
			ids []store.MessageID
			err error
		}
		results := make(chan result, workers*rounds)
		counts := make(chan int, workers*rounds)
		var wg sync.WaitGroup
		for g := range workers {
			wg.Go(func() {
				for i := range rounds {
					var r result
					r.err = st.Update(ctx, func(tx store.Tx) error {
						r.ids = nil
						for range 2 {
							m := channelMessage(w.general, w.alice, "load")
							if err := tx.CreateMessage(ctx, m); err != nil {
								return err
							}
							r.ids = append(r.ids, m.ID)
						}
						if err := tx.CreateUser(ctx, human(w.realm, fmt.Sprintf("u%d-%d@x.test", g, i))); err != nil {
							return err
						}
						if i%5 == 4 {
							return errAbort // every fifth transaction rolls back
						}
						return nil
					})
					results <- r
					_ = st.View(ctx, func(tx store.Tx) error {
						msgs, err := tx.Messages(ctx, store.MessageQuery{RealmID: w.realm})
						if err == nil {
							counts <- len(msgs)
						}
						return err
					})
				}
			})
		}
		wg.Wait()
		close(results)
		close(counts)
		committed := map[store.MessageID]bool{}
		for r := range results {
			if r.err != nil {
				is.True(errors.Is(r.err, errAbort)) // only the deliberate rollbacks fail
				continue
			}
			for _, id := range r.ids {
				is.True(!committed[id]) // every committed message got its own id
				committed[id] = true
			}
		}
		wantCommitted := workers * rounds * 4 / 5
		is.Equal(len(committed), 2*wantCommitted) // two messages per committed transaction
		for n := range counts {
			is.Equal(n%2, 0) // a View never sees half of a transaction
		}
		view(t, st, func(ctx context.Context, tx store.Tx) {
			msgs, err := tx.Messages(ctx, store.MessageQuery{RealmID: w.realm})
			is.NoErr(err)                       // messages listed
			is.Equal(len(msgs), len(committed)) // exactly the committed messages are stored
			for _, m := range msgs {
				is.True(committed[m.ID]) // no message of a rolled-back transaction is stored
			}
			users, err := tx.Users(ctx, store.UserFilter{RealmID: w.realm})
			is.NoErr(err)                         // users listed
			is.Equal(len(users), 4+wantCommitted) // the world's users and bot plus one per committed transaction
		})
	}},
	{"CancelledContext", func(t *testing.T, st store.Store) {
		is := is.New(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		called := false
		err := st.Update(ctx, func(tx store.Tx) error {
			called = true
			return tx.CreateRealm(ctx, &store.Realm{StringID: "cancelled"})
		})
		is.True(errors.Is(err, context.Canceled)) // Update reports the cancelled context
		is.Equal(called, false)                   // fn does not run
		err = st.View(ctx, func(tx store.Tx) error {
			called = true
			return nil
		})
		is.True(errors.Is(err, context.Canceled)) // View reports the cancelled context
		is.Equal(called, false)                   // fn does not run
		view(t, st, func(ctx context.Context, tx store.Tx) {
			rs, err := tx.Realms(ctx)
			is.NoErr(err)        // realms listed
			is.Equal(len(rs), 0) // nothing was written
		})
	}},
	{"CancelledDuringUpdate", func(t *testing.T, st store.Store) {
		is := is.New(t)
		ctx, cancel := context.WithCancel(context.Background())
		err := st.Update(ctx, func(tx store.Tx) error {
			err := tx.CreateRealm(ctx, &store.Realm{StringID: "cancelled"})
			cancel()
			return err
		})
		is.True(err != nil) // a transaction whose context ends before commit fails
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.RealmByStringID(ctx, "cancelled")
			is.True(errors.Is(err, store.ErrNotFound)) // and writes nothing
		})
	}},
	{"ValuesAreCopies", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		g := &store.Group{RealmID: w.realm, Name: "g", Members: []store.UserID{w.alice}, Subgroups: []store.GroupID{}}
		m := channelMessage(w.general, w.alice, "t")
		m.Reactions = []store.Reaction{{UserID: w.bob, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}}
		m.EditHistory = []store.EditHistoryEntry{{UserID: w.alice, Timestamp: epoch, Topic: ptr("t"), PrevTopic: ptr("old")}}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateGroup(ctx, g))   // group created
			is.NoErr(tx.CreateMessage(ctx, m)) // message created
		})
		// Changing the values given to Create must not change the store.
		g.Members[0] = w.carol
		m.Reactions[0].EmojiName = "changed"
		*m.EditHistory[0].PrevTopic = "changed"
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Group(ctx, g.ID)
			is.NoErr(err)                                  // group found
			is.Equal(got.Members, []store.UserID{w.alice}) // members as created
			got.Members[0] = w.bob                         // changing a returned value must not change the store either
			msg, err := tx.Message(ctx, m.ID)
			is.NoErr(err)                                  // message found
			is.Equal(msg.Reactions[0].EmojiName, "smile")  // reaction as created
			is.Equal(*msg.EditHistory[0].PrevTopic, "old") // edit history as created
			msg.Reactions[0].EmojiName = "changed"
			*msg.EditHistory[0].PrevTopic = "changed"
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Group(ctx, g.ID)
			is.NoErr(err)                                  // group found
			is.Equal(got.Members, []store.UserID{w.alice}) // members unchanged by a caller's edit
			msg, err := tx.Message(ctx, m.ID)
			is.NoErr(err)                                  // message found
			is.Equal(msg.Reactions[0].EmojiName, "smile")  // reaction unchanged by a caller's edit
			is.Equal(*msg.EditHistory[0].PrevTopic, "old") // edit history unchanged by a caller's edit
		})
	}},
}
