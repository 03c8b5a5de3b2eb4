package chattest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
)

// WorldJSON is the small organisation, in the fixture format, that the fuzz,
// limit and fault tests run against: an owner (11), an administrator (12), a
// member (14) with a generic bot (31), a guest (15), a deactivated member
// (16), a public channel 61 and a private one 62, a group, a linkifier, and
// messages of every kind from the member and the bot (some with reactions),
// scheduled messages and a reminder due around 2026-01-01 10:05 UTC (Unix
// 1767261900 to 1767261960) and one due in 2030, and a draft. A second realm
// (2) exists so that its ids can be mixed in.
const WorldJSON = `{"realms": [
 {"id": 1, "string_id": "acme", "name": "Acme",
  "users": [
   {"id": 11, "email": "owner@acme.test", "full_name": "Olivia Owner", "role": "owner", "api_key": "fzOwner000000000000000000000000a"},
   {"id": 12, "email": "admin@acme.test", "full_name": "Adam Admin", "role": "administrator", "api_key": "fzAdmin000000000000000000000000b", "password": "correct horse battery staple"},
   {"id": 14, "email": "member@acme.test", "full_name": "Mia Member", "role": "member", "api_key": "fzMember00000000000000000000000c"},
   {"id": 15, "email": "guest@acme.test", "full_name": "Gus Guest", "role": "guest", "api_key": "fzGuest000000000000000000000000d"},
   {"id": 16, "email": "gone@acme.test", "full_name": "Gone User", "role": "member", "api_key": "fzGone0000000000000000000000000e", "is_active": false}
  ],
  "bots": [
   {"id": 31, "email": "helper-bot@acme.test", "full_name": "Helper Bot", "owner_id": 14, "api_key": "fzBot00000000000000000000000000f", "bot_type": "generic"}
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
  ],
  "linkifiers": [{"id": 4001, "pattern": "#(?P<id>[0-9]+)", "url_template": "https://tracker.example/issues/{id}"}],
  "scheduled_messages": [
   {"id": 2001, "sender_id": 14, "channel_id": 61, "topic": "later", "content": "ping #12", "scheduled_delivery_timestamp": 1767261900},
   {"id": 2002, "sender_id": 14, "to": [15], "content": "dm later", "scheduled_delivery_timestamp": 1767261930},
   {"id": 2003, "sender_id": 12, "channel_id": 61, "topic": "far", "content": "not yet", "scheduled_delivery_timestamp": 1893456000}
  ],
  "reminders": [{"id": 3001, "user_id": 14, "message_id": 101, "note": "bring cash", "scheduled_delivery_timestamp": 1767261960}],
  "drafts": [{"id": 5001, "user_id": 14, "channel_id": 61, "topic": "x", "content": "draft text"}]
 },
 {"id": 2, "string_id": "globex", "name": "Globex",
  "users": [{"id": 21, "email": "gina@globex.test", "full_name": "Gina Globex", "role": "owner", "api_key": "fzGlobex000000000000000000000000"}],
  "channels": [{"id": 71, "name": "general", "subscribers": [21]}],
  "messages": [{"id": 201, "sender_id": 21, "channel_id": 71, "topic": "hello", "content": "hi", "timestamp": 1767261600}]
 }
]}`

// The ids of [WorldJSON].
const (
	WorldOwner   chatcore.UserID   = 11
	WorldAdmin   chatcore.UserID   = 12
	WorldMember  chatcore.UserID   = 14
	WorldGuest   chatcore.UserID   = 15
	WorldBot     chatcore.UserID   = 31
	WorldGeneral chatcore.StreamID = 61
	WorldSecret  chatcore.StreamID = 62
	WorldRealm   chatcore.RealmID  = 1
)

// LoadWorld returns a Service over store loaded with [WorldJSON]. The
// Service hashes with [PlainHasher]; opts are passed to [chatcore.New] after
// it, so they win. A loading error fails the test.
func LoadWorld(tb testing.TB, store chatcore.Store, opts ...chatcore.Option) *chatcore.Service {
	tb.Helper()
	svc := chatcore.New(store, append([]chatcore.Option{chatcore.WithPasswordHasher(PlainHasher{})}, opts...)...)
	if err := fixture.Load(context.Background(), svc, strings.NewReader(WorldJSON)); err != nil {
		tb.Fatalf("loading the world: %v", err)
	}
	return svc
}

// APIError fails the test unless err is a well-formed *chatcore.Error: a
// known Code, a known Kind and a non-empty Msg; input is what the failure
// message names. It returns the error for further checks.
func APIError(tb testing.TB, err error, input any) *chatcore.Error {
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
