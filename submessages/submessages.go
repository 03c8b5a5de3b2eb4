// Package submessages applies Zulip's rules for submessages, the state of
// a message's widget (votes in a poll, tasks of a to-do list): POST
// /submessage and the submessage event. Widgets themselves are made at send
// time (see chatcore.WidgetSubmessage).
package submessages

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/reactions"
)

// MaxContentLength bounds a submessage's content in bytes (Zulip sets no
// bound of its own; a poll's vote or option is a few dozen bytes).
const MaxContentLength = 10000

// Request is the body of POST /submessage.
type Request struct {
	MessageID *chatcore.MessageID `json:"message_id" wire:"required"`
	MsgType   *string             `json:"msg_type" wire:"required"`
	// Content is the submessage's data, a JSON document kept as sent.
	Content *string `json:"content" wire:"required"`
}

// Add attaches a submessage from the actor to a message, as Zulip's
// process_submessage and do_add_submessage: the actor must be able to read
// the message (not in an archived channel), and the first submessage must
// come from the message's sender. Content must be JSON; when the message
// is a poll or a to-do widget it must be one of that widget's data
// (Zulip's validate_poll_data and validate_todo_data). A "submessage"
// event goes to the users who can see the message (and the actor). It
// returns the new submessage.
//
// Errors (BAD_REQUEST): "Invalid message(s)"; "You cannot attach a
// submessage to this message."; "Invalid json for submessage"; the widget
// data checks' texts (such as `poll data["vote"]` "Invalid ...", "Unknown
// type for poll data: x", "You can't edit a question unless you are the
// author."); "Submessage content is too long (limit: 10000 bytes)".
func Add(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req Request) (chatcore.Submessage, error) {
	var out chatcore.Submessage
	if len(*req.Content) > MaxContentLength {
		return out, chatcore.BadRequestf("Submessage content is too long (limit: %d bytes)", MaxContentLength)
	}
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		m, err := chatcore.ReadableMessage(ctx, tx, u, *req.MessageID)
		if err != nil {
			return err
		}
		if m.Type == chatcore.MessageTypeStream {
			st, err := tx.Stream(ctx, m.StreamID)
			if err != nil {
				return err
			}
			if st.IsArchived {
				return chatcore.InvalidMessageError()
			}
		}
		if u.ID != m.SenderID && !hasSubmessageFrom(m, m.SenderID) {
			return chatcore.BadRequest("You cannot attach a submessage to this message.")
		}
		data, err := decodeJSON(*req.Content)
		if err != nil {
			return chatcore.BadRequest("Invalid json for submessage")
		}
		author := u.ID == m.SenderID
		switch widgetType(m) {
		case "poll":
			err = validatePoll(data, author)
		case "todo":
			err = validateTodo(data, author)
		}
		if err != nil {
			return err
		}
		out = chatcore.Submessage{MessageID: m.ID, SenderID: u.ID, MsgType: *req.MsgType, Content: *req.Content}
		if err := tx.CreateSubmessage(ctx, &out); err != nil {
			return err
		}
		users, err := reactions.Audience(ctx, tx, m)
		if err != nil {
			return err
		}
		fx.Event(u.RealmID, chatcore.IncludeUser(users, u), map[string]any{
			"type": "submessage", "msg_type": out.MsgType, "message_id": m.ID,
			"submessage_id": out.ID, "sender_id": u.ID, "content": out.Content,
		})
		return nil
	})
	return out, err
}

// decodeJSON decodes one JSON document, numbers as json.Number.
func decodeJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON document")
	}
	return v, nil
}

// hasSubmessageFrom reports whether m has a submessage from user.
func hasSubmessageFrom(m *chatcore.Message, user chatcore.UserID) bool {
	for _, s := range m.Submessages {
		if s.SenderID == user {
			return true
		}
	}
	return false
}

// widgetType returns the widget_type of m's first widget submessage, ""
// when it has none or its content says none (Zulip's get_widget_type).
func widgetType(m *chatcore.Message) string {
	for _, s := range m.Submessages {
		if s.MsgType != chatcore.SubmessageTypeWidget {
			continue
		}
		var w struct {
			WidgetType any `json:"widget_type"`
		}
		if json.Unmarshal([]byte(s.Content), &w) != nil {
			return ""
		}
		t, _ := w.WidgetType.(string)
		return t
	}
	return ""
}
