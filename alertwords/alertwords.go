// Package alertwords applies Zulip's rules for alert words: GET, POST and
// DELETE /users/me/alert_words, alert_words events and the alert_words
// section of POST /register. The has_alert_word flag a send sets, and the
// is:alerted narrow that reads it, are the root package's.
package alertwords

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
)

// MaxWordLength is the longest alert word in characters, as Zulip's.
const MaxWordLength = 100

// MaxWords bounds the words of one request (Zulip sets none).
const MaxWords = 1000

// Request is the parameters of POST and DELETE /users/me/alert_words.
type Request struct {
	AlertWords []string `json:"alert_words" wire:"required"`
}

// List returns the actor's alert words in the order they were added.
func List(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) ([]string, error) {
	var out []string
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		out, err = tx.AlertWords(ctx, u.ID)
		return err
	})
	return orEmpty(out), err
}

// Add adds words to the actor's alert words, as Zulip's add_alert_words:
// each is trimmed, empty ones are dropped, and a word the actor has in any
// case is not added again. It returns the actor's words, and sends them to
// the actor in an "alert_words" event.
//
// Errors (BAD_REQUEST): "alert_words[i] is too long (limit: 100
// characters)"; "alert_words is too long (limit: 1000 items)".
func Add(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req Request) ([]string, error) {
	if len(req.AlertWords) > MaxWords {
		return nil, chatcore.TooLongError("alert_words", MaxWords)
	}
	for i, w := range req.AlertWords {
		if utf8.RuneCountInString(w) > MaxWordLength {
			return nil, chatcore.BadRequestf("alert_words[%d] is too long (limit: %d characters)", i, MaxWordLength)
		}
	}
	var words []string
	for _, w := range req.AlertWords {
		if w = strings.TrimSpace(w); w != "" {
			words = append(words, w)
		}
	}
	return change(ctx, svc, actorID, func(tx chatcore.Tx, u *chatcore.User) error {
		return tx.AddAlertWords(ctx, u.RealmID, u.ID, words)
	})
}

// Remove removes the actor's alert words equal to any of req's in any
// case, as Zulip's remove_alert_words (words the actor does not have are
// ignored). It returns the actor's words and sends them in an
// "alert_words" event.
//
// Errors (BAD_REQUEST): "alert_words is too long (limit: 1000 items)".
func Remove(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req Request) ([]string, error) {
	if len(req.AlertWords) > MaxWords {
		return nil, chatcore.TooLongError("alert_words", MaxWords)
	}
	return change(ctx, svc, actorID, func(tx chatcore.Tx, u *chatcore.User) error {
		return tx.RemoveAlertWords(ctx, u.ID, req.AlertWords)
	})
}

// change runs write for the actor, then reads their words and sends the
// "alert_words" event, in one transaction.
func change(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, write func(chatcore.Tx, *chatcore.User) error) ([]string, error) {
	var out []string
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := write(tx, u); err != nil {
			return err
		}
		words, err := tx.AlertWords(ctx, u.ID)
		if err != nil {
			return err
		}
		out = orEmpty(words)
		fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{"type": "alert_words", "alert_words": out})
		return nil
	})
	return out, err
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
