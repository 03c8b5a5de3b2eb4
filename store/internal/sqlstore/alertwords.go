package sqlstore

import (
	"context"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// AlertWords implements [store.AlertWordStore].
func (x *Tx) AlertWords(ctx context.Context, user store.UserID) ([]string, error) {
	return scanAll(ctx, x, "alert words", func(r Row, w *string) error { return r.Scan(w) },
		"SELECT word FROM alert_words WHERE user_id = $1 ORDER BY id", user)
}

// RealmAlertWordsSQL reads the alert words of the realm $1, scanned with
// ScanAlertWord (see RealmAlertWords).
const RealmAlertWordsSQL = "SELECT user_id, word FROM alert_words WHERE realm_id = $1 ORDER BY user_id, id"

// ScanAlertWord scans a row of RealmAlertWordsSQL.
func ScanAlertWord(r Row, w *store.AlertWord) error { return r.Scan(Num(&w.UserID), &w.Word) }

// RealmAlertWords implements [store.AlertWordStore] through the realm index.
func (x *Tx) RealmAlertWords(ctx context.Context, realm store.RealmID) ([]store.AlertWord, error) {
	return scanAll(ctx, x, "realm alert words", ScanAlertWord, RealmAlertWordsSQL, realm)
}

// AddAlertWords implements [store.AlertWordStore] with one insert per new
// word, each skipped by the unique key when the user has it.
func (x *Tx) AddAlertWords(ctx context.Context, realm store.RealmID, user store.UserID, words []string) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	for _, w := range words {
		if _, err := x.q.Exec(ctx, `INSERT INTO alert_words (user_id, realm_id, word, word_key) VALUES ($1, $2, $3, $4)
			ON CONFLICT (user_id, word_key) DO NOTHING`, user, realm, w, strings.ToLower(w)); err != nil {
			return x.classify(err, "add alert words")
		}
	}
	return nil
}

// RemoveAlertWords implements [store.AlertWordStore] with one statement.
func (x *Tx) RemoveAlertWords(ctx context.Context, user store.UserID, words []string) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	if len(words) == 0 {
		return nil
	}
	keys := make([]string, len(words))
	for i, w := range words {
		keys[i] = strings.ToLower(w)
	}
	_, err := x.q.Exec(ctx, "DELETE FROM alert_words WHERE user_id = $1 AND "+x.d.In("word_key", "$2", "text"), user, x.d.Strings(keys))
	return x.classify(err, "remove alert words")
}
