package httpadapter_test

import (
	"slices"

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
