package sqlstore

import (
	"testing"

	"github.com/chatcore/chatcore/store"
)

// The partial index messages_recipient_personal_defaults, in a migration of
// each SQL store, and the ranges that read it spell the mention bits as 56.
func TestPersonalDefaultsPredicate(t *testing.T) {
	if want := "(m.default_flags | " + itoa(store.MentionFlags) + ") <> " + itoa(store.MentionFlags); personalDefaults != want {
		t.Errorf("personalDefaults = %q, want %q (the mention bits changed: the index needs a migration)", personalDefaults, want)
	}
}
