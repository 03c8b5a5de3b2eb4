package chatcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/chatcore/chatcore/internal/pyrepr"
)

// webhookOutcome is what a delivery leads to. Empty fields mean "nothing".
type webhookOutcome struct {
	reply   string // the bot posts this in the conversation
	failure string // the bot posts "Failure! " + failure in the conversation
	// notice, when notify is set, is added to the direct message to the bot's owner.
	notify bool
	notice string
	// answer is the text of a 2xx answer whose reply is posted; when posting
	// it fails, the owner notice quotes it.
	answer  []byte
	aborted bool // the dispatcher is shutting down: post nothing
}

// The failure texts of Zulip's outgoing-webhook worker.
const (
	webhookUnavailable     = "Bot is unavailable"
	webhookSlackNoDMs      = "Slack outgoing webhooks don't support direct messages."
	webhookConnectionError = "A connection error occurred. Is my bot server down?"
	webhookPrivateNetwork  = "The URL configured for the webhook is for a private or disallowed network."
)

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

// exceptionOutcome is the outcome of a request that failed in a way that is
// neither an HTTP status, a timeout nor a connection error.
func exceptionOutcome(job *webhookJob, name string, err error) webhookOutcome {
	return webhookOutcome{
		failure: fmt.Sprintf("An exception of type *%s* occurred for message `%s`! See the Zulip server logs for more information.",
			name, job.command),
		notify: true,
		notice: fmt.Sprintf("When trying to send a request to the webhook service, an exception of type %s occurred:\n```\n%s\n```",
			name, err),
	}
}

// responseOutcome decides what an answer with the given status and body leads
// to, by the rules of Zulip's generic and Slack interfaces.
func responseOutcome(job *webhookJob, status int, body []byte) webhookOutcome {
	if status < 200 || status > 299 {
		out := webhookOutcome{
			failure: fmt.Sprintf("Third party responded with %d", status),
			notify:  true,
			notice:  fmt.Sprintf("The webhook got a response with status code *%d*.", status),
		}
		if status == http.StatusProxyAuthRequired {
			out.notice = webhookPrivateNetwork
		}
		if len(body) > 0 {
			out.notice += payloadBlock(pyrepr.Bytes(body)) // Zulip quotes response.content
		}
		return out
	}
	content, err := successContent(job.service.Interface, body)
	if err != nil {
		return unusableAnswer(err.Error(), body)
	}
	if strings.TrimSpace(content) == "" {
		return webhookOutcome{}
	}
	return webhookOutcome{reply: content, answer: body}
}

// unusableAnswer is the outcome of a 2xx answer that could not be turned into
// a posted reply: its JSON was unusable, or posting the reply was refused with
// msg. The owner notice quotes the answer as Zulip does (response.text).
func unusableAnswer(msg string, body []byte) webhookOutcome {
	out := webhookOutcome{
		failure: msg,
		notify:  true,
		notice: "The outgoing webhook server attempted to send a message in Zulip, " +
			"but that request resulted in the following error:\n> " + msg,
	}
	if len(body) > 0 {
		out.notice += payloadBlock(pyrepr.String(string(body)))
	}
	return out
}

// payloadBlock quotes a response body, already in its Python repr, for the
// owner notice.
func payloadBlock(repr string) string {
	return "\nThe response contains the following payload:\n```\n" + repr + "\n```"
}

// webhookAnswerError is a 2xx answer that cannot be used; its text is Zulip's.
type webhookAnswerError string

func (e webhookAnswerError) Error() string { return string(e) }

// successContent returns the reply text of a 2xx answer ("" for none), or a
// webhookAnswerError. Values that are not strings become text as Python's
// str() writes them, as in Zulip: {"content": null} replies "None".
func successContent(iface string, body []byte) (string, error) {
	if !json.Valid(body) {
		return "", webhookAnswerError("Invalid JSON in response")
	}
	if s, ok := pyrepr.JSONString(body); ok && s == "" {
		return "", nil // legacy "no response"
	}
	var obj map[string]json.RawMessage
	if body := bytes.TrimSpace(body); len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &obj) != nil {
		return "", webhookAnswerError("Invalid response format")
	}
	if iface == BotInterfaceSlack {
		// Zulip takes "text" as it is: null posts nothing, and a value that
		// is not a string fails inside its worker, posting nothing either.
		s, _ := pyrepr.JSONString(obj["text"])
		return s, nil
	}
	if raw, ok := obj["response_not_required"]; ok {
		var v any
		if json.Unmarshal(raw, &v) == nil && pyrepr.Truthy(v) {
			return "", nil
		}
	}
	if raw, ok := obj["response_string"]; ok {
		return pyrepr.Str(raw), nil
	}
	if raw, ok := obj["content"]; ok {
		return pyrepr.Str(raw), nil
	}
	return "", nil
}
