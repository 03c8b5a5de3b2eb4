package eventqueue

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/chatcore/chatcore/people"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/drafts"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/internal/slicex"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/presence"
	"github.com/chatcore/chatcore/realmemoji"
	"github.com/chatcore/chatcore/realms"
	"github.com/chatcore/chatcore/scheduled"
)

// Register answers POST /register: it returns the initial state the actor
// asked for with req, as Zulip computes it, read in one snapshot; with a
// non-nil req.Queue it also registers an event queue with those options (and
// req.AllPublicStreams) whose events start right after that snapshot (no
// event lost or doubled between them), and sets the state's QueueID and
// LastEventID. [Hub.Register] does the same and collects old queues as it
// goes.
//
// The queue is bounded before the store is touched (see [MaxQueueParamsSize]
// and the narrow bounds): event types no event has are dropped, as they
// select nothing. The actor keeps at most [DefaultMaxQueuesPerUser] queues
// (their queue idle the longest is deleted to make room) and the realm at
// most [DefaultMaxQueuesPerRealm]; a [Hub] takes its own bounds from
// [Options].
//
// Errors: BAD_REQUEST "User not authorized for this query" when a guest asks
// for AllPublicStreams; "Operator <op> not supported." and "Operand <x> not
// supported." for a queue narrow events cannot follow ("Invalid narrow" for a
// term that is not a pair); "narrow is too long (limit: 100 items)",
// "Invalid narrow operand for <op>: too long (limit: N characters)",
// "event_types is too long (limit: 1000 items)" and "Event queue options
// too large (limit: N bytes)" past the bounds; "Too many event queues in
// this organization (limit: N); try again later" when the realm is full;
// UNAUTHORIZED for a missing or deactivated actor. Other errors are internal
// (store, context). Safe for concurrent use.
func Register(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req RegisterRequest) (State, error) {
	st, _, err := register(ctx, svc, actorID, req, defaultLimits)
	return st, err
}

// register is [Register] with the queue bounds lim; it also returns the ids
// of the actor's queues it deleted to stay within them.
func register(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req RegisterRequest, lim queueLimits) (State, []string, error) {
	queue := req.Queue
	var opts QueueOptions
	var params []byte
	if queue != nil {
		opts = *queue // the caller's options are left as they are
		opts.AllPublicStreams = req.AllPublicStreams
		var err error
		if params, err = encodeParams(&opts); err != nil {
			return State{}, nil, err
		}
	}
	for attempt := 0; ; attempt++ {
		st, head, err := registerState(ctx, svc, actorID, req)
		if err != nil || queue == nil {
			return st, nil, err
		}
		var evicted []string
		st.QueueID, evicted, err = createQueue(ctx, svc, actorID, &opts, params, head, lim)
		if errors.Is(err, errRegisterRetry) && attempt < 3 {
			continue
		}
		if err != nil {
			return State{}, nil, err
		}
		st.LastEventID = -1
		return st, evicted, nil
	}
}

// registerState reads the state req asks for, and the event log position
// it reflects, in one read-only transaction.
func registerState(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req RegisterRequest) (State, int64, error) {
	want := func(section string) bool {
		return req.Sections == nil || slices.Contains(req.Sections, section)
	}
	var st State
	var head int64
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		perms := &realmPermissions{tx: tx, realm: u.RealmID}
		if req.AllPublicStreams && u.Role == chatcore.RoleGuest {
			return chatcore.BadRequest("User not authorized for this query")
		}
		if head, err = tx.LastEventID(ctx, u.RealmID); err != nil {
			return err
		}
		if want("realm_user") {
			id := u.ID
			st.UserID = &id
		}
		if want("realm_bot") {
			if st.Bots, err = people.BotsState(ctx, svc, tx, u); err != nil {
				return err
			}
		}
		if want("realm") {
			realm, err := tx.Realm(ctx, u.RealmID)
			if err != nil {
				return err
			}
			st.Realm = &RegisterRealm{
				Name:                  realm.Name,
				Description:           realm.Description,
				DefaultLanguage:       cmp.Or(realm.DefaultLanguage, "en"),
				EmptyTopicDisplayName: chatcore.DisplayedEmptyTopic(realm),
				MaxReminderNoteLength: scheduled.MaxReminderNoteLength,
				DateCreated:           realm.DateCreated,
				NameChangesDisabled:   realm.NameChangesDisabled,
				EmailChangesDisabled:  realm.EmailChangesDisabled,
				RequireUniqueNames:    realm.RequireUniqueNames,
				EnableReadReceipts:    !realm.ReadReceiptsDisabled,
				Messages:              realm.Messages,
				IconSource:            chatcore.RealmIconSource(realm),
				IconPath:              chatcore.RealmIconPath(realm),
			}
			p, err := perms.get(ctx)
			if err != nil {
				return err
			}
			st.Realm.GroupSettings = groups.RealmSettingValues(p, realm)
		}
		if want("user_settings") {
			settings := u.Settings
			st.Settings = &settings
		}
		if want("realm_user_settings_defaults") {
			if st.UserDefaults, err = realms.UserDefaults(ctx, tx, u.RealmID); err != nil {
				return err
			}
		}
		if err := registerPeople(ctx, svc, tx, u, want, perms, &st); err != nil {
			return err
		}
		if want("subscription") || want("stream") {
			p, err := perms.get(ctx)
			if err != nil {
				return err
			}
			if st.Streams, st.Subscriptions, err = channels.RegisterState(ctx, svc, tx, u, p,
				want("stream"), want("subscription"), req.IncludeSubscribers); err != nil {
				return err
			}
		}
		if err := registerPersonal(ctx, tx, u, req, want, &st); err != nil {
			return err
		}
		if want("default_streams") {
			ids, err := tx.DefaultStreams(ctx, u.RealmID)
			if err != nil {
				return err
			}
			st.DefaultStreams = slicex.OrEmpty(ids)
		}
		if want("realm_emoji") {
			if st.RealmEmoji, err = realmemoji.State(ctx, tx, u.RealmID); err != nil {
				return err
			}
		}
		if want("custom_profile_fields") {
			st.CustomProfileFields = []any{}
		}
		if want("presence") {
			ans, err := presence.State(ctx, svc, tx, u, req.SlimPresence, req.PresenceHistoryLimitDays)
			if err != nil {
				return err
			}
			st.Presence = &ans
		}
		if want("realm_linkifiers") {
			if st.Linkifiers, err = linkifiers.Views(ctx, tx, u.RealmID); err != nil {
				return err
			}
			st.Linkifiers = slicex.OrEmpty(st.Linkifiers)
		}
		if want("scheduled_messages") {
			if st.ScheduledMessages, err = scheduled.Views(ctx, tx, u); err != nil {
				return err
			}
		}
		if want("drafts") {
			if st.Drafts, err = drafts.State(ctx, tx, u); err != nil {
				return err
			}
		}
		if want("reminders") {
			if st.Reminders, err = scheduled.ReminderViews(ctx, tx, u); err != nil {
				return err
			}
		}
		if err := registerMore(ctx, svc, tx, u, want, &st); err != nil {
			return err
		}
		return registerFlags(ctx, tx, u, want, req.EmptyTopicName, &st)
	})
	if err != nil {
		return State{}, 0, err
	}
	return st, head, nil
}

// realmPermissions reads a realm's permissions in tx once, for every
// section of a registration that needs them.
type realmPermissions struct {
	tx    chatcore.Tx
	realm chatcore.RealmID
	p     *chatcore.Permissions
}

// get returns the realm's permissions, read at the first call.
func (r *realmPermissions) get(ctx context.Context) (*chatcore.Permissions, error) {
	if r.p == nil {
		p, err := chatcore.LoadPermissions(ctx, r.tx, r.realm)
		if err != nil {
			return nil, err
		}
		r.p = p
	}
	return r.p, nil
}

// registerPeople fills the realm_user and realm_user_groups sections.
func registerPeople(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, u *chatcore.User, want func(string) bool, perms *realmPermissions, st *State) error {
	if !want("realm_user") && !want("realm_user_groups") {
		return nil
	}
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: u.RealmID, Profile: true})
	if err != nil {
		return err
	}
	if want("realm_user") {
		p, err := perms.get(ctx)
		if err != nil {
			return err
		}
		ru := &RegisterUsers{Active: []chatcore.UserView{}, NonActive: []chatcore.UserView{}, CrossRealmBots: []chatcore.UserView{},
			Me: svc.ViewUser(u, u, false), AvatarSource: u.AvatarSource, AvatarURLMedium: svc.AvatarMediumURL(u),
			CanCreatePublicChannels:  groups.RealmAllows(p, u, "can_create_public_channel_group"),
			CanCreatePrivateChannels: groups.RealmAllows(p, u, "can_create_private_channel_group"),
			CanSubscribeOthers:       groups.RealmAllows(p, u, "can_add_subscribers_group"),
			CanInviteOthers:          groups.RealmAllows(p, u, "can_invite_users_group")}
		for i := range users {
			v := svc.ViewUser(u, &users[i], true)
			if users[i].IsActive {
				ru.Active = append(ru.Active, v)
			} else {
				ru.NonActive = append(ru.NonActive, v)
			}
		}
		st.Users = ru
	}
	if want("realm_user_groups") {
		var err error
		p, err := perms.get(ctx)
		if err != nil {
			return err
		}
		if st.Groups, err = groups.Views(ctx, tx, u, p, users, false); err != nil {
			return err
		}
	}
	return nil
}

// registerFlags fills the flag sections for u: max_message_id (section
// message), unread_msgs (when both message and update_message_flags are
// wanted, as Zulip's fetch_initial_state_data) and starred_messages.
func registerFlags(ctx context.Context, tx chatcore.Tx, u *chatcore.User, want func(string) bool, allowEmptyTopic bool, st *State) error {
	if want("message") {
		id, err := chatcore.MaxReadableMessageID(ctx, tx, u)
		if err != nil {
			return err
		}
		if id == 0 {
			id = -1 // Zulip's value when the user has no message
		}
		st.MaxMessageID = &id
	}
	if want("message") && want("update_message_flags") {
		unread, err := messages.UnreadState(ctx, tx, u, allowEmptyTopic)
		if err != nil {
			return err
		}
		st.Unread = unread
	}
	if want("starred_messages") {
		ids, err := tx.FlaggedMessageIDs(ctx, u.ID, chatcore.FlagStarred)
		if err != nil {
			return err
		}
		st.StarredMessages = slicex.OrEmpty(ids)
	}
	return nil
}
