// Package sqlstore is the SQL that chatcore's two SQL stores (store/sqlite
// and store/postgres) write once: the statements, row scanners and query
// builders of their common aggregates over a small seam (a [Querier] each
// store's transaction satisfies and a [Dialect] value for what the two
// databases spell differently), and the driver-independent helpers (the
// naming rule of embedded migrations, column scanners, the checking of a
// settings update, the key of a direct conversation). What is really each
// store's own, its hot paths and caches, stays in the store.
package sqlstore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// ID scans a nullable integer id column into p: NULL is 0.
func ID[T ~int64](p *T) IDScanner[T] { return IDScanner[T]{p} }

// IDScanner is the scanner [ID] returns.
type IDScanner[T ~int64] struct{ p *T }

// Scan implements sql.Scanner (which pgx also uses).
func (c IDScanner[T]) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*c.p = 0
	case int64:
		*c.p = T(v)
	default:
		return fmt.Errorf("id column holds %T", v)
	}
	return nil
}

// SettingValues checks the changes of one UPDATE of a user's setting
// columns and returns each change's value converted to its setting's type,
// in order: every name must be a key of columns, none may come twice, and
// every value must be valid for its setting.
func SettingValues(changes []store.SettingValue, columns map[string]string) ([]any, error) {
	var probe store.Settings
	out := make([]any, len(changes))
	for i, ch := range changes {
		if _, ok := columns[ch.Name]; !ok {
			return nil, fmt.Errorf("unknown setting %q", ch.Name)
		}
		for _, prev := range changes[:i] {
			if prev.Name == ch.Name {
				return nil, fmt.Errorf("setting %q named twice", ch.Name)
			}
		}
		if err := probe.Set(ch.Name, ch.Value); err != nil {
			return nil, err
		}
		out[i], _ = probe.Value(ch.Name)
	}
	return out, nil
}

// DirectKey returns the distinct members of a direct conversation,
// ascending, and the key the stores find the conversation by: their ids in
// that order, separated by commas.
func DirectKey(members []store.UserID) ([]store.UserID, string) {
	ids := slices.Compact(slices.Sorted(slices.Values(members)))
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(id), 10))
	}
	return ids, b.String()
}
