package chatcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/outgoing"
)

// The triggers of an outgoing webhook, the values of [outgoing.Payload].Trigger
// ("private_message" before feature level 201).
const (
	TriggerMention       = outgoing.TriggerMention
	TriggerDirectMessage = outgoing.TriggerDirectMessage
)

// The interfaces a [BotService] can speak.
const (
	BotInterfaceGeneric = "generic"
	BotInterfaceSlack   = "slack"
)

// webhookReplyClient is the client name of the messages bots post on behalf of
// their integration.
const webhookReplyClient = "OutgoingWebhookResponse"

// OutgoingWebhook is one request to one service of an outgoing-webhook bot,
// triggered by a message that has committed, as [Service.OutgoingWebhooks]
// builds it: who the bot is, what to POST, and where the bot answers. Package
// webhooks delivers it.
type OutgoingWebhook struct {
	RealmID RealmID
	BotID   UserID
	BotName string // the bot's full name
	OwnerID UserID // the bot's owner; zero: no owner to notify
	Service BotService
	// MessageID is the triggering message; MessageLink links to it in the web
	// app, for the notice to the bot's owner; Command is its raw content.
	MessageID   MessageID
	MessageLink string
	Command     string
	// Body and ContentType are the request: Zulip's JSON payload (an
	// [outgoing.Payload]) for the generic interface, Slack's form fields for
	// the "slack" interface. SlackDirect marks a "slack" service triggered by
	// a direct message, which Zulip refuses without a request (Body is empty).
	Body        []byte
	ContentType string
	SlackDirect bool
	// reply is where the bot answers: the triggering conversation.
	reply Destination
}

// OutgoingWebhooks returns the requests the committed message m triggers, m's
// content mentioning the users in mentioned (mentions in code left out): a
// channel message mentioning an outgoing-webhook bot (trigger "mention"), or a
// direct message with such a bot among its participants ("direct_message").
// Messages sent by bots trigger nothing; so do bots that are deactivated, of
// another realm or without services. The result lists bots in id order, each
// bot's services in id order. Errors come from the store.
func (s *Service) OutgoingWebhooks(ctx context.Context, m *Message, mentioned []UserID) ([]OutgoingWebhook, error) {
	if m.Type == MessageTypeStream && len(mentioned) == 0 {
		return nil, nil
	}
	var hooks []OutgoingWebhook
	err := s.view(ctx, func(tx Tx) error {
		var err error
		hooks, err = s.webhookJobs(ctx, tx, m, mentioned)
		return err
	})
	return hooks, err
}

// PostWebhookReply posts content as hook's bot in the conversation of the
// triggering message (a channel topic, which the bot need not be subscribed
// to, or the direct-message conversation), with client
// "OutgoingWebhookResponse", in one transaction with the checks of
// [Service.SendMessage]. A bot deactivated or deleted since the trigger posts
// nothing: the error is an [*Error] with [CodeUnauthorized].
func (s *Service) PostWebhookReply(ctx context.Context, hook *OutgoingWebhook, content string) error {
	return s.postAsBot(ctx, hook.BotID, hook.reply, content)
}

// NotifyWebhookOwner sends hook's bot owner a direct message from the bot, as
// [Service.PostWebhookReply] posts replies. It does nothing when the bot has no
// owner.
func (s *Service) NotifyWebhookOwner(ctx context.Context, hook *OutgoingWebhook, content string) error {
	if hook.OwnerID == 0 {
		return nil
	}
	return s.postAsBot(ctx, hook.BotID, Destination{To: []UserID{hook.OwnerID}}, content)
}

// postAsBot sends content from the bot in one transaction.
func (s *Service) postAsBot(ctx context.Context, botID UserID, dest Destination, content string) error {
	return s.update(ctx, func(tx Tx, fx *effects) error {
		bot, err := actor(ctx, tx, botID)
		if err != nil {
			return err
		}
		_, err = s.sendInTx(ctx, tx, fx, bot, dest, content, webhookReplyClient)
		return err
	})
}

// webhookJobs returns the requests m triggers, bots in id order, each bot's
// services in id order.
func (s *Service) webhookJobs(ctx context.Context, tx Tx, m *Message, mentioned []UserID) ([]OutgoingWebhook, error) {
	sender, err := tx.User(ctx, m.SenderID)
	if err != nil {
		return nil, err
	}
	if sender.IsBot {
		return nil, nil
	}
	trigger, candidates := TriggerMention, mentioned
	if m.Type == MessageTypePrivate {
		trigger, candidates = TriggerDirectMessage, m.DirectMembers
	}
	candidates = slices.Clone(candidates)
	slices.Sort(candidates)
	candidates = slices.Compact(candidates)
	var jobs []OutgoingWebhook
	for _, id := range candidates {
		bot, err := tx.User(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if bot.RealmID != m.RealmID || !bot.IsActive || !bot.IsBot || bot.BotType != BotTypeOutgoingWebhook || bot.ID == sender.ID {
			continue
		}
		services, err := tx.BotServices(ctx, bot.ID)
		if err != nil {
			return nil, err
		}
		if len(services) == 0 {
			continue
		}
		view, err := s.messageView(ctx, tx, m, bot, false)
		if err != nil {
			return nil, err
		}
		realm, err := tx.Realm(ctx, m.RealmID)
		if err != nil {
			return nil, err
		}
		streamName, _ := view.DisplayRecipient.(string)
		link := s.messageLink(m, streamName)
		reply := replyDestination(m, bot.ID)
		var payloadMessage *outgoing.Message // built once for the bot's services
		for _, svc := range services {
			job := OutgoingWebhook{
				RealmID:     m.RealmID,
				BotID:       bot.ID,
				BotName:     bot.FullName,
				OwnerID:     bot.BotOwnerID,
				Service:     svc,
				MessageID:   m.ID,
				MessageLink: link,
				Command:     m.Content,
				reply:       reply,
			}
			if svc.Interface == BotInterfaceSlack {
				if m.Type == MessageTypePrivate {
					job.SlackDirect = true
				} else {
					job.Body = []byte(s.slackForm(realm, bot, sender, m, streamName, trigger, svc).Encode())
					job.ContentType = "application/x-www-form-urlencoded"
				}
			} else {
				if payloadMessage == nil {
					payloadMessage = new(outgoingMessage(view))
				}
				var body bytes.Buffer
				enc := json.NewEncoder(&body)
				enc.SetEscapeHTML(false) // rendered_content stays readable: <p>, not \u003cp\u003e
				err := enc.Encode(outgoing.Payload{
					BotEmail:    bot.Email,
					BotFullName: bot.FullName,
					Data:        m.Content,
					Trigger:     trigger,
					Token:       svc.Token,
					Message:     *payloadMessage,
				})
				if err != nil {
					return nil, err
				}
				job.Body, job.ContentType = bytes.TrimSuffix(body.Bytes(), []byte("\n")), "application/json"
			}
			jobs = append(jobs, job)
		}
	}
	return jobs, nil
}

// replyDestination is where bot answers m: m's channel and topic, with no
// access check (as in Zulip, the bot need not be subscribed), or m's
// direct-message participants other than the bot.
func replyDestination(m *Message, bot UserID) Destination {
	if m.Type == MessageTypeStream {
		return Destination{StreamID: m.StreamID, Topic: m.Topic, SkipAccessCheck: true}
	}
	to := make([]UserID, 0, len(m.DirectMembers))
	for _, id := range m.DirectMembers {
		if id != bot {
			to = append(to, id)
		}
	}
	return Destination{To: to}
}

// slackForm is the form of Zulip's Slack-compatible interface.
func (s *Service) slackForm(realm *Realm, bot, sender *User, m *Message, streamName, trigger string, svc BotService) url.Values {
	ts := strconv.FormatInt(m.SentAt.Unix(), 10)
	domain := s.externalURL
	if u, err := url.Parse(s.externalURL); err == nil && u.Host != "" {
		domain = u.Host
	}
	return url.Values{
		"token":        {svc.Token},
		"team_id":      {"T" + strconv.FormatInt(int64(realm.ID), 10)},
		"team_domain":  {domain},
		"channel_id":   {"C" + strconv.FormatInt(int64(m.StreamID), 10)},
		"channel_name": {streamName},
		"thread_ts":    {ts},
		"timestamp":    {ts},
		"user_id":      {"U" + strconv.FormatInt(int64(sender.ID), 10)},
		"user_name":    {sender.FullName},
		"text":         {m.Content},
		"trigger_word": {trigger},
		"service_id":   {strconv.FormatInt(int64(bot.ID), 10)},
	}
}

// messageLink is the web-app link to m ("near" the message in its
// conversation), used in notices to bot owners; streamName is the name of m's
// channel (unused for a direct message). It is encoded as reminders encode
// theirs, the way Zulip's web app writes narrow URLs.
func (s *Service) messageLink(m *Message, streamName string) string {
	base := strings.TrimRight(s.externalURL, "/") + "/"
	if m.Type == MessageTypeStream {
		return base + channelMessageFragment(&Stream{ID: m.StreamID, Name: streamName}, m.Topic, m.ID)
	}
	return base + directMessageFragment(m.DirectMembers, m.ID)
}

// outgoingMessage is v in the wire types of the outgoing-webhook payload. It
// copies every field of MessageView, nil lists staying nil, so the payload's
// message encodes exactly as MessageView does (a test compares the two types
// field by field).
func outgoingMessage(v MessageView) outgoing.Message {
	m := outgoing.Message{
		AvatarURL:        v.AvatarURL,
		Client:           v.Client,
		Content:          v.Content,
		ContentType:      v.ContentType,
		DisplayRecipient: v.DisplayRecipient,
		EditHistory: convertAll(v.EditHistory, func(e EditHistoryView) outgoing.EditHistory {
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
		Reactions: convertAll(v.Reactions, func(r Reaction) outgoing.Reaction {
			return outgoing.Reaction{UserID: int64(r.UserID), EmojiName: r.EmojiName, EmojiCode: r.EmojiCode, ReactionType: r.ReactionType}
		}),
		RecipientID:    int64(v.RecipientID),
		SenderEmail:    v.SenderEmail,
		SenderFullName: v.SenderFullName,
		SenderID:       int64(v.SenderID),
		SenderRealmStr: v.SenderRealmStr,
		StreamID:       int64(v.StreamID),
		Subject:        v.Subject,
		Submessages: convertAll(v.Submessages, func(sm Submessage) outgoing.Submessage {
			return outgoing.Submessage{ID: sm.ID, MessageID: int64(sm.MessageID), SenderID: int64(sm.SenderID), MsgType: sm.MsgType, Content: sm.Content}
		}),
		Timestamp: v.Timestamp,
		TopicLinks: convertAll(v.TopicLinks, func(l TopicLink) outgoing.TopicLink {
			return outgoing.TopicLink{Text: l.Text, URL: l.URL}
		}),
		Type:            string(v.Type),
		RenderedContent: v.RenderedContent,
	}
	if users, ok := v.DisplayRecipient.([]DisplayRecipient); ok {
		m.DisplayRecipient = convertAll(users, func(u DisplayRecipient) outgoing.DisplayRecipient {
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
