package chatcore_test

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
)

const opsBaseURL = "http://127.0.0.1:9991"

// opsChannelLink returns the narrow URL of a channel message.
func opsChannelLink(st *chatcore.Stream, slugName, topic string, id chatcore.MessageID) string {
	return fmt.Sprintf("%s/#narrow/channel/%d-%s/topic/%s/near/%d", opsBaseURL, st.ID, slugName, topic, id)
}

func TestCreateReminderContent(t *testing.T) {
	e := newOpsEnv(t)
	st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
	sea := e.createChannel(t, opsChannel{name: "North Sea", subscribers: []*chatcore.User{e.member}})
	create := func(t *testing.T, u *chatcore.User, msg chatcore.MessageID, note *string) chatcore.Reminder {
		t.Helper()
		is := is.New(t)
		id, err := e.svc.CreateReminder(t.Context(), u.ID, msg, seedTime.Add(time.Hour), note)
		is.NoErr(err) // reminder created
		list, err := e.svc.Reminders(t.Context(), u.ID)
		is.NoErr(err) // listing succeeds
		for _, r := range list {
			if r.ReminderID == id {
				return r
			}
		}
		t.Fatalf("reminder %d not listed", id)
		return chatcore.Reminder{}
	}
	said := func(sender *chatcore.User, link string) string {
		return fmt.Sprintf("@_**%s|%d** [said](%s):\n", sender.FullName, sender.ID, link)
	}

	t.Run("channel message", func(t *testing.T) {
		is := is.New(t)
		mid := e.post(t, st, "castle", e.member, "hello world")
		e.events.reset()
		r := create(t, e.admin, mid, nil)
		want := fmt.Sprintf("You requested a reminder for #**Denmark>castle@%d**.\n\n", mid) +
			said(e.member, opsChannelLink(st, "Denmark", "castle", mid)) +
			"```quote\nhello world\n```"
		is.Equal(r.Content, want)                                              // Zulip's reminder text
		is.True(strings.Contains(r.RenderedContent, "hello world"))            // rendered
		is.Equal(r.Type, chatcore.MessageTypePrivate)                          // always private
		is.Equal(r.To, []chatcore.UserID{e.admin.ID})                          // to the caller
		is.Equal(r.ReminderTargetMessageID, mid)                               // the target message
		is.Equal(r.ScheduledDeliveryTimestamp, seedTime.Add(time.Hour).Unix()) // UNIX seconds
		is.Equal(r.Failed, false)                                              // not failed
		evs := e.events.ofType("reminders", "op", "add")
		is.Equal(len(evs), 1)                                      // one add event
		is.Equal(evs[0].UserIDs, []chatcore.UserID{e.admin.ID})    // to the caller
		is.Equal(evs[0].Data["reminders"], []chatcore.Reminder{r}) // carrying the reminder
	})
	t.Run("note", func(t *testing.T) {
		is := is.New(t)
		mid := e.post(t, st, "castle", e.member, "hello")
		r := create(t, e.admin, mid, new("\n\nBuy milk \t\n"))
		is.True(strings.HasPrefix(r.Content, fmt.Sprintf("You requested a reminder for #**Denmark>castle@%d**. Note:\n > Buy milk\n\n@_**", mid))) // note trimmed and quoted after the first line
		empty := create(t, e.admin, mid, new(" \n "))
		is.True(!strings.Contains(empty.Content, "Note:")) // an empty note is no note
	})
	t.Run("direct message", func(t *testing.T) {
		is := is.New(t)
		mid := e.dm(t, e.member, "psst", e.admin)
		r := create(t, e.admin, mid, nil)
		pair := opsSorted(e.member.ID, e.admin.ID)
		link := fmt.Sprintf("%s/#narrow/dm/%d,%d/near/%d", opsBaseURL, pair[0], pair[1], mid)
		is.Equal(r.Content, "You requested a reminder for the following direct message.\n\n"+
			said(e.member, link)+"```quote\npsst\n```") // direct-message wording and link
		group := e.dm(t, e.member, "all", e.admin, e.mod)
		r = create(t, e.admin, group, new("later"))
		trio := opsSorted(e.member.ID, e.admin.ID, e.mod.ID)
		is.True(strings.Contains(r.Content, fmt.Sprintf("/#narrow/dm/%d,%d,%d-group/near/%d", trio[0], trio[1], trio[2], group))) // group link
		is.True(strings.HasPrefix(r.Content, "You requested a reminder for the following direct message. Note:\n > later\n\n"))   // note
	})
	t.Run("poll and todo", func(t *testing.T) {
		is := is.New(t)
		poll := e.post(t, st, "castle", e.member, "/poll Lunch?\nPizza\nSoup")
		r := create(t, e.admin, poll, nil)
		is.True(strings.HasSuffix(r.Content, fmt.Sprintf("@_**Hamlet|%d** [sent](%s) a poll.", e.member.ID, opsChannelLink(st, "Denmark", "castle", poll)))) // no quote for a poll
		todo := e.post(t, st, "castle", e.member, "/todo Chores")
		r = create(t, e.admin, todo, nil)
		is.True(strings.HasSuffix(r.Content, "a todo list.")) // no quote for a todo list
	})
	t.Run("fences and names", func(t *testing.T) {
		is := is.New(t)
		code := e.post(t, sea, "a.b c", e.member, "look:\n```\nx := 1\n```")
		r := create(t, e.admin, code, nil)
		is.True(strings.Contains(r.Content, "````quote\nlook:\n```\nx := 1\n```\n````"))          // a longer fence keeps the quote intact
		is.True(strings.Contains(r.Content, fmt.Sprintf("#**North Sea>a.b c@%d**", code)))        // pretty link keeps names
		is.True(strings.Contains(r.Content, opsChannelLink(sea, "North-Sea", "a.2Eb.20c", code))) // URL encoding of the narrow
		star := e.post(t, st, "a*b", e.member, "x")
		r = create(t, e.admin, star, nil)
		is.True(strings.HasPrefix(r.Content, fmt.Sprintf("You requested a reminder for [#Denmark > a&#42;b @ 💬](#narrow/channel/%d-Denmark/topic/a*b/near/%d).", st.ID, star))) // fallback link when a name breaks the syntax
		empty := e.post(t, st, "", e.member, "x")
		r = create(t, e.admin, empty, nil)
		is.True(strings.HasPrefix(r.Content, fmt.Sprintf("You requested a reminder for #**Denmark>@%d**.", empty))) // empty topic
	})
	t.Run("long message is truncated", func(t *testing.T) {
		is := is.New(t)
		long := e.post(t, st, "castle", e.member, strings.Repeat("x", chatcore.MaxMessageLength))
		r := create(t, e.admin, long, nil)
		is.True(len(r.Content) <= chatcore.MaxMessageLength)                 // fits in a message
		is.True(strings.HasSuffix(r.Content, "x\n[message truncated]\n```")) // cut inside the quote, fence closed
	})
}

func TestCreateReminderErrors(t *testing.T) {
	e := newOpsEnv(t)
	st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
	secret := e.createChannel(t, opsChannel{name: "Secret", inviteOnly: true, subscribers: []*chatcore.User{e.admin}})
	foreign := e.createChannel(t, opsChannel{name: "Elsinore", realm: e.otherRealm, subscribers: []*chatcore.User{e.stranger}})
	public := e.post(t, st, "t", e.admin, "public")
	hidden := e.post(t, secret, "t", e.admin, "hidden")
	abroad := e.post(t, foreign, "t", e.stranger, "abroad")
	private := e.dm(t, e.admin, "private", e.mod)
	future := seedTime.Add(time.Hour)

	tests := []struct {
		name string
		msg  chatcore.MessageID
		at   time.Time
		note *string
		err  string
	}{
		{"now is not the future", public, seedTime, nil, "Scheduled delivery time must be in the future."},
		{"past, checked before the message", 999999, seedTime.Add(-time.Hour), nil, "Scheduled delivery time must be in the future."},
		{"unknown message", 999999, future, nil, "Invalid message(s)"},
		{"private channel without access", hidden, future, nil, "Invalid message(s)"},
		{"another realm's message", abroad, future, nil, "Invalid message(s)"},
		{"someone else's direct message", private, future, nil, "Invalid message(s)"},
		{"note too long", public, future, new(strings.Repeat("é", chatcore.MaxReminderNoteLength+1)), "Maximum reminder note length: 1000 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.CreateReminder(t.Context(), e.member.ID, tt.msg, tt.at, tt.note)
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.err)
		})
	}
	is := is.New(t)
	list, err := e.svc.Reminders(t.Context(), e.member.ID)
	is.NoErr(err)                                  // listing succeeds
	is.Equal(len(list), 0)                         // nothing stored
	is.Equal(len(e.events.ofType("reminders")), 0) // no events

	t.Run("note at the limit", func(t *testing.T) {
		is := is.New(t)
		note := strings.Repeat("é", chatcore.MaxReminderNoteLength) + "   \n"
		_, err := e.svc.CreateReminder(t.Context(), e.member.ID, public, future, &note)
		is.NoErr(err) // 1000 characters after trimming are allowed
	})
	t.Run("guest without access to a public channel", func(t *testing.T) {
		_, err := e.svc.CreateReminder(t.Context(), e.guest.ID, public, future, nil)
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid message(s)")
	})
}

func TestRemindersList(t *testing.T) {
	opsEachStore(t, func(t *testing.T, newOpsEnv opsEnvMaker) {
		is := is.New(t)
		e := newOpsEnv(t)
		st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
		msg := e.post(t, st, "t", e.member, "about this")
		remind := func(u *chatcore.User, d time.Duration) chatcore.ScheduledMessageID {
			id, err := e.svc.CreateReminder(t.Context(), u.ID, msg, seedTime.Add(d), nil)
			is.NoErr(err) // reminder created
			return id
		}
		late := remind(e.member, 3*time.Hour)
		early := remind(e.member, time.Hour)
		failed := remind(e.member, 2*time.Hour)
		delivered := remind(e.member, 30*time.Minute)
		remind(e.admin, 10*time.Minute) // someone else's
		_, err := e.svc.CreateScheduledMessage(t.Context(), e.member.ID, opsSchedule("stream", opsChannelTo(t, e, "Denmark"), new("t"), "x", 5*time.Minute))
		is.NoErr(err) // a scheduled message, which is not a reminder
		updateScheduled(t, e.base, failed, func(m *chatcore.ScheduledMessage) { m.Failed = true; m.FailureMessage = "boom" })
		updateScheduled(t, e.base, delivered, func(m *chatcore.ScheduledMessage) { m.Delivered = true })

		list, err := e.svc.Reminders(t.Context(), e.member.ID)
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

		empty, err := e.svc.Reminders(t.Context(), e.mod.ID)
		is.NoErr(err)           // listing succeeds
		is.True(empty != nil)   // an empty list, not null
		is.Equal(len(empty), 0) // nothing for a user without reminders
	})
}

func TestDeleteReminder(t *testing.T) {
	e := newOpsEnv(t)
	st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
	opsDeleteChecks(t, e, opsReminders(e, st), opsScheduledMessages(e))
}
