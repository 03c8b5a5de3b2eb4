package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/pyrepr"
)

// outcome is what a delivery leads to. Empty fields mean "nothing".
type outcome struct {
	reply   string // the bot posts this in the conversation
	failure string // the bot posts "Failure! " + failure in the conversation
	// notice, when notify is set, is added to the direct message to the bot's owner.
	notify bool
	notice string
	// answer is the text of a 2xx answer whose reply is posted; when posting
	// it fails, the owner notice quotes it.
	answer  []byte
	aborted bool // the dispatcher is shutting down: post nothing
	// taken: the attempt was claimed elsewhere (another process resumed the
	// delivery) or the delivery is finished: post nothing.
	taken bool
	// dropped: every attempt started before a restart; post nothing.
	dropped bool
}

// The failure texts of Zulip's outgoing-webhook worker.
const (
	unavailable           = "Bot is unavailable"
	slackNoDMs            = "Slack outgoing webhooks don't support direct messages."
	connectionErrorNotice = "A connection error occurred. Is my bot server down?"
	privateNetworkNotice  = "The URL configured for the webhook is for a private or disallowed network."
)

// apply posts what a finished delivery calls for, as the bot: the reply, or a
// "Failure! ..." notice in the conversation, and a direct message to the bot's
// owner. A reply that cannot be sent becomes a failure notice. Errors are
// logged: there is no caller to return them to.
func (d *dispatcher) apply(ctx context.Context, hook *chatcore.OutgoingWebhook, out outcome) {
	if out.reply != "" {
		err := d.s.PostWebhookReply(ctx, hook, out.reply)
		if err == nil {
			return
		}
		e, ok := errors.AsType[*chatcore.Error](err)
		if ok && e.Code == chatcore.CodeUnauthorized {
			// The bot was deactivated (or deleted) meanwhile: it can post nothing.
			d.log().WarnContext(ctx, "chatcore: outgoing webhook reply dropped: "+e.Msg, "bot_id", hook.Bot.ID, "message_id", hook.Message.ID)
			return
		}
		if !ok {
			d.log().ErrorContext(ctx, "chatcore: posting outgoing webhook reply", "bot_id", hook.Bot.ID, "message_id", hook.Message.ID, "err", err)
			return
		}
		out = unusableAnswer(e.Msg, out.answer)
	}
	if out.failure != "" {
		if err := d.s.PostWebhookReply(ctx, hook, "Failure! "+out.failure); err != nil {
			d.log().ErrorContext(ctx, "chatcore: posting outgoing webhook failure", "bot_id", hook.Bot.ID, "message_id", hook.Message.ID, "err", err)
		}
	}
	if out.notify && hook.Bot.OwnerID != 0 {
		text := fmt.Sprintf("[A message](%s) to your bot @_**%s** triggered an outgoing webhook.", hook.MessageLink, hook.Bot.FullName)
		if out.notice != "" {
			text += "\n" + out.notice
		}
		if err := d.s.NotifyWebhookOwner(ctx, hook, text); err != nil {
			d.log().ErrorContext(ctx, "chatcore: notifying bot owner", "bot_id", hook.Bot.ID, "owner_id", hook.Bot.OwnerID, "err", err)
		}
	}
}

// exceptionOutcome is the outcome of a request that failed in a way that is
// neither an HTTP status, a timeout nor a connection error.
func exceptionOutcome(hook *chatcore.OutgoingWebhook, name string, err error) outcome {
	return outcome{
		failure: fmt.Sprintf("An exception of type *%s* occurred for message `%s`! See the Zulip server logs for more information.",
			name, hook.Message.Content),
		notify: true,
		notice: fmt.Sprintf("When trying to send a request to the webhook service, an exception of type %s occurred:\n```\n%s\n```",
			name, err),
	}
}

// responseOutcome decides what an answer with the given status and body leads
// to, by the rules of Zulip's generic and Slack interfaces.
func responseOutcome(hook *chatcore.OutgoingWebhook, status int, body []byte) outcome {
	if status < 200 || status > 299 {
		out := outcome{
			failure: fmt.Sprintf("Third party responded with %d", status),
			notify:  true,
			notice:  fmt.Sprintf("The webhook got a response with status code *%d*.", status),
		}
		if status == http.StatusProxyAuthRequired {
			out.notice = privateNetworkNotice
		}
		if len(body) > 0 {
			out.notice += payloadBlock(pyrepr.Bytes(body)) // Zulip quotes response.content
		}
		return out
	}
	content, err := successContent(hook.Service.Interface, body)
	if err != nil {
		return unusableAnswer(err.Error(), body)
	}
	if strings.TrimSpace(content) == "" {
		return outcome{}
	}
	return outcome{reply: content, answer: body}
}

// unusableAnswer is the outcome of a 2xx answer that could not be turned into
// a posted reply: its JSON was unusable, or posting the reply was refused with
// msg. The owner notice quotes the answer as Zulip does (response.text).
func unusableAnswer(msg string, body []byte) outcome {
	out := outcome{
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

// answerError is a 2xx answer that cannot be used; its text is Zulip's.
type answerError string

func (e answerError) Error() string { return string(e) }

// successContent returns the reply text of a 2xx answer ("" for none), or a
// answerError. Values that are not strings become text as Python's
// str() writes them, as in Zulip: {"content": null} replies "None".
func successContent(iface string, body []byte) (string, error) {
	if !json.Valid(body) {
		return "", answerError("Invalid JSON in response")
	}
	if s, ok := pyrepr.JSONString(body); ok && s == "" {
		return "", nil // legacy "no response"
	}
	var obj map[string]json.RawMessage
	if body := bytes.TrimSpace(body); len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &obj) != nil {
		return "", answerError("Invalid response format")
	}
	if iface == chatcore.BotInterfaceSlack {
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
