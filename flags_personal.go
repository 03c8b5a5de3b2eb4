package chatcore

// The flags a send gives by the receivers' own settings: read for users who
// muted the sender, has_alert_word for users whose alert words the content
// holds.

import (
	"context"
	"strings"
	"unicode/utf8"
)

// personalFlagsAtSend adds to sf, for the receivers of m, read when they
// muted its sender (Zulip marks such messages read at send, so they never
// count as unread nor notify) and has_alert_word when the content holds one
// of their alert words (see [ContainsAlertWord]). It reads who muted the
// sender and the realm's alert words, one indexed read each.
func personalFlagsAtSend(ctx context.Context, tx Tx, m *Message, isReceiver func(UserID) bool, sf *sendFlags) error {
	add := func(u UserID, f MessageFlags) {
		cur, ok := sf.rows[u]
		if !ok {
			cur = sf.defaults
		}
		sf.rows[u] = cur | f
	}
	muters, err := tx.MutersOf(ctx, m.SenderID)
	if err != nil {
		return err
	}
	for _, u := range muters {
		if u != m.SenderID && isReceiver(u) {
			add(u, FlagRead)
			sf.mutedBy = append(sf.mutedBy, u)
		}
	}
	words, err := tx.RealmAlertWords(ctx, m.RealmID)
	if err != nil || len(words) == 0 {
		return err
	}
	lower := strings.ToLower(m.Content)
	for _, w := range words {
		if sf.rows[w.UserID]&FlagHasAlertWord != 0 || !isReceiver(w.UserID) {
			continue
		}
		if containsAlertWord(lower, strings.ToLower(w.Word)) {
			add(w.UserID, FlagHasAlertWord)
		}
	}
	return nil
}

// Zulip's AlertWordNotificationProcessor accepts an alert word in the
// message source when the character before it is one of
// alertBefore (or the word starts the message) and the one after it is one
// of alertAfter (or it ends the message).
const (
	alertBefore = " \n(\".,';[*`>"
	alertAfter  = " \n)\"?:.,';]!*`"
)

// ContainsAlertWord reports whether content holds word as Zulip finds
// alert words: case-insensitively, preceded by the start of the message or
// one of " \n(\".,';[*`>" and followed by its end or one of
// " \n)\"?:.,';]!*`". As in Zulip, a word starting at the second character
// is accepted whatever the first is.
func ContainsAlertWord(content, word string) bool {
	return containsAlertWord(strings.ToLower(content), strings.ToLower(word))
}

// containsAlertWord is ContainsAlertWord of lower-cased content and word.
func containsAlertWord(lower, w string) bool {
	if w == "" {
		return false
	}
	for from := 0; from <= len(lower); {
		i := strings.Index(lower[from:], w)
		if i < 0 {
			return false
		}
		start := from + i
		end := start + len(w)
		before, _ := utf8.DecodeLastRuneInString(lower[:start])
		startOK := utf8.RuneCountInString(lower[:start]) <= 1 || strings.ContainsRune(alertBefore, before)
		after, _ := utf8.DecodeRuneInString(lower[end:])
		endOK := end == len(lower) || strings.ContainsRune(alertAfter, after)
		if startOK && endOK {
			return true
		}
		_, size := utf8.DecodeRuneInString(lower[start:])
		from = start + size
	}
	return false
}
