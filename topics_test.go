package chatcore_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

func TestDeleteTopicRequiresAdministrator(t *testing.T) {
	e := newOpsEnv(t)
	st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
	ids := e.postN(t, st, "castle", e.member, 2)
	for _, u := range []*chatcore.User{e.mod, e.member, e.guest, e.bot} {
		t.Run(u.FullName, func(t *testing.T) {
			is := is.New(t)
			_, err := e.svc.DeleteTopic(t.Context(), u.ID, st.ID, "castle")
			wantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization administrator")
			// The role check comes before the channel lookup.
			_, err = e.svc.DeleteTopic(t.Context(), u.ID, 999999, "castle")
			wantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization administrator")
			is.Equal(e.messageIDs(t, st, nil), ids) // nothing deleted
		})
	}
	t.Run("owner", func(t *testing.T) {
		is := is.New(t)
		res, err := e.svc.DeleteTopic(t.Context(), e.owner.ID, st.ID, "castle")
		is.NoErr(err)                              // owners are administrators
		is.True(res.Complete)                      // everything deleted
		is.Equal(len(e.messageIDs(t, st, nil)), 0) // topic gone
	})
	t.Run("deactivated actor", func(t *testing.T) {
		is := is.New(t)
		gone := e.createUser(t, e.realm, "Former Admin", chatcore.RoleAdministrator)
		e.write(t, func(tx chatcore.Tx) error {
			gone.IsActive = false
			return tx.UpdateUser(context.Background(), gone)
		})
		_, err := e.svc.DeleteTopic(t.Context(), gone.ID, st.ID, "castle")
		ce, ok := errors.AsType[*chatcore.Error](err)
		is.True(ok)                                     // a *chatcore.Error
		is.Equal(ce.Kind, chatcore.KindUnauthenticated) // a deactivated actor is not authenticated
	})
}

func TestDeleteTopicInvalidChannel(t *testing.T) {
	e := newOpsEnv(t)
	foreign := e.createChannel(t, opsChannel{name: "Elsinore", realm: e.otherRealm, subscribers: []*chatcore.User{e.stranger}})
	archived := e.createChannel(t, opsChannel{name: "Old", archived: true, subscribers: []*chatcore.User{e.admin}})
	private := e.createChannel(t, opsChannel{name: "Secret", inviteOnly: true, subscribers: []*chatcore.User{e.member}})
	left := e.createChannel(t, opsChannel{name: "Left", inviteOnly: true, subscribers: []*chatcore.User{e.member}})
	e.write(t, func(tx chatcore.Tx) error {
		return tx.PutSubscription(context.Background(), chatcore.Subscription{StreamID: left.ID, UserID: e.admin.ID, Active: false})
	})
	foreignIDs := e.postN(t, foreign, "castle", e.stranger, 1)
	privateIDs := e.postN(t, private, "castle", e.member, 1)
	tests := []struct {
		name   string
		stream chatcore.StreamID
	}{
		{"unknown", 999999},
		{"other realm", foreign.ID},
		{"archived", archived.ID},
		{"private, not subscribed", private.ID},
		{"private, subscription inactive", left.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, tt.stream, "castle")
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid channel ID")
		})
	}
	is := is.New(t)
	is.Equal(e.messageIDs(t, foreign, nil), foreignIDs) // other realm untouched
	is.Equal(e.messageIDs(t, private, nil), privateIDs) // private channel untouched
	is.Equal(len(e.events.ofType("delete_message")), 0) // no events for refused requests
}

func TestDeleteTopicDeletesOnlyTheTopic(t *testing.T) {
	is := is.New(t)
	e := newOpsEnv(t)
	st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member, e.mod}})
	other := e.createChannel(t, opsChannel{name: "Verona", subscribers: []*chatcore.User{e.member}})
	keepFirst := e.post(t, st, "Other", e.member, "before")
	castle := []chatcore.MessageID{
		e.post(t, st, "Castle", e.member, "one"),
		e.post(t, st, "castle", e.mod, "two"),
		e.post(t, st, "CASTLE", e.member, "three"),
	}
	keepLast := e.post(t, st, "castles", e.member, "after")
	elsewhere := e.post(t, other, "castle", e.member, "same topic, other channel")

	res, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "cAsTlE")
	is.NoErr(err)         // deletion succeeds
	is.True(res.Complete) // one call is enough

	is.Equal(e.messageIDs(t, st, nil), []chatcore.MessageID{keepFirst, keepLast}) // only the topic's messages went
	is.Equal(e.messageIDs(t, other, nil), []chatcore.MessageID{elsewhere})        // other channels untouched
	err = e.base.View(t.Context(), func(tx chatcore.Tx) error {
		_, err := tx.Message(t.Context(), castle[0])
		return err
	})
	is.True(errors.Is(err, chatcore.ErrNotFound)) // the message and its reactions are gone

	evs := e.events.ofType("delete_message")
	is.Equal(len(evs), 1) // one batch, one event
	is.Equal(evs[0].RealmID, e.realm.ID)
	is.Equal(evs[0].Data, map[string]any{
		"type": "delete_message", "message_type": "stream", "stream_id": st.ID,
		"topic": "castle", "message_ids": castle,
	}) // Zulip's delete_message payload, ids sorted, topic lower-cased
	want := []chatcore.UserID{e.admin.ID, e.mod.ID, e.member.ID}
	slices.Sort(want)
	is.Equal(evs[0].UserIDs, want)                         // the subscribers plus the acting admin
	is.Equal(len(e.events.ofType("stream")), 0)            // the channel's first message survived: no update
	is.Equal(e.stream(t, st.ID).FirstMessageID, keepFirst) // first_message_id unchanged

	t.Run("missing topic", func(t *testing.T) {
		is := is.New(t)
		e.events.reset()
		res, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "no such topic")
		is.NoErr(err)                                       // not an error
		is.True(res.Complete)                               // nothing to do is complete
		is.Equal(len(e.events.ofType("delete_message")), 0) // no event for an empty batch
	})
}

func TestDeleteTopicUnicodeCaseFolding(t *testing.T) {
	opsEachStore(t, func(t *testing.T, newOpsEnv opsEnvMaker) {
		e := newOpsEnv(t)
		st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
		tests := []struct{ stored, asked, event string }{
			{"Straße", "STRASSE", "straße"},
			{"ÄBC", "äbc", "äbc"},
			{"ΚΆΣΤΡΟ", "κάστρο", "κάστρο"},
		}
		for _, tt := range tests {
			t.Run(tt.stored, func(t *testing.T) {
				is := is.New(t)
				e.events.reset()
				id := e.post(t, st, tt.stored, e.member, "hi")
				res, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, tt.asked)
				is.NoErr(err)                                     // deletion succeeds
				is.True(res.Complete)                             // complete
				is.Equal(len(e.messageIDs(t, st, &tt.stored)), 0) // matched with full case folding
				evs := e.events.ofType("delete_message")
				is.Equal(len(evs), 1)                                          // one event
				is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{id}) // the message
				is.Equal(evs[0].Data["topic"], tt.event)                       // the stored topic, lower-cased
			})
		}
	})
}

func TestDeleteTopicEmptyTopic(t *testing.T) {
	for _, name := range []string{"general chat", ""} {
		t.Run("name "+name, func(t *testing.T) {
			is := is.New(t)
			e := newOpsEnv(t)
			st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
			e.postN(t, st, "", e.member, 3)
			general := e.post(t, st, "general", e.member, "not the empty topic")
			res, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, name)
			is.NoErr(err)                                                     // deletion succeeds
			is.True(res.Complete)                                             // complete
			is.Equal(e.messageIDs(t, st, nil), []chatcore.MessageID{general}) // only the empty topic went
			is.Equal(e.events.ofType("delete_message")[0].Data["topic"], "")  // the event names the empty topic
		})
	}
	t.Run("custom display name", func(t *testing.T) {
		is := is.New(t)
		e := newOpsEnv(t)
		realm := e.createRealm(t, "custom", "lobby")
		admin := e.createUser(t, realm, "Custom Admin", chatcore.RoleAdministrator)
		st := e.createChannel(t, opsChannel{name: "Hall", realm: realm, subscribers: []*chatcore.User{admin}})
		empty := e.postN(t, st, "", admin, 2)
		e.post(t, st, "general chat", admin, "a topic really named general chat")

		_, err := e.svc.DeleteTopic(t.Context(), admin.ID, st.ID, "general chat")
		is.NoErr(err)                             // deletion succeeds
		is.Equal(e.messageIDs(t, st, nil), empty) // "general chat" is an ordinary topic in this realm
		_, err = e.svc.DeleteTopic(t.Context(), admin.ID, st.ID, "lobby")
		is.NoErr(err)                              // deletion succeeds
		is.Equal(len(e.messageIDs(t, st, nil)), 0) // the realm's display name addresses the empty topic
	})
}

func TestDeleteTopicProtectedHistory(t *testing.T) {
	opsEachStore(t, func(t *testing.T, newOpsEnv opsEnvMaker) {
		is := is.New(t)
		e := newOpsEnv(t)
		st := e.createChannel(t, opsChannel{name: "Secret", inviteOnly: true, protected: true, subscribers: []*chatcore.User{e.member}})
		before := e.postN(t, st, "plans", e.member, 2)
		joined := e.post(t, st, "plans", e.member, "sent when the admin joined")
		e.subscribe(t, st, e.admin, joined)
		late := e.createUser(t, e.realm, "Late Joiner", chatcore.RoleMember)
		after := e.post(t, st, "plans", e.member, "sent later")
		e.subscribe(t, st, late, after+1) // sees none of the topic

		res, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "plans")
		is.NoErr(err)                              // deletion succeeds
		is.True(res.Complete)                      // complete
		is.Equal(e.messageIDs(t, st, nil), before) // messages from before the admin joined survive
		evs := e.events.ofType("delete_message")
		is.Equal(len(evs), 1)                                                     // one batch
		is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{joined, after}) // only what the admin could see
		want := []chatcore.UserID{e.admin.ID, e.member.ID}
		slices.Sort(want)
		is.Equal(evs[0].UserIDs, want)              // a subscriber who saw none of them is not told
		is.Equal(len(e.events.ofType("stream")), 0) // the oldest message survived

		t.Run("public channel with protected history, not subscribed", func(t *testing.T) {
			is := is.New(t)
			odd := e.createChannel(t, opsChannel{name: "Odd", protected: true, subscribers: []*chatcore.User{e.member}})
			ids := e.postN(t, odd, "plans", e.member, 2)
			res, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, odd.ID, "plans")
			is.NoErr(err)                            // allowed
			is.True(res.Complete)                    // nothing visible, nothing to do
			is.Equal(e.messageIDs(t, odd, nil), ids) // nothing deleted
		})
	})
}

func TestDeleteTopicTimeBudget(t *testing.T) {
	opsEachStore(t, func(t *testing.T, newOpsEnv opsEnvMaker) {
		is := is.New(t)
		e := newOpsEnv(t, chatcore.WithTopicDeletion(2, 25*time.Second))
		st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
		ids := e.postN(t, st, "big", e.member, 5)
		keep := e.post(t, st, "small", e.member, "stays")
		e.clock.setStep(10 * time.Second) // every clock reading takes 10 s

		// Readings: start t0; t10 and t20 allow a batch each; t30 is past t0+25s.
		res, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "big")
		is.NoErr(err)                                      // a timeout is not an error
		is.True(!res.Complete)                             // the budget ran out mid-topic
		is.Equal(e.messageIDs(t, st, new("big")), ids[:1]) // exactly the two finished batches are deleted
		evs := e.events.ofType("delete_message")
		is.Equal(len(evs), 2)                                                      // one event per finished batch
		is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{ids[3], ids[4]}) // newest first
		is.Equal(evs[1].Data["message_ids"], []chatcore.MessageID{ids[1], ids[2]}) // then the next two

		res, err = e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "big")
		is.NoErr(err)                                                  // repeating continues
		is.True(res.Complete)                                          // and finishes
		is.Equal(len(e.messageIDs(t, st, new("big"))), 0)              // the topic is gone
		is.Equal(e.messageIDs(t, st, nil), []chatcore.MessageID{keep}) // other topics survive
		is.Equal(e.stream(t, st.ID).FirstMessageID, keep)              // first_message_id moved to the survivor

		t.Run("many batches within the budget", func(t *testing.T) {
			is := is.New(t)
			e := newOpsEnv(t, chatcore.WithTopicDeletion(3, time.Minute))
			st := e.createChannel(t, opsChannel{name: "Denmark"})
			e.postN(t, st, "big", e.member, 10)
			res, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "big")
			is.NoErr(err)                                       // deletion succeeds
			is.True(res.Complete)                               // the clock stands still: no timeout
			is.Equal(len(e.events.ofType("delete_message")), 4) // 3+3+3+1
			is.Equal(len(e.messageIDs(t, st, nil)), 0)          // everything deleted
		})
	})
}

func TestDeleteTopicFirstMessageID(t *testing.T) {
	opsEachStore(t, func(t *testing.T, newOpsEnv opsEnvMaker) {
		is := is.New(t)
		e := newOpsEnv(t)
		st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member, e.guest}})
		old := e.postN(t, st, "old", e.member, 2)
		newer := e.postN(t, st, "new", e.member, 2)
		is.Equal(e.stream(t, st.ID).FirstMessageID, old[0]) // fixture keeps first_message_id

		_, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "old")
		is.NoErr(err)                                         // deletion succeeds
		is.Equal(e.stream(t, st.ID).FirstMessageID, newer[0]) // recomputed from what is left
		evs := e.events.ofType("stream", "op", "update")
		is.Equal(len(evs), 1) // one channel update
		is.Equal(evs[0].Data, map[string]any{
			"type": "stream", "op": "update", "property": "first_message_id",
			"value": newer[0], "stream_id": st.ID, "name": "Denmark",
		}) // Zulip's stream update payload
		is.Equal(evs[0].UserIDs, opsSorted(e.admin.ID, e.member.ID, e.guest.ID))              // the delete event's users: subscribers and the admin
		is.Equal(e.log.all()[:3], []string{"commit", "event stream", "event delete_message"}) // Zulip's order: channel update, then deletion

		e.events.reset()
		_, err = e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "new")
		is.NoErr(err)                                                      // deletion succeeds
		is.Equal(e.stream(t, st.ID).FirstMessageID, chatcore.MessageID(0)) // no message left
		evs = e.events.ofType("stream", "op", "update")
		is.Equal(len(evs), 1)               // one channel update
		is.Equal(evs[0].Data["value"], nil) // null when the channel is empty
	})
}

func TestDeleteTopicEventsOnlyAfterCommit(t *testing.T) {
	is := is.New(t)
	e := newOpsEnv(t, chatcore.WithTopicDeletion(2, time.Minute))
	st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
	e.postN(t, st, "t", e.member, 4)
	_, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "t")
	is.NoErr(err) // deletion succeeds
	is.Equal(e.log.all(), []string{
		"commit", "event delete_message", // newest two
		"commit", "event stream", "event delete_message", // oldest two, first_message_id recomputed
		"commit", // the empty batch that finds nothing left
	}) // each batch's events follow its commit
}

func TestDeleteTopicRollsBackAFailedBatch(t *testing.T) {
	opsEachStore(t, func(t *testing.T, newOpsEnv opsEnvMaker) {
		is := is.New(t)
		e := newOpsEnv(t, chatcore.WithTopicDeletion(2, time.Minute))
		st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
		ids := e.postN(t, st, "t", e.member, 4)
		e.store.failOn.Store(e.store.calls.Load() + 2) // the second batch fails at commit

		_, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "t")
		is.True(errors.Is(err, errOpsInjected))                                       // the store failure is returned
		is.Equal(e.messageIDs(t, st, nil), ids[:2])                                   // the first batch stays deleted, the second is rolled back
		is.Equal(e.stream(t, st.ID).FirstMessageID, ids[0])                           // first_message_id change rolled back too
		is.Equal(e.log.all(), []string{"commit", "event delete_message", "rollback"}) // no event for the failed batch
		evs := e.events.ofType("delete_message")
		is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{ids[2], ids[3]}) // the committed batch only

		e.store.failOn.Store(0)
		res, err := e.svc.DeleteTopic(t.Context(), e.admin.ID, st.ID, "t")
		is.NoErr(err)                              // a repeated call works
		is.True(res.Complete)                      // and completes
		is.Equal(len(e.messageIDs(t, st, nil)), 0) // everything deleted
	})
}

func TestDeleteMessagesBatched(t *testing.T) {
	opsEachStore(t, func(t *testing.T, newOpsEnv opsEnvMaker) {
		is := is.New(t)
		e := newOpsEnv(t, chatcore.WithTopicDeletion(2, time.Minute))
		a := e.createChannel(t, opsChannel{name: "Alpha", subscribers: []*chatcore.User{e.member, e.mod}})
		b := e.createChannel(t, opsChannel{name: "Beta", inviteOnly: true, subscribers: []*chatcore.User{e.member}})
		keepA := e.post(t, a, "x", e.mod, "someone else's")
		inA := e.postN(t, a, "X", e.member, 3)
		inB := e.post(t, b, "Y", e.member, "private")
		dm1 := e.dm(t, e.member, "hello", e.admin)
		dm2 := e.dm(t, e.member, "hello all", e.admin, e.mod)
		dm3 := e.dm(t, e.member, "again", e.admin)
		keepDM := e.dm(t, e.admin, "reply", e.member)

		f := chatcore.MessageFilter{RealmID: e.realm.ID, SenderID: e.member.ID}
		t.Run("deadline passed", func(t *testing.T) {
			is := is.New(t)
			done, err := e.svc.DeleteMessagesBatchedForTest(t.Context(), e.admin, f, seedTime.Add(-time.Second))
			is.NoErr(err)                             // not an error
			is.True(!done)                            // nothing done before the deadline check
			is.Equal(len(e.messageIDs(t, a, nil)), 4) // nothing deleted
		})

		done, err := e.svc.DeleteMessagesBatchedForTest(t.Context(), nil, f, time.Time{})
		is.NoErr(err)                                                  // deletion succeeds
		is.True(done)                                                  // no deadline: runs to the end
		is.Equal(e.messageIDs(t, a, nil), []chatcore.MessageID{keepA}) // only the sender's messages went
		is.Equal(len(e.messageIDs(t, b, nil)), 0)                      // in every channel
		is.Equal(e.message(t, keepDM).Content, "reply")                // others' direct messages stay

		type group struct {
			ids   []chatcore.MessageID
			users []chatcore.UserID
			topic any
		}
		var got []group
		for _, ev := range e.events.ofType("delete_message") {
			got = append(got, group{ev.Data["message_ids"].([]chatcore.MessageID), ev.UserIDs, ev.Data["topic"]})
		}
		pair := []chatcore.UserID{e.admin.ID, e.member.ID}
		trio := []chatcore.UserID{e.admin.ID, e.mod.ID, e.member.ID}
		slices.Sort(pair)
		slices.Sort(trio)
		aSubs := []chatcore.UserID{e.mod.ID, e.member.ID}
		slices.Sort(aSubs)
		// Batches of two, newest first: [dm3 dm2] [dm1 inB] [inA2 inA1] [inA0];
		// within a batch direct messages come first.
		is.Equal(got, []group{
			{[]chatcore.MessageID{dm3}, pair, nil},
			{[]chatcore.MessageID{dm2}, trio, nil},
			{[]chatcore.MessageID{dm1}, pair, nil},
			{[]chatcore.MessageID{inB}, []chatcore.UserID{e.member.ID}, "y"},
			{[]chatcore.MessageID{inA[1], inA[2]}, aSubs, "x"},
			{[]chatcore.MessageID{inA[0]}, aSubs, "x"},
		}) // grouped per conversation within each batch, to the participants / subscribers (nil actor adds nobody)
		upd := e.events.ofType("stream", "op", "update")
		is.Equal(len(upd), 1)                                    // Beta lost its only message; Alpha's first message was someone else's
		is.Equal(upd[0].Data["stream_id"], b.ID)                 // Beta's update
		is.Equal(upd[0].Data["value"], nil)                      // null: Beta is empty
		is.Equal(upd[0].UserIDs, []chatcore.UserID{e.member.ID}) // the users of the deletion event (no actor here)
	})
}

// BenchmarkDeleteTopic measures deleting a 1,000-message topic in batches of
// 100 (Zulip's size), events included, on the memory and the SQLite store.
func BenchmarkDeleteTopic(b *testing.B) {
	stores := map[string]func(b *testing.B) chatcore.Store{
		"memory": func(*testing.B) chatcore.Store { return memory.New() },
		"sqlite": func(b *testing.B) chatcore.Store {
			return openSQLite(b)
		},
	}
	for _, name := range []string{"memory", "sqlite"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			e := newOpsEnvOn(b, stores[name](b))
			st := e.createChannel(b, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member, e.mod}})
			for b.Loop() {
				b.StopTimer()
				e.postN(b, st, "big", e.member, 1000)
				e.events.reset()
				b.StartTimer()
				res, err := e.svc.DeleteTopic(context.Background(), e.admin.ID, st.ID, "big")
				if err != nil || !res.Complete {
					b.Fatalf("DeleteTopic: %v, %+v", err, res)
				}
			}
		})
	}
}

// TestDeleteTopicEventsPerBatch checks that deleting a topic sends one
// delete_message event per batch, naming the topic as that batch stores it.
func TestDeleteTopicEventsPerBatch(t *testing.T) {
	veronaEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv) {
		is := is.New(t)
		e := open(t, chatcore.WithTopicDeletion(1, time.Minute))
		ctx := context.Background()
		older := e.post(t, e.ham, "Straße")
		newer := e.post(t, e.ophelia, "STRASSE")
		e.events.reset()
		res, err := e.svc.DeleteTopic(ctx, e.owner.ID, e.general.ID, "strasse")
		is.NoErr(err)         // deletion succeeds
		is.True(res.Complete) // every message deleted
		evs := e.events.take("delete_message")
		is.Equal(len(evs), 2)                                             // one event per batch of one
		is.Equal(evs[0].Data["topic"], "strasse")                         // the newest batch spells it as its message, lower-cased
		is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{newer}) // newest first
		is.Equal(evs[1].Data["topic"], "straße")                          // the next batch spells it as its own message
		is.Equal(evs[1].Data["message_ids"], []chatcore.MessageID{older}) // then the older one

		_, err = e.svc.DeleteTopic(ctx, e.owner.ID, e.general.ID, "nothing here")
		is.NoErr(err)                                     // an empty topic is no error
		is.Equal(len(e.events.take("delete_message")), 0) // and sends no event
	})
}
