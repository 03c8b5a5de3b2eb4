package chatcore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// fixBase is a small valid fixture; the invalid cases each break one thing.
const fixBase = `{
  "realms": [
    {
      "id": 1, "string_id": "acme", "name": "Acme Corp",
      "users": [
        {"id": 11, "email": "olivia@acme.test", "full_name": "Olivia Owner", "role": "owner",
         "api_key": "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY", "settings": {"color_scheme": 2}},
        {"id": 12, "email": "max@acme.test", "full_name": "Max Member", "role": "member",
         "api_key": "bB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"}
      ],
      "bots": [
        {"id": 31, "email": "echo-bot@acme.test", "full_name": "Echo Bot", "owner_id": 11,
         "api_key": "cB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY", "bot_type": "outgoing_webhook",
         "service": {"base_url": "http://127.0.0.1:8765/", "token": "secret", "interface": "generic"}}
      ],
      "groups": [
        {"id": 51, "name": "support", "members": [12], "subgroups": [52]},
        {"id": 52, "name": "leads", "members": [11, 31]}
      ],
      "channels": [
        {"id": 61, "name": "general", "subscribers": [11, 12, 31]},
        {"id": 62, "name": "secret", "invite_only": true, "history_public_to_subscribers": false, "subscribers": [11]}
      ],
      "messages": [
        {"id": 1001, "sender_id": 12, "channel_id": 61, "topic": "lunch", "content": "Pizza at **noon**?",
         "timestamp": 1767225600, "reactions": [{"user_id": 11, "emoji_name": "pizza", "emoji_code": "1f355"}]},
        {"id": 1002, "sender_id": 12, "to": [11], "content": "hi", "timestamp": 1767225601}
      ],
      "scheduled_messages": [
        {"id": 2001, "sender_id": 12, "channel_id": 61, "topic": "later", "content": "ping",
         "scheduled_delivery_timestamp": 1893456000}
      ],
      "reminders": [
        {"id": 3001, "user_id": 12, "message_id": 1001, "note": "bring cash",
         "scheduled_delivery_timestamp": 1893456000}
      ],
      "linkifiers": [
        {"id": 4001, "pattern": "#(?P<id>[0-9]+)", "url_template": "https://tracker.example/issues/{id}"}
      ],
      "drafts": [{"id": 5001, "user_id": 12, "channel_id": 61, "topic": "x", "content": "draft text"}]
    },
    {
      "id": 2, "string_id": "globex", "name": "Globex",
      "users": [
        {"id": 21, "email": "gina@globex.test", "full_name": "Gina", "role": "owner",
         "api_key": "dB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"}
      ]
    }
  ]
}`

func fixService(tb testing.TB) *chatcore.Service {
	tb.Helper()
	return chatcore.New(memory.New(), chatcore.WithPasswordHasher(plainHasher{}))
}

// fixMutate returns fixBase changed by fn (working on the decoded JSON).
func fixMutate(tb testing.TB, fn func(root map[string]any)) string {
	tb.Helper()
	var root map[string]any
	is.New(tb).NoErr(json.Unmarshal([]byte(fixBase), &root)) // the base fixture is JSON
	fn(root)
	b, err := json.Marshal(root)
	is.New(tb).NoErr(err) // re-encodes
	return string(b)
}

// fixAt walks the decoded JSON by keys and indexes.
func fixAt(v any, path ...any) map[string]any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v.(map[string]any)
}

func TestLoadFixtureBase(t *testing.T) {
	is := is.New(t)
	svc := fixService(t)
	is.NoErr(svc.LoadFixture(t.Context(), strings.NewReader(fixBase))) // the base fixture of the invalid cases is valid
}

func TestLoadFixtureDemo(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	st := memory.New()
	svc := chatcore.New(st) // the default (argon2id) hasher
	empty, err := svc.IsEmpty(ctx)
	is.NoErr(err)  // readable
	is.True(empty) // a new store is empty
	f, err := os.Open("testdata/demo.json")
	is.NoErr(err) // the demo fixture exists
	defer f.Close()
	is.NoErr(svc.LoadFixture(ctx, f)) // the demo fixture loads
	empty, err = svc.IsEmpty(ctx)
	is.NoErr(err)   // readable
	is.True(!empty) // it holds the demo now

	var demo struct {
		Realms []struct {
			Users []struct {
				ID       chatcore.UserID `json:"id"`
				Email    string          `json:"email"`
				APIKey   string          `json:"api_key"`
				Password *string         `json:"password"`
			} `json:"users"`
		} `json:"realms"`
	}
	raw, err := os.ReadFile("testdata/demo.json")
	is.NoErr(err)                        // readable
	is.NoErr(json.Unmarshal(raw, &demo)) // decodable

	err = st.View(ctx, func(tx chatcore.Tx) error {
		realm, err := tx.Realm(ctx, 1)
		is.NoErr(err)                                         // the realm keeps its id
		is.Equal(realm.Name, "Acme Corp")                     // and its name
		is.Equal(realm.EmptyTopicDisplayName, "general chat") // the display name of the empty topic

		for _, fu := range demo.Realms[0].Users {
			u, err := tx.User(ctx, fu.ID)
			is.NoErr(err)                                          // every user keeps their id
			is.Equal(u.APIKeyHash, chatcore.HashAPIKey(fu.APIKey)) // the key is stored hashed
			if fu.Password != nil {
				ok, err := chatcore.DefaultPasswordHasher().Verify(u.PasswordHash, *fu.Password)
				is.NoErr(err)                           // the hash decodes
				is.True(ok)                             // the password is stored as its hash
				is.True(u.PasswordHash != *fu.Password) // never in plain text
			} else {
				is.Equal(u.PasswordHash, "") // no password
			}
		}
		olivia, err := tx.User(ctx, 11)
		is.NoErr(err)                                       // the owner
		is.Equal(olivia.Role, chatcore.RoleOwner)           // role owner
		is.Equal(olivia.Settings.ColorScheme, 2)            // a fixture setting
		is.Equal(olivia.Settings.EnterSends, true)          // another one
		is.Equal(olivia.Settings.Timezone, "Europe/Berlin") // the time zone
		is.Equal(olivia.Settings.Emojiset, "google")        // unset settings keep their defaults
		edited, err := tx.EditedSettings(ctx, 11)
		is.NoErr(err)            // readable
		is.Equal(len(edited), 0) // fixture settings do not count as edited by the user
		dana, err := tx.User(ctx, 17)
		is.NoErr(err)           // the departed user
		is.True(!dana.IsActive) // loaded deactivated

		echo, err := tx.User(ctx, 31)
		is.NoErr(err)                                           // the echo bot
		is.True(echo.IsBot)                                     // a bot
		is.Equal(echo.BotType, chatcore.BotTypeOutgoingWebhook) // outgoing webhook
		is.Equal(echo.BotOwnerID, chatcore.UserID(11))          // owned by the owner
		svcs, err := tx.BotServices(ctx, 31)
		is.NoErr(err)                                       // readable
		is.Equal(len(svcs), 1)                              // one service
		is.Equal(svcs[0].BaseURL, "http://127.0.0.1:8765/") // the echo server
		is.Equal(svcs[0].Interface, "generic")              // generic interface
		is.Equal(svcs[0].Name, "echo")                      // the bot's short name

		members, err := tx.GroupMembers(ctx, []chatcore.GroupID{51})
		is.NoErr(err)                                    // readable
		is.Equal(members, []chatcore.UserID{12, 13, 14}) // support plus its subgroup support-leads

		general, err := tx.Stream(ctx, 61)
		is.NoErr(err)                                              // the channel keeps its id
		is.Equal(general.FirstMessageID, chatcore.MessageID(1001)) // first_message_id is set
		security, err := tx.Stream(ctx, 64)
		is.NoErr(err)                                 // the protected channel
		is.True(security.InviteOnly)                  // private
		is.True(!security.HistoryPublicToSubscribers) // with protected history
		subs, err := tx.Subscriptions(ctx, 64, 0)
		is.NoErr(err)          // readable
		is.Equal(len(subs), 3) // three subscribers
		for _, s := range subs {
			is.True(s.Active)                                        // active
			is.Equal(s.FirstVisibleMessageID, chatcore.MessageID(0)) // who see the whole history
		}

		m, err := tx.Message(ctx, 1004)
		is.NoErr(err)                                                         // a channel message keeps its id
		is.Equal(m.StreamID, chatcore.StreamID(61))                           // in general
		is.Equal(m.RecipientID, general.RecipientID)                          // addressed to the channel
		is.Equal(m.Topic, "lunch")                                            // topic
		is.Equal(len(m.Reactions), 3)                                         // with its reactions
		is.True(strings.Contains(m.RenderedContent, "<strong>noon</strong>")) // rendered Markdown
		m, err = tx.Message(ctx, 1009)
		is.NoErr(err)                                                                             // a message with an issue number
		is.True(strings.Contains(m.RenderedContent, `href="https://tracker.example/issues/123"`)) // linkified on load
		m, err = tx.Message(ctx, 1007)
		is.NoErr(err)         // a message to the empty topic
		is.Equal(m.Topic, "") // the empty topic
		m, err = tx.Message(ctx, 1020)
		is.NoErr(err)          // a /me message
		is.True(m.IsMeMessage) // recognised
		dm1, err := tx.Message(ctx, 1017)
		is.NoErr(err)                                          // a direct message
		is.Equal(dm1.Type, chatcore.MessageTypePrivate)        // private
		is.Equal(dm1.DirectMembers, []chatcore.UserID{14, 15}) // both participants
		dm2, err := tx.Message(ctx, 1018)
		is.NoErr(err)                              // the reply
		is.Equal(dm1.RecipientID, dm2.RecipientID) // one conversation

		sm, err := tx.ScheduledMessage(ctx, 2001)
		is.NoErr(err)                                  // scheduled message keeps its id
		is.True(!sm.Delivered)                         // undelivered
		is.Equal(sm.Kind, chatcore.ScheduledSendLater) // send-later kind
		sm, err = tx.ScheduledMessage(ctx, 2002)
		is.NoErr(err)                                     // the direct one
		is.Equal(sm.DirectMembers, []chatcore.UserID{15}) // recipients without the sender
		sm, err = tx.ScheduledMessage(ctx, 2003)
		is.NoErr(err)         // the delivered one
		is.True(sm.Delivered) // "delivered": true
		rem, err := tx.ScheduledMessage(ctx, 3001)
		is.NoErr(err)                                                                                                         // reminder keeps its id
		is.Equal(rem.Kind, chatcore.ScheduledReminder)                                                                        // a reminder
		is.Equal(rem.ReminderTargetMessageID, chatcore.MessageID(1004))                                                       // about the lunch message
		is.Equal(rem.ReminderNote, "bring cash")                                                                              // with its note
		is.True(strings.HasPrefix(rem.Content, "You requested a reminder for #**general>lunch@1004**. Note:\n > bring cash")) // content as Zulip builds it
		is.True(rem.RenderedContent != "")                                                                                    // rendered

		ls, err := tx.Linkifiers(ctx, 1)
		is.NoErr(err)                                  // readable
		is.Equal(len(ls), 2)                           // both linkifiers
		is.Equal(ls[0].ID, chatcore.LinkifierID(4001)) // in file order
		drafts, err := tx.Drafts(ctx, 14)
		is.NoErr(err)                                  // readable
		is.Equal(len(drafts), 1)                       // Max's draft
		is.Equal(drafts[0].ID, chatcore.DraftID(5001)) // keeps its id
		return nil
	})
	is.NoErr(err) // store readable

	u, err := svc.Authenticate(ctx, "olivia@acme.test", demo.Realms[0].Users[0].APIKey)
	is.NoErr(err)                       // the demo keys work
	is.Equal(u.ID, chatcore.UserID(11)) // as the owner
}

func TestLoadFixtureLaterIDsGoAbove(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	st := memory.New()
	svc := chatcore.New(st, chatcore.WithPasswordHasher(plainHasher{}))
	is.NoErr(svc.LoadFixture(ctx, strings.NewReader(fixBase))) // loads
	err := st.Update(ctx, func(tx chatcore.Tx) error {
		u := &chatcore.User{RealmID: 1, Email: "new@acme.test", FullName: "New", Role: chatcore.RoleMember,
			IsActive: true, APIKeyHash: chatcore.HashAPIKey("new"), Settings: chatcore.DefaultSettings()}
		is.NoErr(tx.CreateUser(ctx, u)) // a new user
		is.True(u.ID > 31)              // above every loaded user and bot
		m := &chatcore.Message{RealmID: 1, SenderID: 12, Type: chatcore.MessageTypeStream, StreamID: 61, Content: "x"}
		is.NoErr(tx.CreateMessage(ctx, m)) // a new message
		is.True(m.ID > 1002)               // above the loaded messages
		sm := &chatcore.ScheduledMessage{RealmID: 1, SenderID: 12, Kind: chatcore.ScheduledSendLater, Type: chatcore.MessageTypeStream, StreamID: 61, Content: "x"}
		is.NoErr(tx.CreateScheduledMessage(ctx, sm)) // a new scheduled message
		is.True(sm.ID > 3001)                        // above scheduled messages and reminders
		ch := &chatcore.Stream{RealmID: 1, Name: "new"}
		is.NoErr(tx.CreateStream(ctx, ch)) // a new channel
		is.True(ch.ID > 62)                // above the loaded channels
		l := &chatcore.Linkifier{RealmID: 1, Pattern: "x(?P<a>1)", URLTemplate: "https://x/{a}"}
		is.NoErr(tx.CreateLinkifier(ctx, l)) // a new linkifier
		is.True(l.ID > 4001)                 // above the loaded one
		d := &chatcore.Draft{UserID: 12, Content: "x"}
		is.NoErr(tx.CreateDraft(ctx, d)) // a new draft
		is.True(d.ID > 5001)             // above the loaded one
		g := &chatcore.Group{RealmID: 1, Name: "new"}
		is.NoErr(tx.CreateGroup(ctx, g)) // a new group
		is.True(g.ID > 52)               // above the loaded ones
		r := &chatcore.Realm{StringID: "new", Name: "New"}
		is.NoErr(tx.CreateRealm(ctx, r)) // a new realm
		is.True(r.ID > 2)                // above the loaded ones
		return nil
	})
	is.NoErr(err) // inserts work
}

func TestLoadFixtureInvalid(t *testing.T) {
	set := func(path []any, key string, v any) func(map[string]any) {
		return func(root map[string]any) { fixAt(root, path...)[key] = v }
	}
	for _, tc := range []struct {
		name string
		json string               // used when set
		mut  func(map[string]any) // applied to fixBase otherwise
		msg  string
	}{
		{name: "not JSON", json: `{"realms": [}`, msg: "realms: invalid JSON at line 1, column 13: invalid character '}' looking for beginning of value"},
		{name: "truncated", json: `{"realms": [`, msg: "realms: unexpected end of JSON"},
		{name: "trailing data", json: `{"realms": []} {}`, msg: "fixture: unexpected data after the top-level object"},
		{name: "no realm", json: `{"realms": []}`, msg: "realms: the fixture holds no realm"},
		{name: "empty object", json: `{}`, msg: "realms: the fixture holds no realm"},
		{name: "top-level list", json: `[]`, msg: "fixture: must be an object, not a list"},
		{name: "top-level null", json: `null`, msg: "fixture: must not be null"},
		{name: "empty file", json: ``, msg: "fixture: unexpected end of JSON"},
		{name: "duplicate key", json: `{"realms": [], "realms": []}`, msg: "realms: duplicate key"},
		{name: "unknown top-level key", mut: set(nil, "version", 2), msg: "version: unknown key"},
		{name: "unknown nested key", mut: set([]any{"realms", 0, "users", 1}, "nickname", "m"), msg: "realms[0].users[1].nickname: unknown key"},
		{name: "misspelt key", mut: set([]any{"realms", 0, "messages", 0}, "subject", "lunch"), msg: "realms[0].messages[0].subject: unknown key"},
		{name: "wrong type", mut: set([]any{"realms", 0, "users", 0}, "id", "11"), msg: "realms[0].users[0].id: must be an integer, not a string"},
		{name: "fraction", mut: set([]any{"realms", 0, "messages", 1}, "timestamp", 1.5), msg: "realms[0].messages[1].timestamp: must be an integer, not 1.5"},
		{name: "null for a required value", mut: set([]any{"realms", 0}, "name", nil), msg: "realms[0].name: must not be null"},
		{name: "object for a list", mut: set([]any{"realms", 0}, "users", map[string]any{}), msg: "realms[0].users: must be a list, not an object"},
		{name: "dangling sender", mut: set([]any{"realms", 0, "messages", 0}, "sender_id", 99), msg: "realms[0].messages[0].sender_id: no user 99 in realm acme"},
		{name: "sender of another realm", mut: set([]any{"realms", 0, "messages", 0}, "sender_id", 21), msg: "realms[0].messages[0].sender_id: no user 21 in realm acme"},
		{name: "dangling channel", mut: set([]any{"realms", 0, "messages", 0}, "channel_id", 69), msg: "realms[0].messages[0].channel_id: no channel 69 in realm acme"},
		{name: "dangling recipient", mut: set([]any{"realms", 0, "messages", 1}, "to", []any{11, 98}), msg: "realms[0].messages[1].to[1]: no user 98 in realm acme"},
		{name: "channel and to", mut: set([]any{"realms", 0, "messages", 1}, "channel_id", 61), msg: "realms[0].messages[1]: has both channel_id and to"},
		{name: "no destination", mut: func(root map[string]any) { delete(fixAt(root, "realms", 0, "messages", 1), "to") }, msg: "realms[0].messages[1]: needs channel_id (with topic) or to"},
		{name: "empty content", mut: set([]any{"realms", 0, "messages", 0}, "content", "  "), msg: "realms[0].messages[0].content: must not be empty"},
		{name: "dangling reaction user", mut: set([]any{"realms", 0, "messages", 0, "reactions", 0}, "user_id", 97), msg: "realms[0].messages[0].reactions[0].user_id: no user 97 in realm acme"},
		{name: "dangling bot owner", mut: set([]any{"realms", 0, "bots", 0}, "owner_id", 96), msg: "realms[0].bots[0].owner_id: no user 96 in realm acme"},
		{name: "dangling group member", mut: set([]any{"realms", 0, "groups", 0}, "members", []any{12, 95}), msg: "realms[0].groups[0].members[1]: no user 95 in realm acme"},
		{name: "dangling subgroup", mut: set([]any{"realms", 0, "groups", 0}, "subgroups", []any{59}), msg: "realms[0].groups[0].subgroups[0]: no group 59 in realm acme"},
		{name: "subgroup cycle", mut: set([]any{"realms", 0, "groups", 1}, "subgroups", []any{51}), msg: "realms[0].groups: subgroups form a cycle: 51 → 52 → 51"},
		{name: "dangling subscriber", mut: set([]any{"realms", 0, "channels", 0}, "subscribers", []any{11, 21}), msg: "realms[0].channels[0].subscribers[1]: no user 21 in realm acme"},
		{name: "dangling reminder message", mut: set([]any{"realms", 0, "reminders", 0}, "message_id", 1099), msg: "realms[0].reminders[0].message_id: no message 1099 in realm acme"},
		{name: "dangling draft user", mut: set([]any{"realms", 0, "drafts", 0}, "user_id", 94), msg: "realms[0].drafts[0].user_id: no user 94 in realm acme"},
		{name: "duplicate user id", mut: set([]any{"realms", 0, "users", 1}, "id", 11), msg: "realms[0].users[1].id: duplicate id 11 (also at realms[0].users[0].id)"},
		{name: "bot id of a user", mut: set([]any{"realms", 0, "bots", 0}, "id", 12), msg: "realms[0].bots[0].id: duplicate id 12 (also at realms[0].users[1].id)"},
		{name: "user id of another realm", mut: set([]any{"realms", 1, "users", 0}, "id", 11), msg: "realms[1].users[0].id: duplicate id 11 (also at realms[0].users[0].id)"},
		{name: "reminder id of a scheduled message", mut: set([]any{"realms", 0, "reminders", 0}, "id", 2001), msg: "realms[0].reminders[0].id: duplicate id 2001 (also at realms[0].scheduled_messages[0].id)"},
		{name: "duplicate realm id", mut: set([]any{"realms", 1}, "id", 1), msg: "realms[1].id: duplicate id 1 (also at realms[0].id)"},
		{name: "missing id", mut: func(root map[string]any) { delete(fixAt(root, "realms", 0, "channels", 1), "id") }, msg: "realms[0].channels[1].id: must be a positive integer"},
		{name: "duplicate e-mail", mut: set([]any{"realms", 0, "users", 1}, "email", "OLIVIA@acme.test"), msg: `realms[0].users[1].email: duplicate e-mail "OLIVIA@acme.test" in realm acme (also at realms[0].users[0].email)`},
		{name: "full name too long", mut: set([]any{"realms", 0, "users", 1}, "full_name", strings.Repeat("x", 101)), msg: "realms[0].users[1].full_name: Name too long!"},
		{name: "full name with a control character", mut: set([]any{"realms", 0, "users", 1}, "full_name", "Max\u0007"), msg: "realms[0].users[1].full_name: Invalid characters in name!"},
		{name: "topic with a control character", mut: set([]any{"realms", 0, "messages", 0}, "topic", "lu\u0007nch"), msg: "realms[0].messages[0].topic: Invalid character in topic, at position 3!"},
		{name: "topic too long", mut: set([]any{"realms", 0, "messages", 0}, "topic", strings.Repeat("t", 61)), msg: "realms[0].messages[0].topic: longer than 60 characters"},
		{name: "reminder note too long", mut: set([]any{"realms", 0, "reminders", 0}, "note", strings.Repeat("n", 1001)), msg: "realms[0].reminders[0].note: Maximum reminder note length: 1000 characters"},
		{name: "bad e-mail", mut: set([]any{"realms", 0, "users", 1}, "email", "max"), msg: `realms[0].users[1].email: invalid e-mail address "max"`},
		{name: "invalid role", mut: set([]any{"realms", 0, "users", 1}, "role", "admin"), msg: `realms[0].users[1].role: invalid role "admin" (want owner, administrator, moderator, member or guest)`},
		{name: "invalid setting value", mut: set([]any{"realms", 0, "users", 0, "settings"}, "color_scheme", 7), msg: "realms[0].users[0].settings.color_scheme: Invalid color_scheme: Value error, Not in the list of possible values"},
		{name: "setting of the wrong type", mut: set([]any{"realms", 0, "users", 0, "settings"}, "enter_sends", "yes"), msg: "realms[0].users[0].settings.enter_sends: must be a boolean"},
		{name: "unknown setting", mut: set([]any{"realms", 0, "users", 0, "settings"}, "colour_scheme", 2), msg: "realms[0].users[0].settings.colour_scheme: unknown setting"},
		{name: "bad batching period", mut: set([]any{"realms", 0, "users", 0, "settings"}, "email_notifications_batching_period_seconds", 0), msg: "realms[0].users[0].settings.email_notifications_batching_period_seconds: Invalid email batching period: 0 seconds"},
		{name: "bad time zone", mut: set([]any{"realms", 0, "users", 1}, "timezone", "Mars/Olympus"), msg: "realms[0].users[1].timezone: Invalid timezone: Value error, Not a recognized time zone"},
		{name: "short api key", mut: set([]any{"realms", 0, "users", 1}, "api_key", "short"), msg: "realms[0].users[1].api_key: must be 32 ASCII letters and digits"},
		{name: "duplicate api key", mut: set([]any{"realms", 1, "users", 0}, "api_key", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"), msg: "realms[1].users[0].api_key: duplicate API key (also at realms[0].users[0].api_key)"},
		{name: "bad regex", mut: set([]any{"realms", 0, "linkifiers", 0}, "pattern", "(foo"), msg: "realms[0].linkifiers[0]: Bad regular expression: missing ): (foo"},
		{name: "bad template", mut: set([]any{"realms", 0, "linkifiers", 0}, "url_template", "https://x/{id"), msg: "realms[0].linkifiers[0].url_template: Invalid URL template."},
		{name: "template group not in pattern", mut: set([]any{"realms", 0, "linkifiers", 0}, "url_template", "https://x/{num}"), msg: "realms[0].linkifiers[0]: Group 'num' in URL template is not present in linkifier pattern."},
		{name: "bad bot type", mut: set([]any{"realms", 0, "bots", 0}, "bot_type", "webhook"), msg: `realms[0].bots[0].bot_type: invalid bot type "webhook" (want generic, incoming_webhook or outgoing_webhook)`},
		{name: "outgoing bot without service", mut: func(root map[string]any) { delete(fixAt(root, "realms", 0, "bots", 0), "service") }, msg: "realms[0].bots[0].service: an outgoing-webhook bot needs a service"},
		{name: "bad service interface", mut: set([]any{"realms", 0, "bots", 0, "service"}, "interface", "soap"), msg: `realms[0].bots[0].service.interface: invalid interface "soap" (want generic or slack)`},
		{name: "public channel with protected history", mut: set([]any{"realms", 0, "channels", 0}, "history_public_to_subscribers", false), msg: "realms[0].channels[0].history_public_to_subscribers: a public channel always has public history"},
		{name: "duplicate channel name", mut: set([]any{"realms", 0, "channels", 1}, "name", "General"), msg: `realms[0].channels[1].name: duplicate channel name "General" in realm acme (also at realms[0].channels[0].name)`},
		{name: "bad realm string id", mut: set([]any{"realms", 1}, "string_id", "Globex Inc"), msg: `realms[1].string_id: must be 1 to 40 lower-case letters, digits and inner hyphens, not "Globex Inc"`},
		{name: "reminder on an inaccessible message", mut: func(root map[string]any) {
			m := fixAt(root, "realms", 0, "messages", 0)
			m["channel_id"] = 62 // Max is not subscribed to the private channel
		}, msg: "realms[0].reminders[0].message_id: user 12 cannot access message 1001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			svc := fixService(t)
			data := tc.json
			if tc.mut != nil {
				data = fixMutate(t, tc.mut)
			}
			err := svc.LoadFixture(t.Context(), strings.NewReader(data))
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tc.msg)
			e, _ := errors.AsType[*chatcore.Error](err)
			problems, ok := e.Data["errors"].([]string)
			is.True(ok)                   // every problem is listed
			is.Equal(problems[0], tc.msg) // the first one is the message
			empty, err := svc.IsEmpty(t.Context())
			is.NoErr(err)  // readable
			is.True(empty) // nothing was written
		})
	}
}

// TestLoadFixtureNormalisesLikeTheService checks that the fixture stores
// topics and full names as the Service would: "(no topic)" is the empty
// topic, surrounding spaces go.
func TestLoadFixtureNormalisesLikeTheService(t *testing.T) {
	is := is.New(t)
	svc := fixService(t)
	data := fixMutate(t, func(root map[string]any) {
		fixAt(root, "realms", 0, "messages", 0)["topic"] = " (no topic) "
		fixAt(root, "realms", 0, "users", 1)["full_name"] = "  Max Member \u00a0"
	})
	is.NoErr(svc.LoadFixture(t.Context(), strings.NewReader(data))) // the fixture loads
	ctx := t.Context()
	is.NoErr(svc.Store().View(ctx, func(tx chatcore.Tx) error {
		m, err := tx.Message(ctx, 1001)
		is.NoErr(err)         // the message is stored
		is.Equal(m.Topic, "") // "(no topic)" is the empty topic, as when sending
		u, err := tx.User(ctx, 12)
		is.NoErr(err)                      // the user is stored
		is.Equal(u.FullName, "Max Member") // the full name is stripped as the Service strips it
		return nil
	})) // readable
}

func TestLoadFixtureCanonicalTimezone(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	st := memory.New()
	svc := chatcore.New(st, chatcore.WithPasswordHasher(plainHasher{}))
	data := fixMutate(t, func(root map[string]any) {
		fixAt(root, "realms", 0, "users", 1)["timezone"] = "America/Montreal"
		fixAt(root, "realms", 0, "users", 0, "settings")["timezone"] = "Asia/Calcutta"
	})
	is.NoErr(svc.LoadFixture(ctx, strings.NewReader(data))) // link names are valid time zones
	err := st.View(ctx, func(tx chatcore.Tx) error {
		u, err := tx.User(ctx, 12)
		is.NoErr(err)                                    // loaded
		is.Equal(u.Settings.Timezone, "America/Toronto") // stored canonically
		u, err = tx.User(ctx, 11)
		is.NoErr(err)                                 // loaded
		is.Equal(u.Settings.Timezone, "Asia/Kolkata") // also through settings
		return nil
	})
	is.NoErr(err) // readable
}

func TestLoadFixtureReportsEveryProblem(t *testing.T) {
	is := is.New(t)
	data := fixMutate(t, func(root map[string]any) {
		fixAt(root, "realms", 0, "messages", 0)["sender_id"] = 99
		fixAt(root, "realms", 0, "users", 1)["role"] = "boss"
	})
	err := fixService(t).LoadFixture(t.Context(), strings.NewReader(data))
	e, ok := errors.AsType[*chatcore.Error](err)
	is.True(ok) // a *chatcore.Error
	is.Equal(e.Data["errors"], []string{
		`realms[0].users[1].role: invalid role "boss" (want owner, administrator, moderator, member or guest)`,
		"realms[0].messages[0].sender_id: no user 99 in realm acme",
	}) // both problems, in file order
}

func TestLoadFixtureConflictWritesNothing(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	st := memory.New()
	svc := chatcore.New(st, chatcore.WithPasswordHasher(plainHasher{}))
	is.NoErr(svc.LoadFixture(ctx, strings.NewReader(fixBase))) // the first load works

	// A second fixture whose realm is new but whose user id is taken: the
	// realm is created first in the transaction, then the user clashes.
	second := `{"realms": [{"id": 9, "string_id": "initech", "name": "Initech",
	  "users": [{"id": 11, "email": "bill@initech.test", "full_name": "Bill", "api_key": "zB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"}]}]}`
	err := svc.LoadFixture(ctx, strings.NewReader(second))
	wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "realms[0]: user 11: conflicts with data already in the store")
	err = st.View(ctx, func(tx chatcore.Tx) error {
		realms, err := tx.Realms(ctx)
		var ids []chatcore.RealmID
		for _, r := range realms {
			ids = append(ids, r.ID)
		}
		is.Equal(ids, []chatcore.RealmID{1, 2}) // the failed load left no realm behind
		return err
	})
	is.NoErr(err) // readable
	err = svc.LoadFixture(ctx, strings.NewReader(fixBase))
	wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "realms[0]: conflicts with data already in the store")
}

func TestLoadFixtureReaderError(t *testing.T) {
	is := is.New(t)
	boom := errors.New("disk on fire")
	err := fixService(t).LoadFixture(t.Context(), errReader{boom})
	is.True(errors.Is(err, boom)) // read failures come back wrapped
	_, isChatErr := errors.AsType[*chatcore.Error](err)
	is.True(!isChatErr) // and are not user errors
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestLoadFixtureCanceled(t *testing.T) {
	is := is.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	svc := fixService(t)
	err := svc.LoadFixture(ctx, strings.NewReader(fixBase))
	is.True(errors.Is(err, context.Canceled)) // a cancelled context stops the load
	empty, err := svc.IsEmpty(t.Context())
	is.NoErr(err)  // readable
	is.True(empty) // nothing written
}

func TestLoadFixtureSQLite(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	st := openSQLite(t)
	svc := chatcore.New(st, chatcore.WithPasswordHasher(plainHasher{}))

	bad := fixMutate(t, func(root map[string]any) { fixAt(root, "realms", 0, "messages", 0)["sender_id"] = 99 })
	err := svc.LoadFixture(ctx, strings.NewReader(bad))
	wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "realms[0].messages[0].sender_id: no user 99 in realm acme")

	f, err := os.Open("testdata/demo.json")
	is.NoErr(err) // the demo fixture exists
	defer f.Close()
	is.NoErr(svc.LoadFixture(ctx, f)) // the demo loads into SQLite too
	empty, err := svc.IsEmpty(ctx)
	is.NoErr(err)   // readable
	is.True(!empty) // holds the demo

	err = st.View(ctx, func(tx chatcore.Tx) error {
		u, err := tx.User(ctx, 11)
		is.NoErr(err)                                  // kept id
		is.Equal(u.Settings.ColorScheme, 2)            // fixture setting
		is.Equal(u.Settings.Timezone, "Europe/Berlin") // time zone
		general, err := tx.Stream(ctx, 61)
		is.NoErr(err)                                              // kept id
		is.Equal(general.FirstMessageID, chatcore.MessageID(1001)) // first_message_id
		m, err := tx.Message(ctx, 1004)
		is.NoErr(err)                 // kept id
		is.Equal(len(m.Reactions), 3) // reactions stored
		rem, err := tx.ScheduledMessage(ctx, 3001)
		is.NoErr(err)                                  // reminder
		is.Equal(rem.Kind, chatcore.ScheduledReminder) // of the reminder kind
		return nil
	})
	is.NoErr(err) // readable

	// Loading again conflicts and changes nothing.
	f2, err := os.Open("testdata/demo.json")
	is.NoErr(err) // reopened
	defer f2.Close()
	err = svc.LoadFixture(ctx, f2)
	wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "realms[0]: conflicts with data already in the store")

	// And the ids of later inserts are above the loaded ones.
	err = st.Update(ctx, func(tx chatcore.Tx) error {
		general, err := tx.Stream(ctx, 61)
		if err != nil {
			return err
		}
		m := &chatcore.Message{RealmID: 1, SenderID: 14, Type: chatcore.MessageTypeStream, StreamID: 61, RecipientID: general.RecipientID, Content: "x"}
		if err := tx.CreateMessage(ctx, m); err != nil {
			return err
		}
		is.True(m.ID > 1021) // above the demo's messages
		sm := &chatcore.ScheduledMessage{RealmID: 1, SenderID: 14, Kind: chatcore.ScheduledSendLater, Type: chatcore.MessageTypeStream, StreamID: 61, Content: "x"}
		if err := tx.CreateScheduledMessage(ctx, sm); err != nil {
			return err
		}
		is.True(sm.ID > 3002) // above the demo's scheduled messages and reminders
		return nil
	})
	is.NoErr(err) // inserts work
}

func BenchmarkLoadFixtureDemo(b *testing.B) {
	data, err := os.ReadFile("testdata/demo.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		svc := chatcore.New(memory.New(), chatcore.WithPasswordHasher(plainHasher{}))
		if err := svc.LoadFixture(b.Context(), bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
