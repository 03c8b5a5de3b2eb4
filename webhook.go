package chatcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// The triggers of an outgoing webhook ("private_message" before feature level 201).
const (
	TriggerMention       = "mention"
	TriggerDirectMessage = "direct_message"
)

// The interfaces a [BotService] can speak.
const (
	BotInterfaceGeneric = "generic"
	BotInterfaceSlack   = "slack"
)

// webhookReplyClient is the client name of the messages bots post on behalf of
// their integration.
const webhookReplyClient = "OutgoingWebhookResponse"

// OutgoingWebhookPayload is the JSON body chatcore POSTs to a bot's service
// (generic interface) when a message triggers the bot. Message is the
// triggering message in the message-list format as the bot sees it, with
// Content the raw Markdown (content_type "text/x-markdown").
//
// Decoding a payload with encoding/json gives Message.DisplayRecipient as a
// string for a channel message and a []DisplayRecipient for a direct message.
type OutgoingWebhookPayload struct {
	// BotEmail is the bot's e-mail.
	BotEmail string `json:"bot_email"`
	// BotFullName is the bot's full name.
	BotFullName string `json:"bot_full_name"`
	// Data is the triggering message's raw Markdown.
	Data string `json:"data"`
	// Trigger is TriggerMention or TriggerDirectMessage.
	Trigger string `json:"trigger"`
	// Token is the service's token; the receiver checks it to authenticate
	// the request.
	Token   string      `json:"token"`
	Message MessageView `json:"message"`
}

// UnmarshalJSON decodes a payload, turning the message's display_recipient into
// a string (channel) or a []DisplayRecipient (direct message).
func (p *OutgoingWebhookPayload) UnmarshalJSON(b []byte) error {
	type plain OutgoingWebhookPayload
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	var raw struct {
		Message struct {
			DisplayRecipient json.RawMessage `json:"display_recipient"`
		} `json:"message"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if dr := raw.Message.DisplayRecipient; len(dr) > 0 && dr[0] == '[' {
		var users []DisplayRecipient
		if err := json.Unmarshal(dr, &users); err != nil {
			return fmt.Errorf("display_recipient: %w", err)
		}
		v.Message.DisplayRecipient = users
	}
	*p = OutgoingWebhookPayload(v)
	return nil
}

// afterSend triggers the outgoing-webhook bots of a message that has just
// committed: a channel message mentioning such a bot ("mention"; mentioned
// already leaves out mentions in code), or a direct message with such a bot
// among its participants ("direct_message"). Messages sent by bots trigger
// nothing. It builds one job per service of each bot and queues them without
// waiting; failures are logged, since the send itself has succeeded.
func (s *Service) afterSend(ctx context.Context, m *Message, mentioned []UserID) {
	d := s.webhooks
	if d == nil || (m.Type == MessageTypeStream && len(mentioned) == 0) {
		return
	}
	// The message is committed: build the jobs even if the request is cancelled.
	ctx = context.WithoutCancel(ctx)
	var jobs []*webhookJob
	err := s.view(ctx, func(tx Tx) error {
		var err error
		jobs, err = s.webhookJobs(ctx, tx, m, mentioned)
		return err
	})
	if err != nil {
		s.log.ErrorContext(ctx, "chatcore: building outgoing webhooks", "message_id", m.ID, "err", err)
		return
	}
	for _, j := range jobs {
		d.enqueue(ctx, j)
	}
}

// webhookJobs returns the deliveries m triggers, bots in id order, each bot's
// services in id order.
func (s *Service) webhookJobs(ctx context.Context, tx Tx, m *Message, mentioned []UserID) ([]*webhookJob, error) {
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
	var jobs []*webhookJob
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
		for _, svc := range services {
			job := &webhookJob{
				realm:     m.RealmID,
				botID:     bot.ID,
				botName:   bot.FullName,
				ownerID:   bot.BotOwnerID,
				service:   svc,
				messageID: m.ID,
				link:      s.messageLink(m, streamName),
				command:   m.Content,
				conv: webhookConversation{
					Type: m.Type, StreamID: m.StreamID, Topic: m.Topic,
					Members: slices.Clone(m.DirectMembers),
				},
			}
			if svc.Interface == BotInterfaceSlack {
				if m.Type == MessageTypePrivate {
					job.slackDM = true
				} else {
					job.body = []byte(s.slackForm(realm, bot, sender, m, streamName, trigger, svc).Encode())
					job.contentType = "application/x-www-form-urlencoded"
				}
			} else {
				var body bytes.Buffer
				enc := json.NewEncoder(&body)
				enc.SetEscapeHTML(false) // rendered_content stays readable: <p>, not \u003cp\u003e
				err := enc.Encode(OutgoingWebhookPayload{
					BotEmail:    bot.Email,
					BotFullName: bot.FullName,
					Data:        m.Content,
					Trigger:     trigger,
					Token:       svc.Token,
					Message:     view,
				})
				if err != nil {
					return nil, err
				}
				job.body, job.contentType = bytes.TrimSuffix(body.Bytes(), []byte("\n")), "application/json"
			}
			jobs = append(jobs, job)
		}
	}
	return jobs, nil
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

// applyWebhookOutcome posts what a finished delivery calls for, as the bot: the
// reply, or a "Failure! ..." notice in the conversation, and a direct message
// to the bot's owner. A reply that cannot be sent becomes a failure notice.
// Errors are logged: there is no caller to return them to.
func (s *Service) applyWebhookOutcome(ctx context.Context, job *webhookJob, out webhookOutcome) {
	if out.reply != "" {
		err := s.postAsBot(ctx, job, s.conversationDest(job), out.reply)
		if err == nil {
			return
		}
		e, ok := errors.AsType[*Error](err)
		if ok && e.Code == CodeUnauthorized {
			// The bot was deactivated (or deleted) meanwhile: it can post nothing.
			s.log.WarnContext(ctx, "chatcore: outgoing webhook reply dropped: "+e.Msg, "bot_id", job.botID, "message_id", job.messageID)
			return
		}
		if !ok {
			s.log.ErrorContext(ctx, "chatcore: posting outgoing webhook reply", "bot_id", job.botID, "message_id", job.messageID, "err", err)
			return
		}
		out = unusableAnswer(e.Msg, out.answer)
	}
	if out.failure != "" {
		if err := s.postAsBot(ctx, job, s.conversationDest(job), "Failure! "+out.failure); err != nil {
			s.log.ErrorContext(ctx, "chatcore: posting outgoing webhook failure", "bot_id", job.botID, "message_id", job.messageID, "err", err)
		}
	}
	if out.notify && job.ownerID != 0 {
		text := fmt.Sprintf("[A message](%s) to your bot @_**%s** triggered an outgoing webhook.", job.link, job.botName)
		if out.notice != "" {
			text += "\n" + out.notice
		}
		if err := s.postAsBot(ctx, job, Destination{To: []UserID{job.ownerID}}, text); err != nil {
			s.log.ErrorContext(ctx, "chatcore: notifying bot owner", "bot_id", job.botID, "owner_id", job.ownerID, "err", err)
		}
	}
}

// conversationDest is where the bot answers the triggering message.
func (s *Service) conversationDest(job *webhookJob) Destination {
	if job.conv.Type == MessageTypeStream {
		return Destination{StreamID: job.conv.StreamID, Topic: job.conv.Topic, SkipAccessCheck: true}
	}
	to := make([]UserID, 0, len(job.conv.Members))
	for _, id := range job.conv.Members {
		if id != job.botID {
			to = append(to, id)
		}
	}
	return Destination{To: to}
}

// postAsBot sends content from the job's bot in one transaction. A bot that has
// been deactivated since the trigger posts nothing (an *Error is returned).
func (s *Service) postAsBot(ctx context.Context, job *webhookJob, dest Destination, content string) error {
	return s.update(ctx, func(tx Tx, fx *effects) error {
		bot, err := actor(ctx, tx, job.botID)
		if err != nil {
			return err
		}
		_, err = s.sendInTx(ctx, tx, fx, bot, dest, content, webhookReplyClient)
		return err
	})
}
