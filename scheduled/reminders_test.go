package scheduled_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/scheduled"
)

const serviceBaseURL = "http://127.0.0.1:9991"

// channelLink returns the narrow URL of a channel message.
func channelLink(st *chatcore.Stream, slugName, topic string, id chatcore.MessageID) string {
	return fmt.Sprintf("%s/#narrow/channel/%d-%s/topic/%s/near/%d", serviceBaseURL, st.ID, slugName, topic, id)
}

func TestCreateReminderContent(t *testing.T) {
	w, c := newCast(t, chattest.New)
	st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	sea := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "North Sea", Subscribers: []*chatcore.User{c.Member}})
	create := func(t *testing.T, u *chatcore.User, msg chatcore.MessageID, note *string) scheduled.Reminder {
		t.Helper()
		is := is.New(t)
		id, err := scheduled.CreateReminder(t.Context(), w.Svc, u.ID, msg, chattest.Epoch.Add(time.Hour), note)
		is.NoErr(err) // reminder created
		list, err := scheduled.Reminders(t.Context(), w.Svc, u.ID)
		is.NoErr(err) // listing succeeds
		for _, r := range list {
			if r.ReminderID == id {
				return r
			}
		}
		t.Fatalf("reminder %d not listed", id)
		return scheduled.Reminder{}
	}
	said := func(sender *chatcore.User, link string) string {
		return fmt.Sprintf("@_**%s|%d** [said](%s):\n", sender.FullName, sender.ID, link)
	}

	t.Run("channel message", func(t *testing.T) {
		is := is.New(t)
		mid := w.Post(t, st, "castle", c.Member, "hello world")
		w.Events.Reset()
		r := create(t, c.Admin, mid, nil)
		want := fmt.Sprintf("You requested a reminder for #**Denmark>castle@%d**.\n\n", mid) +
			said(c.Member, channelLink(st, "Denmark", "castle", mid)) +
			"```quote\nhello world\n```"
		is.Equal(r.Content, want)                                                    // Zulip's reminder text
		is.True(strings.Contains(r.RenderedContent, "hello world"))                  // rendered
		is.Equal(r.Type, chatcore.MessageTypePrivate)                                // always private
		is.Equal(r.To, []chatcore.UserID{c.Admin.ID})                                // to the caller
		is.Equal(r.ReminderTargetMessageID, mid)                                     // the target message
		is.Equal(r.ScheduledDeliveryTimestamp, chattest.Epoch.Add(time.Hour).Unix()) // UNIX seconds
		is.Equal(r.Failed, false)                                                    // not failed
		evs := w.Events.OfType("reminders", "op", "add")
		is.Equal(len(evs), 1)                                       // one add event
		is.Equal(evs[0].UserIDs, []chatcore.UserID{c.Admin.ID})     // to the caller
		is.Equal(evs[0].Data["reminders"], []scheduled.Reminder{r}) // carrying the reminder
	})
	t.Run("note", func(t *testing.T) {
		is := is.New(t)
		mid := w.Post(t, st, "castle", c.Member, "hello")
		r := create(t, c.Admin, mid, new("\n\nBuy milk \t\n"))
		is.True(strings.HasPrefix(r.Content, fmt.Sprintf("You requested a reminder for #**Denmark>castle@%d**. Note:\n > Buy milk\n\n@_**", mid))) // note trimmed and quoted after the first line
		empty := create(t, c.Admin, mid, new(" \n "))
		is.True(!strings.Contains(empty.Content, "Note:")) // an empty note is no note
	})
	t.Run("direct message", func(t *testing.T) {
		is := is.New(t)
		mid := w.DM(t, c.Member, "psst", c.Admin)
		r := create(t, c.Admin, mid, nil)
		pair := sortedIDs(c.Member.ID, c.Admin.ID)
		link := fmt.Sprintf("%s/#narrow/dm/%d,%d/near/%d", serviceBaseURL, pair[0], pair[1], mid)
		is.Equal(r.Content, "You requested a reminder for the following direct message.\n\n"+
			said(c.Member, link)+"```quote\npsst\n```") // direct-message wording and link
		group := w.DM(t, c.Member, "all", c.Admin, c.Moderator)
		r = create(t, c.Admin, group, new("later"))
		trio := sortedIDs(c.Member.ID, c.Admin.ID, c.Moderator.ID)
		is.True(strings.Contains(r.Content, fmt.Sprintf("/#narrow/dm/%d,%d,%d-group/near/%d", trio[0], trio[1], trio[2], group))) // group link
		is.True(strings.HasPrefix(r.Content, "You requested a reminder for the following direct message. Note:\n > later\n\n"))   // note
	})
	t.Run("poll and todo", func(t *testing.T) {
		is := is.New(t)
		poll := w.Post(t, st, "castle", c.Member, "/poll Lunch?\nPizza\nSoup")
		r := create(t, c.Admin, poll, nil)
		is.True(strings.HasSuffix(r.Content, fmt.Sprintf("@_**King Hamlet|%d** [sent](%s) a poll.", c.Member.ID, channelLink(st, "Denmark", "castle", poll)))) // no quote for a poll
		todo := w.Post(t, st, "castle", c.Member, "/todo Chores")
		r = create(t, c.Admin, todo, nil)
		is.True(strings.HasSuffix(r.Content, "a todo list.")) // no quote for a todo list
	})
	t.Run("fences and names", func(t *testing.T) {
		is := is.New(t)
		code := w.Post(t, sea, "a.b c", c.Member, "look:\n```\nx := 1\n```")
		r := create(t, c.Admin, code, nil)
		is.True(strings.Contains(r.Content, "````quote\nlook:\n```\nx := 1\n```\n````"))       // a longer fence keeps the quote intact
		is.True(strings.Contains(r.Content, fmt.Sprintf("#**North Sea>a.b c@%d**", code)))     // pretty link keeps names
		is.True(strings.Contains(r.Content, channelLink(sea, "North-Sea", "a.2Eb.20c", code))) // URL encoding of the narrow
		star := w.Post(t, st, "a*b", c.Member, "x")
		r = create(t, c.Admin, star, nil)
		is.True(strings.HasPrefix(r.Content, fmt.Sprintf("You requested a reminder for [#Denmark > a&#42;b @ 💬](#narrow/channel/%d-Denmark/topic/a*b/near/%d).", st.ID, star))) // fallback link when a name breaks the syntax
		empty := w.Post(t, st, "", c.Member, "x")
		r = create(t, c.Admin, empty, nil)
		is.True(strings.HasPrefix(r.Content, fmt.Sprintf("You requested a reminder for #**Denmark>@%d**.", empty))) // empty topic
	})
	t.Run("long message is truncated", func(t *testing.T) {
		is := is.New(t)
		long := w.Post(t, st, "castle", c.Member, strings.Repeat("x", chatcore.MaxMessageLength))
		r := create(t, c.Admin, long, nil)
		is.True(len(r.Content) <= chatcore.MaxMessageLength)                 // fits in a message
		is.True(strings.HasSuffix(r.Content, "x\n[message truncated]\n```")) // cut inside the quote, fence closed
	})
}

func TestCreateReminderErrors(t *testing.T) {
	w, c := newCast(t, chattest.New)
	st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	secret := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Secret", InviteOnly: true, Subscribers: []*chatcore.User{c.Admin}})
	foreign := w.AddChannel(t, chattest.Channel{Name: "Elsinore", Realm: c.OtherRealm, Subscribers: []*chatcore.User{c.Stranger}})
	public := w.Post(t, st, "t", c.Admin, "public")
	hidden := w.Post(t, secret, "t", c.Admin, "hidden")
	abroad := w.Post(t, foreign, "t", c.Stranger, "abroad")
	private := w.DM(t, c.Admin, "private", c.Moderator)
	future := chattest.Epoch.Add(time.Hour)

	tests := []struct {
		name string
		msg  chatcore.MessageID
		at   time.Time
		note *string
		err  string
	}{
		{"now is not the future", public, chattest.Epoch, nil, "Scheduled delivery time must be in the future."},
		{"past, checked before the message", 999999, chattest.Epoch.Add(-time.Hour), nil, "Scheduled delivery time must be in the future."},
		{"unknown message", 999999, future, nil, "Invalid message(s)"},
		{"private channel without access", hidden, future, nil, "Invalid message(s)"},
		{"another realm's message", abroad, future, nil, "Invalid message(s)"},
		{"someone else's direct message", private, future, nil, "Invalid message(s)"},
		{"note too long", public, future, new(strings.Repeat("é", scheduled.MaxReminderNoteLength+1)), "Maximum reminder note length: 1000 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scheduled.CreateReminder(t.Context(), w.Svc, c.Member.ID, tt.msg, tt.at, tt.note)
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.err)
		})
	}
	is := is.New(t)
	list, err := scheduled.Reminders(t.Context(), w.Svc, c.Member.ID)
	is.NoErr(err)                                  // listing succeeds
	is.Equal(len(list), 0)                         // nothing stored
	is.Equal(len(w.Events.OfType("reminders")), 0) // no events

	t.Run("note at the limit", func(t *testing.T) {
		is := is.New(t)
		note := strings.Repeat("é", scheduled.MaxReminderNoteLength) + "   \n"
		_, err := scheduled.CreateReminder(t.Context(), w.Svc, c.Member.ID, public, future, &note)
		is.NoErr(err) // 1000 characters after trimming are allowed
	})
	t.Run("guest without access to a public channel", func(t *testing.T) {
		_, err := scheduled.CreateReminder(t.Context(), w.Svc, c.Guest.ID, public, future, nil)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid message(s)")
	})
}

func TestRemindersList(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		msg := w.Post(t, st, "t", c.Member, "about this")
		remind := func(u *chatcore.User, d time.Duration) chatcore.ScheduledMessageID {
			id, err := scheduled.CreateReminder(t.Context(), w.Svc, u.ID, msg, chattest.Epoch.Add(d), nil)
			is.NoErr(err) // reminder created
			return id
		}
		late := remind(c.Member, 3*time.Hour)
		early := remind(c.Member, time.Hour)
		failed := remind(c.Member, 2*time.Hour)
		delivered := remind(c.Member, 30*time.Minute)
		remind(c.Admin, 10*time.Minute) // someone else's
		_, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("t"), "x", 5*time.Minute))
		is.NoErr(err) // a scheduled message, which is not a reminder
		w.UpdateScheduled(t, failed, func(m *chatcore.ScheduledMessage) { m.Failed = true; m.FailureMessage = "boom" })
		w.UpdateScheduled(t, delivered, func(m *chatcore.ScheduledMessage) { m.Delivered = true })

		list, err := scheduled.Reminders(t.Context(), w.Svc, c.Member.ID)
		is.NoErr(err) // listing succeeds
		var ids []chatcore.ScheduledMessageID
		var flags []bool
		for _, r := range list {
			ids = append(ids, r.ReminderID)
			flags = append(flags, r.Failed)
		}
		is.Equal(ids, []chatcore.ScheduledMessageID{early, failed, late}) // own undelivered reminders by delivery time
		is.Equal(flags, []bool{false, true, false})                       // failed ones included and marked

		raw, err := json.Marshal(list[0])
		is.NoErr(err) // marshals
		var keys map[string]any
		is.NoErr(json.Unmarshal(raw, &keys)) // a JSON object
		got := slices.Sorted(maps.Keys(keys))
		is.Equal(got, []string{"content", "failed", "reminder_id", "reminder_target_message_id", "rendered_content", "scheduled_delivery_timestamp", "to", "type"}) // exactly the Reminder schema's fields

		empty, err := scheduled.Reminders(t.Context(), w.Svc, c.Moderator.ID)
		is.NoErr(err)           // listing succeeds
		is.True(empty != nil)   // an empty list, not null
		is.Equal(len(empty), 0) // nothing for a user without reminders
	})
}

func TestDeleteReminder(t *testing.T) {
	w, c := newCast(t, chattest.New)
	st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	deleteChecks(t, w, c, remindersDeletable(w, c, st), scheduledMessagesDeletable(w, c))
}
