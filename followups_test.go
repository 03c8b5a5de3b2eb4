package chatcore_test

// Tests of follow-up fixes: deletion events name the topic as stored,
// lower-cased; GET /messages reads without writing and accepts the legacy
// narrow form; bulk settings validate group ids one by one. The fixture's
// names carry a "fu" prefix; it seeds through helpers_test.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
)

// fuNow is the fixture's fixed time.
var fuNow = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// fuStore wraps a store: it counts Updates and, while groupsForbidden is set,
// makes Tx.Groups fail.
type fuStore struct {
	chatcore.Store
	updates         atomic.Int32
	groupsForbidden atomic.Bool
}

func (s *fuStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.updates.Add(1)
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(fuTx{tx, s}) })
}

func (s *fuStore) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.View(ctx, func(tx chatcore.Tx) error { return fn(fuTx{tx, s}) })
}

// errFuGroups is what Tx.Groups returns while it is forbidden.
var errFuGroups = errors.New("Groups must not be called")

type fuTx struct {
	chatcore.Tx
	s *fuStore
}

func (t fuTx) Groups(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Group, error) {
	if t.s.groupsForbidden.Load() {
		return nil, errFuGroups
	}
	return t.Tx.Groups(ctx, realm)
}

// fuEnv is a realm with an owner, two members and a public channel all three
// are subscribed to, plus a second realm with a user, a channel and a group.
type fuEnv struct {
	base   chatcore.Store
	store  *fuStore
	svc    *chatcore.Service
	events *recordingSink

	realm, otherRealm    *chatcore.Realm
	owner, ham, ophelia  *chatcore.User
	stranger             *chatcore.User
	general, otherStream *chatcore.Stream
	otherGroup           *chatcore.Group
}

// fuEachStore runs body over the memory store and over SQLite.
func fuEachStore(t *testing.T, body func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *fuEnv)) {
	eachStore(t, newFuEnv, body)
}

func newFuEnv(tb testing.TB, base chatcore.Store, opts ...chatcore.Option) *fuEnv {
	tb.Helper()
	e := &fuEnv{base: base, store: &fuStore{Store: base}, events: &recordingSink{}}
	all := append([]chatcore.Option{
		chatcore.WithClock(chatcore.ClockFunc(func() time.Time { return fuNow })),
		chatcore.WithEventSink(e.events),
	}, opts...)
	e.svc = chatcore.New(e.store, all...)
	e.realm = seedRealm(tb, base, "verona", "")
	e.otherRealm = seedRealm(tb, base, "elsinore", "")
	e.owner = seedUser(tb, base, e.realm, "owner", chatcore.RoleOwner)
	e.ham = seedUser(tb, base, e.realm, "ham", chatcore.RoleMember)
	e.ophelia = seedUser(tb, base, e.realm, "ophelia", chatcore.RoleMember)
	e.stranger = seedUser(tb, base, e.otherRealm, "stranger", chatcore.RoleMember)
	e.general = &chatcore.Stream{RealmID: e.realm.ID, Name: "Verona", HistoryPublicToSubscribers: true, DateCreated: fuNow}
	e.otherStream = &chatcore.Stream{RealmID: e.otherRealm.ID, Name: "Verona", HistoryPublicToSubscribers: true, DateCreated: fuNow}
	e.otherGroup = &chatcore.Group{RealmID: e.otherRealm.ID, Name: "players"}
	e.write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		for _, st := range []*chatcore.Stream{e.general, e.otherStream} {
			if err := tx.CreateStream(ctx, st); err != nil {
				return err
			}
		}
		e.otherGroup.Members = []chatcore.UserID{e.stranger.ID}
		return tx.CreateGroup(ctx, e.otherGroup)
	})
	for _, u := range []*chatcore.User{e.owner, e.ham, e.ophelia} {
		seedSubscription(tb, base, e.general, u, 0)
	}
	return e
}

// write runs fn in a transaction of the unwrapped store.
func (e *fuEnv) write(tb testing.TB, fn func(ctx context.Context, tx chatcore.Tx) error) {
	tb.Helper()
	ctx := context.Background()
	if err := e.base.Update(ctx, func(tx chatcore.Tx) error { return fn(ctx, tx) }); err != nil {
		tb.Fatalf("fixture write: %v", err)
	}
}

// post sends a channel message to e.general and returns its id.
func (e *fuEnv) post(tb testing.TB, sender *chatcore.User, topic string) chatcore.MessageID {
	tb.Helper()
	id, err := e.svc.SendMessage(context.Background(), sender.ID, chatcore.SendMessageRequest{
		Type: "stream", To: new(e.general.Name), Topic: new(topic), Content: "hello",
	})
	if err != nil {
		tb.Fatalf("sending to %q: %v", topic, err)
	}
	return id
}

// deletedTopics returns, per delete_message event of a channel, its topic and
// message ids.
func deletedTopics(events []chatcore.Event) map[string][]chatcore.MessageID {
	out := map[string][]chatcore.MessageID{}
	for _, ev := range events {
		if ev.Data["message_type"] != "stream" {
			continue
		}
		topic := ev.Data["topic"].(string)
		out[topic] = append(out[topic], ev.Data["message_ids"].([]chatcore.MessageID)...)
	}
	return out
}

func TestFollowupDeactivationEventsNameTopicAsStored(t *testing.T) {
	fuEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *fuEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		plans := e.post(t, e.ham, "Straße Plans")
		lunch := e.post(t, e.ham, "LUNCH")
		e.post(t, e.ophelia, "LUNCH") // another sender's message stays
		e.events.reset()
		err := e.svc.DeactivateUser(ctx, e.owner.ID, e.ham.ID, chatcore.DeactivateUserRequest{
			Actions: &chatcore.DeactivationActions{DeletePublicChannelMessages: true},
		})
		is.NoErr(err) // deactivation with message deletion succeeds
		got := deletedTopics(e.events.take("delete_message"))
		is.Equal(got, map[string][]chatcore.MessageID{
			"straße plans": {plans}, // lower-cased as stored, not the folded "strasse plans"
			"lunch":        {lunch},
		}) // one event per topic, named as Zulip names it
	})
}

func TestFollowupDeleteTopicEventsPerBatch(t *testing.T) {
	fuEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *fuEnv) {
		is := is.New(t)
		e := open(t, chatcore.WithTopicDeletion(1, time.Minute))
		ctx := context.Background()
		older := e.post(t, e.ham, "Straße")
		newer := e.post(t, e.ophelia, "STRASSE")
		e.events.reset()
		res, err := e.svc.DeleteTopic(ctx, e.owner.ID, e.general.ID, "strasse")
		is.NoErr(err)         // deletion succeeds
		is.True(res.Complete) // every message deleted
		evs := e.events.take("delete_message")
		is.Equal(len(evs), 2)                                             // one event per batch of one
		is.Equal(evs[0].Data["topic"], "strasse")                         // the newest batch spells it as its message, lower-cased
		is.Equal(evs[0].Data["message_ids"], []chatcore.MessageID{newer}) // newest first
		is.Equal(evs[1].Data["topic"], "straße")                          // the next batch spells it as its own message
		is.Equal(evs[1].Data["message_ids"], []chatcore.MessageID{older}) // then the older one

		_, err = e.svc.DeleteTopic(ctx, e.owner.ID, e.general.ID, "nothing here")
		is.NoErr(err)                                     // an empty topic is no error
		is.Equal(len(e.events.take("delete_message")), 0) // and sends no event
	})
}

func TestFollowupDirectNarrowReadsWithoutWriting(t *testing.T) {
	fuEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *fuEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		req := chatcore.MessagesRequest{
			Anchor: new("newest"), NumBefore: new(10),
			NarrowJSON: json.RawMessage(fmt.Sprintf(`[{"operator":"dm","operand":[%d]}]`, e.ophelia.ID)),
		}
		before := e.store.updates.Load()
		res, err := e.svc.Messages(ctx, e.ham.ID, req)
		is.NoErr(err)                               // a conversation that does not exist yet is no error
		is.Equal(len(res.Messages), 0)              // it has no messages
		is.True(res.FoundOldest && res.FoundNewest) // and the whole (empty) history was seen
		is.Equal(e.store.updates.Load(), before)    // the read wrote nothing
		is.NoErr(e.base.View(ctx, func(tx chatcore.Tx) error {
			rs, err := tx.DirectRecipients(ctx, e.ophelia.ID)
			is.NoErr(err)        // conversations listed
			is.Equal(len(rs), 0) // no conversation was created
			return nil
		})) // the store is unchanged

		id, err := e.svc.SendMessage(ctx, e.ophelia.ID, chatcore.SendMessageRequest{
			Type: "direct", To: new(fmt.Sprintf("[%d]", e.ham.ID)), Content: "hi",
		})
		is.NoErr(err) // direct message sent
		before = e.store.updates.Load()
		res, err = e.svc.Messages(ctx, e.ham.ID, req)
		is.NoErr(err)                            // the existing conversation is read
		is.Equal(len(res.Messages), 1)           // with its message
		is.Equal(res.Messages[0].ID, id)         // the one sent
		is.Equal(e.store.updates.Load(), before) // still without a write
	})
}

func TestFollowupLegacyNarrowForm(t *testing.T) {
	is := is.New(t)
	e := newFuEnv(t, memory.New())
	ctx := context.Background()
	x := e.post(t, e.ham, "x")
	e.post(t, e.ham, "y")
	fetch := func(narrow string) ([]chatcore.MessageID, error) {
		res, err := e.svc.Messages(ctx, e.ham.ID, chatcore.MessagesRequest{
			Anchor: new("newest"), NumBefore: new(10), NarrowJSON: json.RawMessage(narrow),
		})
		var ids []chatcore.MessageID
		for _, m := range res.Messages {
			ids = append(ids, m.ID)
		}
		return ids, err
	}
	legacy, err := fetch(`[["stream","Verona"],["topic","X"]]`)
	is.NoErr(err)                             // the legacy pair form is accepted
	is.Equal(legacy, []chatcore.MessageID{x}) // and narrows like the object form
	dict, err := fetch(`[{"operator":"stream","operand":"Verona"},{"operator":"topic","operand":"X"}]`)
	is.NoErr(err)          // the object form is accepted
	is.Equal(dict, legacy) // both forms give the same messages
	mixed, err := fetch(` [ ["topic", "x"], {"operator":"channel","operand":` + fmt.Sprint(e.general.ID) + `,"negated":false} ] `)
	is.NoErr(err)           // both forms may be mixed
	is.Equal(mixed, legacy) // to the same effect
	for _, none := range []string{``, `null`, `[]`} {
		all, err := fetch(none)
		is.NoErr(err)         // no narrow
		is.Equal(len(all), 2) // every message
	}
	combined, err := e.svc.Messages(ctx, e.ham.ID, chatcore.MessagesRequest{
		Anchor: new("newest"), NumBefore: new(10),
		Narrow:     []chatcore.NarrowTerm{{Operator: "topic", Operand: json.RawMessage(`"x"`)}},
		NarrowJSON: json.RawMessage(`[["stream","Verona"]]`),
	})
	is.NoErr(err)                        // Go terms and wire terms together
	is.Equal(len(combined.Messages), 1)  // all terms apply
	is.Equal(combined.Messages[0].ID, x) // the topic term from Narrow still filters

	for _, tc := range []struct {
		name, narrow, msg string
	}{
		{"not a list", `{"operator":"stream","operand":"Verona"}`, "narrow is not a list"},
		{"string", `"stream:Verona"`, "narrow is not a list"},
		{"invalid JSON", `[["stream"`, "narrow is not valid JSON"},
		{"short pair", `[["stream"]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"long pair", `[["stream","Verona","x"]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"numeric operand in a pair", `[["stream",5]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"null in a pair", `[["stream",null]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"second element", `[["stream","Verona"],[1,"x"]]`, "Invalid narrow[1]: Value error, element is not a string pair"},
		{"number element", `[5]`, "Invalid narrow[0]: Value error, dict or list required"},
		{"string element", `["stream"]`, "Invalid narrow[0]: Value error, dict or list required"},
		{"missing operand", `[{"operator":"stream"}]`, "Invalid narrow[0]: Value error, operand is missing"},
		{"null operand", `[{"operator":"stream","operand":null}]`, "Invalid narrow[0]: Value error, operand is missing"},
		{"missing operator", `[{"operand":"Verona"}]`, "Invalid narrow[0]: Value error, operator is missing"},
		{"operator not a string", `[{"operator":1,"operand":"Verona"}]`, `narrow[0]["operator"] is not a string`},
		{"negated not a boolean", `[{"operator":"stream","operand":"Verona","negated":"no"}]`, `narrow[0]["negated"] is not a boolean`},
		{"negated null", `[{"operator":"stream","operand":"Verona","negated":null}]`, `narrow[0]["negated"] is not a boolean`},
		{"unknown operator in a pair", `[["color","red"]]`, "Invalid narrow operator: unknown operator color"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := fetch(tc.narrow)
			ce, ok := errors.AsType[*chatcore.Error](err)
			is.True(ok)                                // a typed error
			is.Equal(ce.Code, chatcore.CodeBadRequest) // BAD_REQUEST
			is.Equal(ce.Kind, chatcore.KindInvalid)    // HTTP 400
			is.Equal(ce.Msg, tc.msg)                   // Zulip's text
		})
	}
}

func TestFollowupLegacyNarrowOverTheWire(t *testing.T) {
	// The wire parameter reaches the request through DecodeParams as raw JSON.
	is := is.New(t)
	var req chatcore.MessagesRequest
	ignored, err := chatcore.DecodeParams(map[string][]string{"narrow": {`[["stream","Verona"]]`}}, &req)
	is.NoErr(err)                                             // a list of pairs decodes
	is.Equal(len(ignored), 0)                                 // narrow is a known parameter
	is.Equal(string(req.NarrowJSON), `[["stream","Verona"]]`) // kept as raw JSON
	is.Equal(req.Narrow, nil)                                 // Narrow is for Go callers only
}

func TestFollowupBulkSettingsGroupIDs(t *testing.T) {
	fuEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *fuEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		cast := &chatcore.Group{RealmID: e.realm.ID, Name: "cast", Members: []chatcore.UserID{e.ham.ID, e.ophelia.ID}}
		e.write(t, func(ctx context.Context, tx chatcore.Tx) error { return tx.CreateGroup(ctx, cast) })
		e.store.groupsForbidden.Store(true)
		bulk := func(groups ...chatcore.GroupID) error {
			return e.svc.UpdateSettings(ctx, e.owner.ID, chatcore.SettingsUpdate{
				TargetUsers: &chatcore.TargetUsers{GroupIDs: groups, SkipIfAlreadyEdited: new(false)},
				EnterSends:  new(true),
			})
		}
		for _, tc := range []struct {
			name string
			id   chatcore.GroupID
		}{
			{"unknown group", cast.ID + 1000},
			{"group of another realm", e.otherGroup.ID},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				err := bulk(cast.ID, tc.id)
				ce, ok := errors.AsType[*chatcore.Error](err)
				is.True(ok)                                                       // a typed error, not errFuGroups
				is.Equal(ce.Code, chatcore.CodeBadRequest)                        // BAD_REQUEST
				is.Equal(ce.Msg, fmt.Sprintf("Invalid user group ID: %d", tc.id)) // Zulip's text names the id
			})
		}
		is.NoErr(e.base.View(ctx, func(tx chatcore.Tx) error {
			for _, id := range []chatcore.UserID{e.ham.ID, e.ophelia.ID} {
				u, err := tx.User(ctx, id)
				is.NoErr(err)                   // user read
				is.True(!u.Settings.EnterSends) // a refused request changed nothing
			}
			return nil
		})) // state read

		is.NoErr(bulk(cast.ID, cast.ID)) // a group of the realm (twice) is valid without loading every group
		is.NoErr(e.base.View(ctx, func(tx chatcore.Tx) error {
			for _, u := range []*chatcore.User{e.ham, e.ophelia, e.owner} {
				got, err := tx.User(ctx, u.ID)
				is.NoErr(err)                                                          // user read
				is.Equal(got.Settings.EnterSends, slices.Contains(cast.Members, u.ID)) // only the group's members changed
			}
			return nil
		})) // state read
	})
}
