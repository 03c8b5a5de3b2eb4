package settings_test

import (
	"slices"
	"testing"

	"github.com/chatcore/chatcore/settings"
	"github.com/matryer/is"
)

func TestOnlyNonSensitiveSettingsAreBulkEditable(t *testing.T) {
	is := is.New(t)
	// Zulip's SECURITY_SENSITIVE_USER_SETTINGS.
	sensitive := []string{"allow_private_data_export", "email_address_visibility", "enable_digest_emails",
		"enable_login_emails", "enable_marketing_emails", "presence_enabled",
		"send_private_typing_notifications", "send_read_receipts", "send_stream_typing_notifications"}
	var got, selfOnly []string
	for _, r := range settings.Table {
		switch r.Who {
		case settings.UserOnlySensitive:
			got = append(got, r.Name)
		case settings.UserOnly:
			selfOnly = append(selfOnly, r.Name)
		}
	}
	slices.Sort(got)
	is.Equal(got, sensitive)                 // the table marks exactly Zulip's security-sensitive settings
	is.Equal(selfOnly, []string{"timezone"}) // and the time zone, which bulk edits do not take
}

func TestLateChecksRunInTableOrder(t *testing.T) {
	is := is.New(t)
	var late []string
	for _, r := range settings.Table {
		if r.Late {
			late = append(late, r.Name)
		}
	}
	// Zulip's view checks the language, then the sound, then the batching period.
	is.Equal(late, []string{"default_language", "notification_sound", "email_notifications_batching_period_seconds"}) // view order
}
