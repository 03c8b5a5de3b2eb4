package httpadapter_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
)

// realmSectionKeys are the keys of the realm section, sorted.
func realmSectionKeys() []string {
	keys := append(httpadapter.RealmConstantKeys(), "max_reminder_note_length", "realm_date_created",
		"realm_email_changes_disabled", "realm_empty_topic_display_name", "realm_icon_url", "realm_name",
		"realm_name_changes_disabled", "realm_require_unique_names", "realm_url")
	slices.Sort(keys)
	return slices.Compact(keys)
}

// withoutKeys returns a copy of res whose JSON body lacks the keys: keys
// Zulip's server sends that the served excerpt's description leaves out.
func withoutKeys(tb testing.TB, res *response, keys ...string) *response {
	tb.Helper()
	body := maps.Clone(res.body)
	for _, k := range keys {
		delete(body, k)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		tb.Fatal(err)
	}
	out := *res
	out.body, out.raw = body, raw
	return &out
}
