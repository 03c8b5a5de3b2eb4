package wire_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/matryer/is"
)

// worldJSON is the organisation the fuzz targets decode requests for: an
// owner (11), an administrator (12), a member (14) with a generic bot (31), a
// guest (15), a deactivated member (16), a public channel 61 and a private one
// 62, a group, and messages of every kind from the member and the bot. A
// second realm (2) exists so that its ids can be mixed in.
const worldJSON = `{"realms": [
 {"id": 1, "string_id": "acme", "name": "Acme",
  "users": [
   {"id": 11, "email": "owner@acme.test", "full_name": "Olivia Owner", "role": "owner", "api_key": "wireOwner00000000000000000000000"},
   {"id": 12, "email": "admin@acme.test", "full_name": "Adam Admin", "role": "administrator", "api_key": "wireAdmin00000000000000000000000", "password": "correct horse battery staple"},
   {"id": 14, "email": "member@acme.test", "full_name": "Mia Member", "role": "member", "api_key": "wireMember0000000000000000000000"},
   {"id": 15, "email": "guest@acme.test", "full_name": "Gus Guest", "role": "guest", "api_key": "wireGuest00000000000000000000000"},
   {"id": 16, "email": "gone@acme.test", "full_name": "Gone User", "role": "member", "api_key": "wireGone000000000000000000000000", "is_active": false}
  ],
  "bots": [
   {"id": 31, "email": "helper-bot@acme.test", "full_name": "Helper Bot", "owner_id": 14, "api_key": "wireBot000000000000000000000000f", "bot_type": "generic"}
  ],
  "groups": [{"id": 51, "name": "support", "members": [14, 15], "subgroups": []}],
  "channels": [
   {"id": 61, "name": "general", "subscribers": [11, 12, 14, 15, 31]},
   {"id": 62, "name": "secret", "invite_only": true, "history_public_to_subscribers": true, "subscribers": [11, 12, 14, 31]}
  ],
  "messages": [
   {"id": 101, "sender_id": 14, "channel_id": 61, "topic": "lunch", "content": "public **one**", "timestamp": 1767261600,
    "reactions": [{"user_id": 12, "emoji_name": "smile", "emoji_code": "1f604", "reaction_type": "unicode_emoji"}]},
   {"id": 102, "sender_id": 12, "channel_id": 61, "topic": "lunch", "content": "admin's", "timestamp": 1767261601},
   {"id": 103, "sender_id": 14, "channel_id": 62, "topic": "plans", "content": "private one", "timestamp": 1767261602},
   {"id": 104, "sender_id": 14, "to": [15], "content": "direct one", "timestamp": 1767261603},
   {"id": 105, "sender_id": 31, "channel_id": 61, "topic": "bot", "content": "bot public", "timestamp": 1767261604},
   {"id": 106, "sender_id": 31, "to": [14], "content": "bot direct", "timestamp": 1767261605},
   {"id": 107, "sender_id": 15, "channel_id": 61, "topic": "lunch", "content": "guest's #12", "timestamp": 1767261606}
  ]
 },
 {"id": 2, "string_id": "globex", "name": "Globex",
  "users": [{"id": 21, "email": "gina@globex.test", "full_name": "Gina Globex", "role": "owner", "api_key": "wireGlobex0000000000000000000000"}],
  "channels": [{"id": 71, "name": "general", "subscribers": [21]}],
  "messages": [{"id": 201, "sender_id": 21, "channel_id": 71, "topic": "hello", "content": "hi", "timestamp": 1767261600}]
 }
]}`

// The ids of worldJSON.
const (
	worldOwner  chatcore.UserID  = 11
	worldAdmin  chatcore.UserID  = 12
	worldMember chatcore.UserID  = 14
	worldRealm  chatcore.RealmID = 1
)

// plainHasher stores passwords as "plain:<password>", so tests skip argon2.
type plainHasher struct{}

func (plainHasher) Hash(p string) (string, error)    { return "plain:" + p, nil }
func (plainHasher) Verify(h, p string) (bool, error) { return h == "plain:"+p, nil }

// worldService returns a Service over store loaded with worldJSON.
func worldService(tb testing.TB, store chatcore.Store) *chatcore.Service {
	tb.Helper()
	svc := chatcore.New(store, chatcore.WithPasswordHasher(plainHasher{}))
	if err := fixture.Load(context.Background(), svc, strings.NewReader(worldJSON)); err != nil {
		tb.Fatalf("loading the world: %v", err)
	}
	return svc
}

// apiError fails unless err is a well-formed *chatcore.Error: a known Code,
// a known Kind and a non-empty Msg. It returns the error for further checks.
func apiError(tb testing.TB, err error, input any) *chatcore.Error {
	tb.Helper()
	e, ok := errors.AsType[*chatcore.Error](err)
	if !ok {
		tb.Fatalf("input %q: error is not a *chatcore.Error: %v", input, err)
	}
	if e.Msg == "" || e.Code == "" || strings.HasPrefix(e.Kind.String(), "kind(") {
		tb.Fatalf("input %q: malformed *chatcore.Error: %#v", input, e)
	}
	return e
}

// wantError asserts that err is a *chatcore.Error with Zulip's code, kind
// and message, and returns it.
func wantError(tb testing.TB, err error, code chatcore.Code, kind chatcore.Kind, msg string) *chatcore.Error {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	e, ok := errors.AsType[*chatcore.Error](err)
	if !ok {
		tb.Fatalf("want *chatcore.Error %s %q, got %v", code, msg, err)
	}
	is.Equal(e.Code, code) // Zulip's wire code
	is.Equal(e.Kind, kind) // error kind
	is.Equal(e.Msg, msg)   // Zulip's exact message
	return e
}
