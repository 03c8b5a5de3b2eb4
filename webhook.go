package chatcore

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/chatcore/chatcore/internal/narrowlink"
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
// builds it: the bot, the service, the trigger, the message as the bot sees
// it, and (unexported) where the bot answers. Package webhooks encodes it as
// Zulip's payload or Slack's form, delivers it and posts the outcome.
type OutgoingWebhook struct {
	RealmID RealmID
	Bot     WebhookBot
	Service BotService
	// Trigger is [TriggerMention] or [TriggerDirectMessage].
	Trigger string
	// Message is the triggering message as the bot sees it, in the
	// message-list format with its raw Markdown as Content (text/x-markdown)
	// and its HTML as RenderedContent.
	Message MessageView
	// MessageLink links to the triggering message in the web app, for the
	// notice to the bot's owner.
	MessageLink string
	// ServerURL is the Service's external URL ([WithExternalURL]); Slack's
	// team_domain is its host.
	ServerURL string
	// DeliveryID is the stored delivery of the request (see
	// [WithWebhookOutbox]); 0 when it is not stored.
	DeliveryID int64
	// Attempts is how many attempts of a stored delivery were started
	// before (by a process that stopped); 0 for a new one.
	Attempts int
	// reply is where the bot answers: the triggering conversation.
	reply Destination
}

// WebhookBot is the bot of an [OutgoingWebhook].
type WebhookBot struct {
	ID       UserID
	Email    string
	FullName string
	OwnerID  UserID // zero: no owner to notify
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
	err := s.View(ctx, func(tx Tx) error {
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
//
// The same transaction deletes hook's stored delivery (see
// [WithWebhookOutbox]), so a reply is posted at most once.
func (s *Service) PostWebhookReply(ctx context.Context, hook *OutgoingWebhook, content string) error {
	return s.Update(ctx, func(tx Tx, fx *Effects) error {
		bot, err := Actor(ctx, tx, hook.Bot.ID)
		if err != nil {
			return err
		}
		if _, err = s.SendInTx(ctx, tx, fx, bot, hook.reply, content, webhookReplyClient); err != nil {
			return err
		}
		if hook.DeliveryID != 0 {
			_, err = tx.DeleteWebhookDelivery(ctx, hook.DeliveryID)
		}
		return err
	})
}

// WithWebhookOutbox makes the Service store the outgoing-webhook requests
// each message triggers (the store's WebhookStore) in the transaction that
// sends it, and hand them to the [MessageHook]s in [SentMessage].Webhooks,
// each with its DeliveryID: a request is then never lost between the commit
// and its delivery, even by a crash. The deliverer claims each attempt
// ([Service.ClaimWebhookAttempt]), finishes each request
// ([Service.FinishWebhook], or [Service.PostWebhookReply], which finishes it
// with the reply), and takes the ones a stopped process left unfinished from
// [Service.PendingWebhooks]. Package webhooks' Delivery turns it on.
func WithWebhookOutbox() Option { return func(s *Service) { s.webhookOutbox = true } }

// handOff records in fx that m was sent, mentioning mentioned, muted by
// mutedBy (see [SentMessage]), and, with the
// webhook outbox, stores the requests m triggers in tx.
func (s *Service) handOff(ctx context.Context, tx Tx, fx *Effects, m *Message, mentioned, mutedBy []UserID) error {
	var hooks []OutgoingWebhook
	if s.webhookOutbox && (m.Type != MessageTypeStream || len(mentioned) > 0) {
		var err error
		if hooks, err = s.webhookJobs(ctx, tx, m, mentioned); err != nil {
			return err
		}
		now := s.Now()
		for i := range hooks {
			h := &hooks[i]
			d := &WebhookDelivery{RealmID: m.RealmID, MessageID: m.ID, BotID: h.Bot.ID, ServiceID: h.Service.ID,
				Trigger: h.Trigger, Created: now, AttemptedAt: now}
			if err := tx.CreateWebhookDelivery(ctx, d); err != nil {
				return err
			}
			h.DeliveryID = d.ID
		}
	}
	fx.sentMsg(m, mentioned, hooks, mutedBy)
	return nil
}

// PendingWebhooks returns the stored outgoing-webhook requests whose last
// attempt started (or which were stored, before any) before the time
// before, with a DeliveryID above after, ascending by it, at most limit
// (positive) read, rebuilt from their message as their bot sees it now. A
// request whose message, bot or service is gone, or whose bot is
// deactivated, is deleted instead: there is nothing to deliver, or no one to
// post as. It also returns the last DeliveryID read (0 when none), for the
// next page. Errors come from the store.
func (s *Service) PendingWebhooks(ctx context.Context, before time.Time, after int64, limit int) ([]OutgoingWebhook, int64, error) {
	var hooks []OutgoingWebhook
	var last int64
	err := s.store.Update(ctx, func(tx Tx) error {
		hooks, last = nil, 0
		ds, err := tx.WebhookDeliveries(ctx, WebhookDeliveryFilter{AttemptedBefore: before, AfterID: after, Limit: limit})
		if err != nil {
			return err
		}
		for i := range ds {
			last = ds[i].ID
			h, err := s.storedWebhook(ctx, tx, &ds[i])
			if err != nil {
				return err
			}
			if h == nil {
				if _, err := tx.DeleteWebhookDelivery(ctx, ds[i].ID); err != nil {
					return err
				}
				continue
			}
			hooks = append(hooks, *h)
		}
		return nil
	})
	return hooks, last, err
}

// storedWebhook rebuilds the request of d, or returns nil when its message,
// bot or service is gone or its bot is deactivated.
func (s *Service) storedWebhook(ctx context.Context, tx Tx, d *WebhookDelivery) (*OutgoingWebhook, error) {
	m, err := tx.Message(ctx, d.MessageID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	bot, err := tx.User(ctx, d.BotID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !bot.IsActive {
		return nil, nil
	}
	services, err := tx.BotServices(ctx, bot.ID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(services, func(b BotService) bool { return b.ID == d.ServiceID })
	if i < 0 {
		return nil, nil
	}
	h, err := s.webhookJob(ctx, tx, m, bot, services[i], d.Trigger)
	if err != nil {
		return nil, err
	}
	h.DeliveryID, h.Attempts = d.ID, d.Attempts
	return &h, nil
}

// ClaimWebhookAttempt records that attempt number attempt (from 1) of hook's
// stored delivery starts now, and reports whether it may run: false when the
// delivery is finished or that attempt was claimed already (by this process
// or another sharing the store), so each attempt runs at most once. A
// request that is not stored (DeliveryID 0) may always run. Errors come from
// the store.
func (s *Service) ClaimWebhookAttempt(ctx context.Context, hook *OutgoingWebhook, attempt int) (bool, error) {
	if hook.DeliveryID == 0 {
		return true, nil
	}
	var ok bool
	err := s.store.Update(ctx, func(tx Tx) error {
		var err error
		ok, err = tx.ClaimWebhookAttempt(ctx, hook.DeliveryID, attempt, s.Now())
		return err
	})
	return ok, err
}

// FinishWebhook deletes hook's stored delivery (nothing when there is
// none): its outcome has been dealt with. Errors come from the store.
func (s *Service) FinishWebhook(ctx context.Context, hook *OutgoingWebhook) error {
	if hook.DeliveryID == 0 {
		return nil
	}
	return s.store.Update(ctx, func(tx Tx) error {
		_, err := tx.DeleteWebhookDelivery(ctx, hook.DeliveryID)
		return err
	})
}

// NotifyWebhookOwner sends hook's bot owner a direct message from the bot, as
// [Service.PostWebhookReply] posts replies. It does nothing when the bot has no
// owner.
func (s *Service) NotifyWebhookOwner(ctx context.Context, hook *OutgoingWebhook, content string) error {
	if hook.Bot.OwnerID == 0 {
		return nil
	}
	return s.postAsBot(ctx, hook.Bot.ID, Destination{To: []UserID{hook.Bot.OwnerID}}, content)
}

// postAsBot sends content from the bot in one transaction.
func (s *Service) postAsBot(ctx context.Context, botID UserID, dest Destination, content string) error {
	return s.Update(ctx, func(tx Tx, fx *Effects) error {
		bot, err := Actor(ctx, tx, botID)
		if err != nil {
			return err
		}
		_, err = s.SendInTx(ctx, tx, fx, bot, dest, content, webhookReplyClient)
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
	// One read for the active bots among the candidates: a send runs this in
	// its write transaction (WithWebhookOutbox), and most candidates are
	// people.
	yes := true
	bots, err := tx.Users(ctx, UserFilter{RealmID: m.RealmID, IDs: candidates, Active: &yes, Bot: &yes})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(bots, func(a, b User) int { return cmp.Compare(a.ID, b.ID) })
	var jobs []OutgoingWebhook
	for i := range bots {
		bot := &bots[i]
		if bot.BotType != BotTypeOutgoingWebhook || bot.ID == sender.ID {
			continue
		}
		services, err := tx.BotServices(ctx, bot.ID)
		if err != nil {
			return nil, err
		}
		if len(services) == 0 {
			continue
		}
		for _, svc := range services {
			h, err := s.webhookJob(ctx, tx, m, bot, svc, trigger)
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, h)
		}
	}
	return jobs, nil
}

// webhookJob returns the request m triggers to svc of bot.
func (s *Service) webhookJob(ctx context.Context, tx Tx, m *Message, bot *User, svc BotService, trigger string) (OutgoingWebhook, error) {
	view, err := s.messageView(ctx, tx, m, false)
	if err != nil {
		return OutgoingWebhook{}, err
	}
	streamName, _ := view.DisplayRecipient.(string)
	return OutgoingWebhook{
		RealmID:     m.RealmID,
		Bot:         WebhookBot{ID: bot.ID, Email: bot.Email, FullName: bot.FullName, OwnerID: bot.BotOwnerID},
		Service:     svc,
		Trigger:     trigger,
		Message:     view,
		MessageLink: s.messageLink(m, streamName),
		ServerURL:   s.externalURL,
		reply:       replyDestination(m, bot.ID),
	}, nil
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

// messageLink is the web-app link to m ("near" the message in its
// conversation), used in notices to bot owners; streamName is the name of m's
// channel (unused for a direct message). It is encoded as reminders encode
// theirs, the way Zulip's web app writes narrow URLs.
func (s *Service) messageLink(m *Message, streamName string) string {
	base := strings.TrimRight(s.externalURL, "/") + "/"
	if m.Type == MessageTypeStream {
		return base + narrowlink.ChannelMessage(int64(m.StreamID), streamName, m.Topic, int64(m.ID))
	}
	return base + narrowlink.DirectMessage(m.DirectMembers, int64(m.ID))
}
