package chatcore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chatcore/chatcore/internal/narrowlink"
)

// MaxReminderNoteLength is the longest reminder note, in characters, that
// [Service.CreateReminder] accepts (Zulip's MAX_REMINDER_NOTE_LENGTH, reported
// as max_reminder_note_length by POST /register).
const MaxReminderNoteLength = 1000

// Reminder is a reminder in the wire format of GET /reminders and of reminders
// events.
type Reminder struct {
	ReminderID ScheduledMessageID `json:"reminder_id"`
	// Type is always "private".
	Type MessageType `json:"type"`
	// To holds the id of the user who scheduled the reminder and receives it.
	To              []UserID `json:"to"`
	Content         string   `json:"content"`
	RenderedContent string   `json:"rendered_content"`
	// ScheduledDeliveryTimestamp is the delivery time in UNIX seconds.
	ScheduledDeliveryTimestamp int64 `json:"scheduled_delivery_timestamp"`
	// Failed is true once a delivery attempt failed.
	Failed                  bool      `json:"failed"`
	ReminderTargetMessageID MessageID `json:"reminder_target_message_id"`
}

// reminderView builds the wire form of a reminder row.
func reminderView(m *ScheduledMessage) Reminder {
	return Reminder{
		ReminderID:                 m.ID,
		Type:                       MessageTypePrivate,
		To:                         []UserID{m.SenderID},
		Content:                    m.Content,
		RenderedContent:            m.RenderedContent,
		ScheduledDeliveryTimestamp: m.DeliverAt.Unix(),
		Failed:                     m.Failed,
		ReminderTargetMessageID:    m.ReminderTargetMessageID,
	}
}

// CreateReminder schedules a reminder about message for actor: at deliverAt,
// [Service.DeliverScheduledMessage] sends actor a direct message from the realm's
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
func (s *Service) CreateReminder(ctx context.Context, actorID UserID, messageID MessageID, deliverAt time.Time, note *string) (ScheduledMessageID, error) {
	var id ScheduledMessageID
	pre := s.prerenderReminder(ctx, actorID, messageID, note) // before the write lock; see render.go
	err := s.Update(ctx, func(tx Tx, fx *Effects) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := checkDeliveryTime(deliverAt, s.clock.Now()); err != nil {
			return err
		}
		target, err := AccessibleMessage(ctx, tx, u, messageID)
		if err != nil {
			return err
		}
		if target == nil {
			return InvalidMessageError()
		}
		var text string
		if note != nil {
			text, err = normalizeReminderNote(*note)
			if err != nil {
				return err
			}
		}
		content, err := s.reminderContent(ctx, tx, target, text)
		if err != nil {
			return err
		}
		r, err := s.RenderChecked(ctx, tx, u.RealmID, content, pre)
		if err != nil {
			return err
		}
		m := &ScheduledMessage{
			RealmID:                 u.RealmID,
			SenderID:                u.ID,
			Kind:                    ScheduledReminder,
			Type:                    MessageTypePrivate,
			DirectMembers:           []UserID{u.ID},
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
		fx.Event(u.RealmID, []UserID{u.ID}, map[string]any{
			"type":      "reminders",
			"op":        "add",
			"reminders": []Reminder{reminderView(m)},
		})
		return nil
	})
	return id, err
}

// prerenderReminder renders the content of the reminder CreateReminder would
// create, in one read-only View before its write transaction (see renderChecked);
// nil when anything is refused (the write transaction reports it).
func (s *Service) prerenderReminder(ctx context.Context, actorID UserID, messageID MessageID, note *string) *Prerendered {
	var p *Prerendered
	_ = s.View(ctx, func(tx Tx) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		target, err := AccessibleMessage(ctx, tx, u, messageID)
		if err != nil || target == nil {
			return errors.Join(err, InvalidMessageError())
		}
		var text string
		if note != nil {
			if text, err = normalizeReminderNote(*note); err != nil {
				return err
			}
		}
		content, err := s.reminderContent(ctx, tx, target, text)
		if err != nil {
			return err
		}
		p, err = PrerenderIn(ctx, tx, u.RealmID, content)
		return err
	})
	return p
}

// Reminders returns actor's undelivered reminders, failed ones included,
// ordered by delivery time, then id. Errors: UNAUTHORIZED for a missing or
// deactivated actor; others are internal.
func (s *Service) Reminders(ctx context.Context, actorID UserID) ([]Reminder, error) {
	var out []Reminder
	err := s.View(ctx, func(tx Tx) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		out, err = ReminderViews(ctx, tx, u)
		return err
	})
	return out, err
}

// ReminderViews returns u's pending reminders (never nil).
func ReminderViews(ctx context.Context, tx Tx, u *User) ([]Reminder, error) {
	rows, err := tx.ScheduledMessages(ctx, ScheduledFilter{
		RealmID: u.RealmID, SenderID: u.ID, Kind: ScheduledReminder, Delivered: new(false),
	})
	if err != nil {
		return nil, err
	}
	out := make([]Reminder, 0, len(rows))
	for i := range rows {
		out = append(out, reminderView(&rows[i]))
	}
	return out, nil
}

// DeleteReminder deletes (cancels) one of actor's reminders and, after commit,
// sends a reminders "remove" event to actor.
//
// Errors: "Reminder does not exist" (code BAD_REQUEST, kind [KindNotFound]) for
// an unknown id, someone else's reminder, one of another realm, or a
// scheduled-message id; UNAUTHORIZED for a missing or deactivated actor.
func (s *Service) DeleteReminder(ctx context.Context, actorID UserID, id ScheduledMessageID) error {
	return s.Update(ctx, func(tx Tx, fx *Effects) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		m, err := ownScheduled(ctx, tx, u, id, ScheduledReminder)
		if err != nil {
			return err
		}
		if m == nil {
			return NotFound("Reminder does not exist")
		}
		if err := tx.DeleteScheduledMessage(ctx, m.ID); err != nil {
			return err
		}
		fx.Event(u.RealmID, []UserID{u.ID}, map[string]any{
			"type":        "reminders",
			"op":          "remove",
			"reminder_id": m.ID,
		})
		return nil
	})
}

// NormalizeReminderNote returns note as a reminder stores it: trailing
// whitespace and leading newlines dropped. A note over [MaxReminderNoteLength]
// characters is a BAD_REQUEST [*Error] with Zulip's message.
func NormalizeReminderNote(note string) (string, error) { return normalizeReminderNote(note) }

// normalizeReminderNote drops trailing whitespace and leading newlines and
// enforces MaxReminderNoteLength.
func normalizeReminderNote(note string) (string, error) {
	note = strings.TrimRightFunc(note, unicode.IsSpace)
	note = strings.TrimLeft(note, "\n")
	if utf8.RuneCountInString(note) > MaxReminderNoteLength {
		return "", BadRequestf("Maximum reminder note length: %d characters", MaxReminderNoteLength)
	}
	return note, nil
}

// ReminderContent returns the Markdown of the notification-bot message that
// delivers a reminder about m with the normalised note (see
// [NormalizeReminderNote]), reading m's sender and channel through tx; the
// links in it start with the Service's [WithExternalURL]. Errors come from
// the store.
func (s *Service) ReminderContent(ctx context.Context, tx Tx, m *Message, note string) (string, error) {
	return s.reminderContent(ctx, tx, m, note)
}

// reminderContent builds the Markdown of the notification-bot message that
// delivers a reminder about m with the (normalised) note: a first line naming
// the message, the note quoted, then the sender's silent mention with a link
// and the original text in a quote block cut to keep the whole within
// MaxMessageLength (for /poll and /todo messages only a line saying so).
func (s *Service) reminderContent(ctx context.Context, tx Tx, m *Message, note string) (string, error) {
	sender, err := tx.User(ctx, m.SenderID)
	if err != nil {
		return "", err
	}
	base := strings.TrimRight(s.externalURL, "/")
	var b strings.Builder
	var link string
	if m.Type == MessageTypeStream {
		st, err := tx.Stream(ctx, m.StreamID)
		if err != nil {
			return "", err
		}
		link = base + "/" + narrowlink.ChannelMessage(int64(st.ID), st.Name, m.Topic, int64(m.ID))
		b.WriteString("You requested a reminder for ")
		b.WriteString(narrowlink.MessageSyntax(int64(st.ID), st.Name, m.Topic, DefaultEmptyTopicDisplayName, int64(m.ID)))
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
		room := MaxMessageLength - b.Len() - len(open) - len(closing)
		b.WriteString(open)
		b.WriteString(TruncateContent(m.Content, room))
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
