package scheduled_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/matryer/is"
)

func TestDeliverDueScheduledMessages(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member, c.Moderator}})
		toChannel, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("castle"), "to the channel", time.Hour))
		is.NoErr(err) // scheduled
		toMod, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("direct", idList(c.Moderator.ID), nil, "to Shiva", time.Hour+5*time.Minute))
		is.NoErr(err) // scheduled
		later, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("castle"), "later", 5*time.Hour))
		is.NoErr(err) // scheduled

		n, err := scheduled.DeliverDue(t.Context(), w.Svc)
		is.NoErr(err)  // delivery runs
		is.Equal(n, 0) // nothing is due yet

		w.Clock.Advance(time.Hour + 6*time.Minute)
		w.Events.Reset()
		n, err = scheduled.DeliverDue(t.Context(), w.Svc)
		is.NoErr(err)  // delivery runs
		is.Equal(n, 2) // the two due messages

		row := w.Scheduled(t, toChannel)
		is.True(row.Delivered) // marked delivered
		is.True(!row.Failed)   // not failed
		sent := w.Message(t, row.DeliveredMessageID)
		is.Equal(sent.SenderID, c.Member.ID)                               // sent as the sender
		is.Equal(sent.StreamID, st.ID)                                     // to the channel
		is.Equal(sent.Topic, "castle")                                     // and topic
		is.Equal(sent.Content, "to the channel")                           // with the content
		is.Equal(sent.SentAt, chattest.Epoch.Add(time.Hour+6*time.Minute)) // at delivery time

		row = w.Scheduled(t, toMod)
		is.True(row.Delivered) // marked delivered
		sent = w.Message(t, row.DeliveredMessageID)
		is.Equal(sent.Type, chatcore.MessageTypePrivate)                     // a direct message
		is.Equal(sent.DirectMembers, sortedIDs(c.Member.ID, c.Moderator.ID)) // between sender and recipient

		removes := w.Events.OfType("scheduled_messages", "op", "remove")
		is.Equal(len(removes), 2)                                    // one remove per delivered message
		is.Equal(removes[0].Data["scheduled_message_id"], toChannel) // in delivery order
		is.Equal(removes[0].UserIDs, []chatcore.UserID{c.Member.ID}) // to the sender
		is.Equal(len(w.Events.OfType("message")), 2)                 // the messages' own events

		list, err := scheduled.List(t.Context(), w.Svc, c.Member.ID)
		is.NoErr(err)                               // listing succeeds
		is.Equal(len(list), 1)                      // delivered ones are no longer listed
		is.Equal(list[0].ScheduledMessageID, later) // the later one is

		n, err = scheduled.DeliverDue(t.Context(), w.Svc)
		is.NoErr(err)  // delivery runs again
		is.Equal(n, 0) // nothing is delivered twice
	})
}

func TestDeliverDueReminders(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		target := w.Post(t, st, "castle", c.Member, "remember me")
		first, err := scheduled.CreateReminder(t.Context(), w.Svc, c.Admin.ID, target, chattest.Epoch.Add(time.Hour), new("soon"))
		is.NoErr(err) // reminder created
		second, err := scheduled.CreateReminder(t.Context(), w.Svc, c.Admin.ID, target, chattest.Epoch.Add(2*time.Hour), nil)
		is.NoErr(err) // reminder created
		stored := w.Scheduled(t, first).Content

		w.Clock.Advance(3 * time.Hour)
		w.Events.Reset()
		n, err := scheduled.DeliverDue(t.Context(), w.Svc)
		is.NoErr(err)  // delivery runs
		is.Equal(n, 2) // both reminders

		row := w.Scheduled(t, first)
		is.True(row.Delivered) // marked delivered
		sent := w.Message(t, row.DeliveredMessageID)
		is.Equal(sent.Content, stored) // the reminder text
		var bot *chatcore.User
		is.NoErr(w.Base.View(t.Context(), func(tx chatcore.Tx) error {
			var err error
			bot, err = tx.UserByEmail(context.Background(), c.Realm.ID, chatcore.NotificationBotEmail(c.Realm.StringID))
			return err
		})) // the notification bot exists
		is.Equal(sent.SenderID, bot.ID)                                                    // sent by the notification bot
		is.True(bot.IsBot)                                                                 // a bot
		is.Equal(bot.BotType, chatcore.BotTypeGeneric)                                     // generic
		is.Equal(bot.FullName, chatcore.NotificationBotName)                               // named as in Zulip
		is.Equal(sent.DirectMembers, sortedIDs(c.Admin.ID, bot.ID))                        // a direct message to the owner
		is.Equal(w.Message(t, w.Scheduled(t, second).DeliveredMessageID).SenderID, bot.ID) // one bot for the realm

		removes := w.Events.OfType("reminders", "op", "remove")
		is.Equal(len(removes), 2)                                                                            // one remove per reminder
		is.Equal(removes[0].Data, map[string]any{"type": "reminders", "op": "remove", "reminder_id": first}) // Zulip's payload
		is.Equal(removes[0].UserIDs, []chatcore.UserID{c.Admin.ID})                                          // to the owner
		list, err := scheduled.Reminders(t.Context(), w.Svc, c.Admin.ID)
		is.NoErr(err)          // listing succeeds
		is.Equal(len(list), 0) // delivered reminders are not listed

		bots := 0
		is.NoErr(w.Base.View(t.Context(), func(tx chatcore.Tx) error {
			users, err := tx.Users(context.Background(), chatcore.UserFilter{RealmID: c.Realm.ID, Bot: new(true)})
			for _, u := range users {
				if u.FullName == chatcore.NotificationBotName {
					bots++
				}
			}
			return err
		})) // users listed
		is.Equal(bots, 1) // created once, on first need
	})
}

func TestDeliverDueReminderContentRebuilt(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		kept := w.Post(t, st, "kept", c.Member, "still here")
		gone := w.Post(t, st, "gone", c.Member, "deleted later")
		rKept, err := scheduled.CreateReminder(t.Context(), w.Svc, c.Admin.ID, kept, chattest.Epoch.Add(time.Hour), nil)
		is.NoErr(err) // reminder created
		rGone, err := scheduled.CreateReminder(t.Context(), w.Svc, c.Admin.ID, gone, chattest.Epoch.Add(time.Hour), nil)
		is.NoErr(err) // reminder created
		storedGone := w.Scheduled(t, rGone).Content

		w.UpdateUser(t, c.Member.ID, func(u *chatcore.User) { u.FullName = "Prince Hamlet" }) // the sender changes their name
		_, err = channels.DeleteTopic(t.Context(), w.Svc, c.Admin.ID, st.ID, "gone")
		is.NoErr(err) // the second target is deleted

		w.Clock.Advance(2 * time.Hour)
		n, err := scheduled.DeliverDue(t.Context(), w.Svc)
		is.NoErr(err)  // delivery runs
		is.Equal(n, 2) // both delivered
		keptText := w.Message(t, w.Scheduled(t, rKept).DeliveredMessageID).Content
		is.True(strings.Contains(keptText, fmt.Sprintf("@_**Prince Hamlet|%d**", c.Member.ID))) // rebuilt at send time
		goneText := w.Message(t, w.Scheduled(t, rGone).DeliveredMessageID).Content
		is.Equal(goneText, storedGone) // the stored text when the message is no longer accessible
	})
}

func TestDeliverDueMarksFailures(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		doomed := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Doomed", Subscribers: []*chatcore.User{c.Member}})
		w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		leaver := w.AddUser(t, c.Realm, "Leaver", chatcore.RoleMember)
		toDoomed, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Doomed"), new("t"), "too late", time.Hour))
		is.NoErr(err) // scheduled
		fromLeaver, err := scheduled.Create(t.Context(), w.Svc, leaver.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("t"), "bye", time.Hour))
		is.NoErr(err) // scheduled
		fine, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("t"), "fine", time.Hour+time.Minute))
		is.NoErr(err) // scheduled
		reminder, err := scheduled.CreateReminder(t.Context(), w.Svc, leaver.ID, w.Post(t, doomed, "u", c.Member, "y"), chattest.Epoch.Add(time.Hour), nil)
		is.NoErr(err) // reminder created

		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error { // archive the channel, deactivate a user
			st, err := tx.Stream(context.Background(), doomed.ID)
			if err != nil {
				return err
			}
			st.IsArchived = true
			if err := tx.UpdateStream(context.Background(), st); err != nil {
				return err
			}
			u, err := tx.User(context.Background(), leaver.ID)
			if err != nil {
				return err
			}
			u.IsActive = false
			return tx.UpdateUser(context.Background(), u)
		})
		before := len(w.ChannelMessageIDs(t, doomed, nil))
		w.Clock.Advance(time.Hour + 2*time.Minute)
		w.Events.Reset()
		n, err := scheduled.DeliverDue(t.Context(), w.Svc)
		is.NoErr(err)  // failures are not errors
		is.Equal(n, 1) // delivery went on past the failures

		row := w.Scheduled(t, toDoomed)
		is.True(row.Failed)                                                        // marked failed
		is.True(!row.Delivered)                                                    // not delivered
		is.Equal(row.FailureMessage, "Not authorized to send to channel 'Doomed'") // why
		is.Equal(len(w.ChannelMessageIDs(t, doomed, nil)), before)                 // nothing was sent there
		row = w.Scheduled(t, fromLeaver)
		is.True(row.Failed)                                    // a deactivated sender fails
		is.Equal(row.FailureMessage, "Account is deactivated") // with the reason
		row = w.Scheduled(t, reminder)
		is.True(row.Failed)                     // a deactivated owner's reminder fails
		is.True(w.Scheduled(t, fine).Delivered) // the good one was delivered

		updates := w.Events.OfType("scheduled_messages", "op", "update")
		is.Equal(len(updates), 1) // the active sender hears about the failure (not a deactivated one, not for reminders)
		view := updates[0].Data["scheduled_message"].(scheduled.View)
		is.Equal(view.ScheduledMessageID, toDoomed) // the failed message
		is.True(view.Failed)                        // with failed: true
		list, err := scheduled.List(t.Context(), w.Svc, c.Member.ID)
		is.NoErr(err)           // listing succeeds
		is.Equal(len(list), 1)  // the failed one stays listed
		is.True(list[0].Failed) // marked failed

		notices := w.DirectMessagesTo(t, c.Member, chatcore.NotificationBotName)
		is.Equal(len(notices), 1)                                                                                                                                                                                                    // the sender got one notice
		is.Equal(notices[0], "The message you scheduled for <time:2026-03-01T13:00:00+00:00> was not sent because of the following error:\n\n> Not authorized to send to channel 'Doomed'\n\n[View scheduled messages](#scheduled)") // Zulip's notice
		is.Equal(len(w.DirectMessagesTo(t, leaver, chatcore.NotificationBotName)), 0)                                                                                                                                                // none for a deactivated sender or a reminder

		n, err = scheduled.DeliverDue(t.Context(), w.Svc)
		is.NoErr(err)  // delivery runs again
		is.Equal(n, 0) // failed rows are not retried
	})
}

func TestDeliverDueLateCutoff(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		onTime, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("t"), "on time", time.Hour))
		is.NoErr(err) // scheduled
		late, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("t"), "late", time.Hour-time.Second))
		is.NoErr(err) // scheduled
		reminder, err := scheduled.CreateReminder(t.Context(), w.Svc, c.Member.ID, w.Post(t, st, "t", c.Member, "x"), chattest.Epoch.Add(time.Minute), nil)
		is.NoErr(err) // reminder created

		w.Clock.Advance(time.Hour + scheduled.LateCutoff)
		n, err := scheduled.DeliverDue(t.Context(), w.Svc)
		is.NoErr(err)                               // delivery runs
		is.Equal(n, 2)                              // the one within the cutoff, and the reminder however late
		is.True(w.Scheduled(t, onTime).Delivered)   // exactly at the cutoff is still in time
		is.True(w.Scheduled(t, reminder).Delivered) // reminders have no cutoff
		row := w.Scheduled(t, late)
		is.True(row.Failed)                                                              // too late
		is.Equal(row.FailureMessage, "Message could not be sent at the scheduled time.") // Zulip's reason
	})
}

func TestDeliverDueConcurrentDeliverers(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member, c.Moderator}})
		target := w.Post(t, st, "t", c.Member, "remind me")
		const messages, reminders = 30, 10
		for i := range messages {
			sender := c.Member
			if i%2 == 1 {
				sender = c.Moderator
			}
			_, err := scheduled.Create(t.Context(), w.Svc, sender.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("load"), fmt.Sprint("message ", i), time.Minute+time.Duration(i)*time.Second))
			is.NoErr(err) // scheduled
		}
		for i := range reminders {
			_, err := scheduled.CreateReminder(t.Context(), w.Svc, c.Admin.ID, target, chattest.Epoch.Add(time.Minute+time.Duration(i)*time.Second), nil)
			is.NoErr(err) // reminder created
		}
		w.Clock.Advance(5 * time.Minute)

		type result struct {
			n   int
			err error
		}
		results := make(chan result, 4)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				n, err := scheduled.DeliverDue(context.Background(), w.Svc)
				results <- result{n, err}
			})
		}
		wg.Wait()
		close(results)
		total := 0
		for r := range results {
			is.NoErr(r.err) // every deliverer succeeds
			total += r.n
		}
		is.Equal(total, messages+reminders) // each row delivered exactly once across deliverers

		is.Equal(len(w.ChannelMessageIDs(t, st, new("load"))), messages) // one channel message per scheduled message
		seen := map[chatcore.MessageID]bool{}
		is.NoErr(w.Base.View(t.Context(), func(tx chatcore.Tx) error {
			rows, err := tx.ScheduledMessages(context.Background(), chatcore.ScheduledFilter{RealmID: c.Realm.ID})
			for _, r := range rows {
				if !r.Delivered || r.DeliveredMessageID == 0 || seen[r.DeliveredMessageID] {
					return fmt.Errorf("row %d: delivered=%v message=%d (seen before: %v)", r.ID, r.Delivered, r.DeliveredMessageID, seen[r.DeliveredMessageID])
				}
				seen[r.DeliveredMessageID] = true
			}
			return err
		})) // every row delivered, each to its own message
		is.Equal(len(seen), messages+reminders) // all rows accounted for
	})
}
