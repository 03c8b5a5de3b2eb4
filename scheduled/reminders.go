package scheduled

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/narrowlink"
)

// MaxReminderNoteLength is the longest reminder note, in characters, that
// [CreateReminder] accepts (Zulip's MAX_REMINDER_NOTE_LENGTH, reported
// as max_reminder_note_length by POST /register).
const MaxReminderNoteLength = 1000

// Reminder is a reminder in the wire format of GET /reminders and of reminders
// events.
type Reminder struct {
	ReminderID chatcore.ScheduledMessageID `json:"reminder_id"`
	// Type is always "private".
	Type chatcore.MessageType `json:"type"`
	// To holds the id of the user who scheduled the reminder and receives it.
	To              []chatcore.UserID `json:"to"`
	Content         string            `json:"content"`
	RenderedContent string            `json:"rendered_content"`
	// ScheduledDeliveryTimestamp is the delivery time in UNIX seconds.
	ScheduledDeliveryTimestamp int64 `json:"scheduled_delivery_timestamp"`
	// Failed is true once a delivery attempt failed.
	Failed                  bool               `json:"failed"`
	ReminderTargetMessageID chatcore.MessageID `json:"reminder_target_message_id"`
}

// reminderView builds the wire form of a reminder row.
func reminderView(m *chatcore.ScheduledMessage) Reminder {
	return Reminder{
		ReminderID:                 m.ID,
		Type:                       chatcore.MessageTypePrivate,
		To:                         []chatcore.UserID{m.SenderID},
		Content:                    m.Content,
		RenderedContent:            m.RenderedContent,
		ScheduledDeliveryTimestamp: m.DeliverAt.Unix(),
		Failed:                     m.Failed,
		ReminderTargetMessageID:    m.ReminderTargetMessageID,
	}
}

// CreateReminder schedules a reminder about message for actor: at deliverAt,
// [DeliverDue] sends actor a direct message from the realm's
// notification bot that quotes the message (or says it was a poll or a todo
// list) and links to it, with the optional note. A nil or empty note is
// absent; a note loses trailing whitespace and leading newlines. Any user, bots
// included, may create reminders. After commit a reminders "add" event goes to
// actor.
//
// Errors (BAD_REQUEST): "scheduled_delivery_timestamp is too large" / "is too
// small" when deliverAt is outside years 1 to 9999, "Scheduled delivery time
// must be in the future." when it is not after the Service clock's now
// (checked first); "Invalid
// message(s)" for a message that does not exist, is of another realm, or that
// actor cannot read; "Maximum reminder note length: 1000 characters" (see
// [MaxReminderNoteLength]). UNAUTHORIZED for a missing or deactivated actor.
func CreateReminder(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, messageID chatcore.MessageID, deliverAt time.Time, note *string) (chatcore.ScheduledMessageID, error) {
	var id chatcore.ScheduledMessageID
	pre := prerenderReminder(ctx, svc, actorID, messageID, note) // before the write lock
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := checkDeliveryTime(deliverAt, svc.Now()); err != nil {
			return err
		}
		target, err := chatcore.AccessibleMessage(ctx, tx, u, messageID)
		if err != nil {
			return err
		}
		if target == nil {
			return chatcore.InvalidMessageError()
		}
		var text string
		if note != nil {
			text, err = NormalizeReminderNote(*note)
			if err != nil {
				return err
			}
		}
		content, err := ReminderContent(ctx, svc, tx, target, text)
		if err != nil {
			return err
		}
		r, err := svc.RenderChecked(ctx, tx, u.RealmID, content, pre)
		if err != nil {
			return err
		}
		m := &chatcore.ScheduledMessage{
			RealmID:                 u.RealmID,
			SenderID:                u.ID,
			Kind:                    chatcore.ScheduledReminder,
			Type:                    chatcore.MessageTypePrivate,
			DirectMembers:           []chatcore.UserID{u.ID},
			Content:                 content,
			RenderedContent:         r.HTML,
			DeliverAt:               deliverAt.UTC(),
			ReminderTargetMessageID: target.ID,
			ReminderNote:            text,
		}
		if err := tx.CreateScheduledMessage(ctx, m); err != nil {
			return err
		}
		id = m.ID
		fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{
			"type":      "reminders",
			"op":        "add",
			"reminders": []Reminder{reminderView(m)},
		})
		return nil
	})
	return id, err
}

// prerenderReminder renders the content of the reminder CreateReminder would
// create, in one read-only View before its write transaction (see
// chatcore.Service.RenderChecked);
// nil when anything is refused (the write transaction reports it).
func prerenderReminder(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, messageID chatcore.MessageID, note *string) *chatcore.Prerendered {
	var p *chatcore.Prerendered
	_ = svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		target, err := chatcore.AccessibleMessage(ctx, tx, u, messageID)
		if err != nil || target == nil {
			return errors.Join(err, chatcore.InvalidMessageError())
		}
		var text string
		if note != nil {
			if text, err = NormalizeReminderNote(*note); err != nil {
				return err
			}
		}
		content, err := ReminderContent(ctx, svc, tx, target, text)
		if err != nil {
			return err
		}
		p, err = chatcore.PrerenderIn(ctx, tx, u.RealmID, content)
		return err
	})
	return p
}

// Reminders returns actor's undelivered reminders, failed ones included,
// ordered by delivery time, then id. Errors: UNAUTHORIZED for a missing or
// deactivated actor; others are internal.
func Reminders(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) ([]Reminder, error) {
	return listOwn(ctx, svc, actorID, ReminderViews)
}

// ReminderViews returns u's pending reminders (never nil).
func ReminderViews(ctx context.Context, tx chatcore.Tx, u *chatcore.User) ([]Reminder, error) {
	return pending(ctx, tx, u, chatcore.ScheduledReminder, reminderView)
}

// DeleteReminder deletes (cancels) one of actor's reminders and, after commit,
// sends a reminders "remove" event to actor.
//
// Errors: "Reminder does not exist" (code BAD_REQUEST, kind
// [chatcore.KindNotFound]) for an unknown id, someone else's reminder, one of
// another realm, or a scheduled-message id; UNAUTHORIZED for a missing or
// deactivated actor.
func DeleteReminder(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.ScheduledMessageID) error {
	return deleteOwn(ctx, svc, actorID, id, chatcore.ScheduledReminder, "Reminder does not exist")
}

// NormalizeReminderNote returns note as a reminder stores it: trailing
// whitespace and leading newlines dropped. A note over [MaxReminderNoteLength]
// characters is a BAD_REQUEST [*chatcore.Error] with Zulip's message.
func NormalizeReminderNote(note string) (string, error) {
	note = strings.TrimRightFunc(note, unicode.IsSpace)
	note = strings.TrimLeft(note, "\n")
	if utf8.RuneCountInString(note) > MaxReminderNoteLength {
		return "", chatcore.BadRequestf("Maximum reminder note length: %d characters", MaxReminderNoteLength)
	}
	return note, nil
}

// ReminderContent returns the Markdown of the notification-bot message that
// delivers a reminder about m with the normalised note (see
// [NormalizeReminderNote]): a first line naming the message, the note
// quoted, then the sender's silent mention with a link and the original text
// in a quote block cut to keep the whole within [chatcore.MaxMessageLength]
// (for /poll and /todo messages only a line saying so). It reads m's sender
// and channel through tx; the links in it start with the Service's
// [chatcore.WithExternalURL]. Errors come from the store.
func ReminderContent(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, m *chatcore.Message, note string) (string, error) {
	sender, err := tx.User(ctx, m.SenderID)
	if err != nil {
		return "", err
	}
	base := strings.TrimRight(svc.ExternalURL(), "/")
	var b strings.Builder
	var link string
	if m.Type == chatcore.MessageTypeStream {
		st, err := tx.Stream(ctx, m.StreamID)
		if err != nil {
			return "", err
		}
		link = base + "/" + narrowlink.ChannelMessage(int64(st.ID), st.Name, m.Topic, int64(m.ID))
		b.WriteString("You requested a reminder for ")
		b.WriteString(narrowlink.MessageSyntax(int64(st.ID), st.Name, m.Topic, chatcore.DefaultEmptyTopicDisplayName, int64(m.ID)))
		b.WriteString(".")
	} else {
		link = base + "/" + narrowlink.DirectMessage(m.DirectMembers, int64(m.ID))
		b.WriteString("You requested a reminder for the following direct message.")
	}
	if note != "" {
		b.WriteString(" Note:\n > ")
		b.WriteString(note)
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "@_**%s|%d** ", sender.FullName, sender.ID)
	switch {
	case strings.HasPrefix(m.Content, "/poll"):
		fmt.Fprintf(&b, "[sent](%s) a poll.", link)
	case strings.HasPrefix(m.Content, "/todo"):
		fmt.Fprintf(&b, "[sent](%s) a todo list.", link)
	default:
		fmt.Fprintf(&b, "[said](%s):\n", link)
		fence := unusedFence(m.Content)
		open, closing := fence+"quote\n", "\n"+fence
		room := chatcore.MaxMessageLength - b.Len() - len(open) - len(closing)
		b.WriteString(open)
		b.WriteString(chatcore.TruncateContent(m.Content, room))
		b.WriteString(closing)
	}
	return b.String(), nil
}

// fenceRE finds lines that open or close a backtick code fence.
var fenceRE = regexp.MustCompile("(?m)^ {0,3}(`{3,})")

// unusedFence returns a backtick fence longer than every fence in content, so
// quoting content cannot end the quote early.
func unusedFence(content string) string {
	n := 3
	for _, m := range fenceRE.FindAllStringSubmatch(content, -1) {
		n = max(n, len(m[1])+1)
	}
	return strings.Repeat("`", n)
}
