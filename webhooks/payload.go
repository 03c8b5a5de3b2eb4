package webhooks

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/outgoing"
)

// request returns the body and content type of h's request: Zulip's JSON
// payload (an [outgoing.Payload]) for the generic interface, Slack's form
// fields for the "slack" interface. A "slack" service triggered by a direct
// message gets no request (Zulip refuses it): slackDM is then true.
func request(h *chatcore.OutgoingWebhook) (body []byte, contentType string, slackDM bool, err error) {
	if h.Service.Interface == chatcore.BotInterfaceSlack {
		if h.Message.Type == chatcore.MessageTypePrivate {
			return nil, "", true, nil
		}
		return []byte(slackForm(h).Encode()), "application/x-www-form-urlencoded", false, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // rendered_content stays readable: <p>, not \u003cp\u003e
	err = enc.Encode(outgoing.Payload{
		BotEmail:    h.Bot.Email,
		BotFullName: h.Bot.FullName,
		Data:        h.Message.Content,
		Trigger:     h.Trigger,
		Token:       h.Service.Token,
		Message:     outgoingMessage(h.Message),
	})
	if err != nil {
		return nil, "", false, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), "application/json", false, nil
}

// slackForm is the form of Zulip's Slack-compatible interface.
// The team is the realm, the team's domain the host of the server's URL.
func slackForm(h *chatcore.OutgoingWebhook) url.Values {
	m := &h.Message
	ts := strconv.FormatInt(m.Timestamp, 10)
	streamName, _ := m.DisplayRecipient.(string)
	domain := h.ServerURL
	if u, err := url.Parse(h.ServerURL); err == nil && u.Host != "" {
		domain = u.Host
	}
	return url.Values{
		"token":        {h.Service.Token},
		"team_id":      {"T" + strconv.FormatInt(int64(h.RealmID), 10)},
		"team_domain":  {domain},
		"channel_id":   {"C" + strconv.FormatInt(int64(m.StreamID), 10)},
		"channel_name": {streamName},
		"thread_ts":    {ts},
		"timestamp":    {ts},
		"user_id":      {"U" + strconv.FormatInt(int64(m.SenderID), 10)},
		"user_name":    {m.SenderFullName},
		"text":         {m.Content},
		"trigger_word": {h.Trigger},
		"service_id":   {strconv.FormatInt(int64(h.Bot.ID), 10)},
	}
}

// outgoingMessage is v in the wire types of the outgoing-webhook payload. It
// copies every field of chatcore.MessageView, nil lists staying nil, so the payload's
// message encodes exactly as chatcore.MessageView does (a test compares the two types
// field by field).
func outgoingMessage(v chatcore.MessageView) outgoing.Message {
	m := outgoing.Message{
		AvatarURL:        v.AvatarURL,
		Client:           v.Client,
		Content:          v.Content,
		ContentType:      v.ContentType,
		DisplayRecipient: v.DisplayRecipient,
		EditHistory: convertAll(v.EditHistory, func(e chatcore.EditHistoryView) outgoing.EditHistory {
			return outgoing.EditHistory{
				UserID: int64(e.UserID), Timestamp: e.Timestamp,
				PrevContent: e.PrevContent, PrevRenderedContent: e.PrevRenderedContent,
				PrevStream: int64(e.PrevStream), Stream: int64(e.Stream),
				PrevTopic: e.PrevTopic, Topic: e.Topic,
			}
		}),
		ID:                 int64(v.ID),
		IsMeMessage:        v.IsMeMessage,
		LastEditTimestamp:  v.LastEditTimestamp,
		LastMovedTimestamp: v.LastMovedTimestamp,
		Reactions: convertAll(v.Reactions, func(r chatcore.Reaction) outgoing.Reaction {
			return outgoing.Reaction{UserID: int64(r.UserID), EmojiName: r.EmojiName, EmojiCode: r.EmojiCode, ReactionType: r.ReactionType}
		}),
		RecipientID:    int64(v.RecipientID),
		SenderEmail:    v.SenderEmail,
		SenderFullName: v.SenderFullName,
		SenderID:       int64(v.SenderID),
		SenderRealmStr: v.SenderRealmStr,
		StreamID:       int64(v.StreamID),
		Subject:        v.Subject,
		Submessages: convertAll(v.Submessages, func(sm chatcore.Submessage) outgoing.Submessage {
			return outgoing.Submessage{ID: sm.ID, MessageID: int64(sm.MessageID), SenderID: int64(sm.SenderID), MsgType: sm.MsgType, Content: sm.Content}
		}),
		Timestamp: v.Timestamp,
		TopicLinks: convertAll(v.TopicLinks, func(l chatcore.TopicLink) outgoing.TopicLink {
			return outgoing.TopicLink{Text: l.Text, URL: l.URL}
		}),
		Type:            string(v.Type),
		RenderedContent: v.RenderedContent,
		MatchContent:    v.MatchContent,
		MatchSubject:    v.MatchSubject,
	}
	if users, ok := v.DisplayRecipient.([]chatcore.DisplayRecipient); ok {
		m.DisplayRecipient = convertAll(users, func(u chatcore.DisplayRecipient) outgoing.DisplayRecipient {
			return outgoing.DisplayRecipient{ID: int64(u.ID), Email: u.Email, FullName: u.FullName, IsMirrorDummy: u.IsMirrorDummy}
		})
	}
	return m
}

// convertAll returns f of each element of in; nil for a nil in.
func convertAll[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
