package httpadapter_test

import (
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// Every full POST /register answer (every section: no event_types and no
// fetch_event_types) validates against the complete /register schema of
// the served excerpt, whoever asks and however, on every store; so do the
// answers restricted by fetch_event_types.
func TestRegisterMatchesServedSchema(t *testing.T) {
	doc := servedSpec(t)
	variants := []struct {
		name string
		kv   []string
	}{
		{"defaults", nil},
		{"the mobile app's", []string{"idle_queue_timeout", `"mobile"`, "apply_markdown", "true", "client_gravatar", "false",
			"slim_presence", "true", "client_capabilities", appCapabilities}},
		{"legacy clients", []string{"apply_markdown", "false", "client_gravatar", "true", "slim_presence", "false",
			"include_subscribers", "true", "client_capabilities", `{"notification_settings_null":false}`}},
		{"partial subscribers, simplified presence", []string{"include_subscribers", "partial", "queue_lifespan_secs", "3600",
			"client_capabilities", `{"simplified_presence_events":true,"linkifier_url_template":true}`}},
		{"some sections", []string{"fetch_event_types", `["realm","recent_private_conversations","stream","presence","message","update_message_flags"]`}},
	}
	callers := []*cred{&owner, &admin, &moderator, &member, &guest, &bot}
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			for _, v := range variants {
				for _, c := range callers {
					t.Run(v.name+"/"+c.email, func(t *testing.T) {
						is := is.New(t)
						res := e.do(t, request{method: "POST", path: "/register", auth: c, enc: urlEncoded, params: params(v.kv...)})
						wantSuccess(t, res)
						is.Equal(ignoredOf(res), nil) // every parameter read
						checkDoc(t, doc, "POST", "/register", res)
						if v.kv == nil {
							for _, gone := range []string{"realm_is_zephyr_mirror_realm", "realm_send_read_receipts"} {
								_, has := res.body[gone]
								is.True(!has) // not Zulip's keys
							}
							is.Equal(num(t, res.body["max_file_upload_size_mib"]), int64(25)) // the default
						}
					})
				}
			}
		})
	}
}
