package chatcore

// Access: who may call an operation ([Actor], [Authorize]) and who may read
// a message ([CanSee], [StreamAccessFor], [StreamAccessMap], [Readable]),
// and reading only what the viewer may see ([FetchVisible],
// [MaxReadableMessageID]). What the area packages and the Service's own
// delivery paths build on besides: [Service.SendInTx] and the checks of
// sending are in messages_send.go, [Service.BuildMessageView] in views.go,
// rendering ([Service.Prerender], [Service.RenderChecked]) in render.go.

import (
	"context"
	"errors"
	"slices"
)

// Actor loads the acting user of a request. A missing or deactivated actor is
// an authentication failure: the adapter authenticates before calling the
// Service, so this only happens when the user was deactivated in between or an
// embedder passes a bad id.
func Actor(ctx context.Context, tx Tx, id UserID) (*User, error) {
	u, err := tx.User(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, Unauthorized("Invalid API key")
	}
	if err != nil {
		return nil, err
	}
	if !u.IsActive {
		return nil, Unauthorized("Account is deactivated")
	}
	return u, nil
}

// AuthorizedActor is [Actor] followed by [Authorize] of access: the acting
// user of an operation only some users may run.
func AuthorizedActor(ctx context.Context, tx Tx, id UserID, access Access) (*User, error) {
	u, err := Actor(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if err := Authorize(u, access); err != nil {
		return nil, err
	}
	return u, nil
}

// UserInRealm returns the user or bot id of the realm. A user of another realm
// is reported exactly like a missing one: ErrNotFound.
func UserInRealm(ctx context.Context, tx Tx, realm RealmID, id UserID) (*User, error) {
	u, err := tx.User(ctx, id)
	if err != nil {
		return nil, err
	}
	if u.RealmID != realm {
		return nil, ErrNotFound
	}
	return u, nil
}

// StreamInRealm returns the channel id of the realm, or ErrNotFound.
func StreamInRealm(ctx context.Context, tx Tx, realm RealmID, id StreamID) (*Stream, error) {
	st, err := tx.Stream(ctx, id)
	if err != nil {
		return nil, err
	}
	if st.RealmID != realm {
		return nil, ErrNotFound
	}
	return st, nil
}

// AccessibleMessage returns message id when u can read it, or nil (and no
// error) when it does not exist, is of another realm or is hidden from u;
// errors come from the store.
func AccessibleMessage(ctx context.Context, tx Tx, u *User, id MessageID) (*Message, error) {
	m, err := tx.Message(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ok, err := CanSee(ctx, tx, u, m)
	if err != nil || !ok {
		return nil, err
	}
	return m, nil
}

// ReadableMessage returns message id when u can read it, else Zulip's
// BAD_REQUEST "Invalid message(s)" (a message that does not exist, is of
// another realm or is hidden from u); other errors come from the store.
func ReadableMessage(ctx context.Context, tx Tx, u *User, id MessageID) (*Message, error) {
	m, err := AccessibleMessage(ctx, tx, u, id)
	if err == nil && m == nil {
		err = InvalidMessageError()
	}
	return m, err
}

// requireAdmin returns Zulip's "Must be an organization administrator" unless u
// is an administrator or owner.
func requireAdmin(u *User) error {
	if !u.Role.IsAdmin() {
		return ErrMustBeAdmin()
	}
	return nil
}

// Access is who may call an operation. Zulip checks it on the endpoint, before
// the operation's parameters are read, so a transport calls [Authorize] before
// decoding; the operations check it again themselves.
type Access int

const (
	// AccessAny admits every active user and bot.
	AccessAny Access = iota
	// AccessHuman refuses bots (Zulip's @human_users_only).
	AccessHuman
	// AccessAdmin admits administrators and owners only (Zulip's
	// @require_realm_admin).
	AccessAdmin
)

// Authorize returns the refusal of access a for u, an active user the Service
// authenticated, or nil when u may proceed. Errors: BAD_REQUEST "This endpoint
// does not accept bot requests." for a bot under AccessHuman;
// UNAUTHORIZED_PRINCIPAL "Must be an organization administrator" (HTTP 400)
// for a non-administrator under AccessAdmin.
func Authorize(u *User, a Access) error {
	switch a {
	case AccessHuman:
		if u.IsBot {
			return errNotForBots()
		}
	case AccessAdmin:
		return requireAdmin(u)
	}
	return nil
}

// errNotForBots is Zulip's refusal of bots on endpoints for humans only.
func errNotForBots() *Error {
	return BadRequest("This endpoint does not accept bot requests.")
}

// CanSee reports whether viewer may read m: messages of another realm never;
// direct messages when viewer takes part; channel messages of public channels
// for non-guests; otherwise with an active subscription, and in a channel with
// protected history only from the subscription's FirstVisibleMessageID on.
func CanSee(ctx context.Context, tx Tx, viewer *User, m *Message) (bool, error) {
	return NewAccessCache().CanSee(ctx, tx, viewer, m)
}

// StreamAccess is what a viewer may read of one channel.
type StreamAccess struct {
	// OK reports that the viewer may read the channel's messages at all.
	OK bool
	// MinID is the smallest readable message id (protected history), 0 for all.
	MinID MessageID
}

// Allows reports whether the viewer may read message id of the channel.
func (a StreamAccess) Allows(id MessageID) bool { return a.OK && id >= a.MinID }

// StreamAccessFor computes the viewer's read access to st.
func StreamAccessFor(ctx context.Context, tx Tx, viewer *User, st *Stream) (StreamAccess, error) {
	if !st.InviteOnly && viewer.Role != RoleGuest {
		return StreamAccess{OK: true}, nil
	}
	sub, err := tx.Subscription(ctx, st.ID, viewer.ID)
	if errors.Is(err, ErrNotFound) {
		return StreamAccess{}, nil
	}
	if err != nil {
		return StreamAccess{}, err
	}
	if !sub.Active {
		return StreamAccess{}, nil
	}
	acc := StreamAccess{OK: true}
	if !st.HistoryPublicToSubscribers {
		acc.MinID = sub.FirstVisibleMessageID
	}
	return acc, nil
}

// StreamAccessMap returns the viewer's read access to every channel of the
// viewer's realm (channels the viewer may not read are absent), and those
// channels.
func StreamAccessMap(ctx context.Context, tx Tx, viewer *User) (map[StreamID]StreamAccess, []Stream, error) {
	streams, err := tx.Streams(ctx, viewer.RealmID)
	if err != nil {
		return nil, nil, err
	}
	subs, err := tx.Subscriptions(ctx, 0, viewer.ID)
	if err != nil {
		return nil, nil, err
	}
	active := map[StreamID]Subscription{}
	for _, sub := range subs {
		if sub.Active {
			active[sub.StreamID] = sub
		}
	}
	acc := make(map[StreamID]StreamAccess, len(streams))
	for _, st := range streams {
		switch sub, ok := active[st.ID]; {
		case !st.InviteOnly && viewer.Role != RoleGuest:
			acc[st.ID] = StreamAccess{OK: true}
		case ok && st.HistoryPublicToSubscribers:
			acc[st.ID] = StreamAccess{OK: true}
		case ok:
			acc[st.ID] = StreamAccess{OK: true, MinID: sub.FirstVisibleMessageID}
		}
	}
	return acc, streams, nil
}

// AccessCache answers [CanSee] for many messages of one viewer in one
// transaction, looking up each channel's access once.
type AccessCache struct{ streams map[StreamID]StreamAccess }

// NewAccessCache returns an empty cache, for one viewer and one transaction.
func NewAccessCache() *AccessCache { return &AccessCache{streams: map[StreamID]StreamAccess{}} }

// CanSee reports whether viewer may read m, by the rule of [CanSee].
func (c *AccessCache) CanSee(ctx context.Context, tx Tx, viewer *User, m *Message) (bool, error) {
	if m.RealmID != viewer.RealmID {
		return false, nil
	}
	if m.Type == MessageTypePrivate {
		return slices.Contains(m.DirectMembers, viewer.ID), nil
	}
	acc, ok := c.streams[m.StreamID]
	if !ok {
		st, err := StreamInRealm(ctx, tx, viewer.RealmID, m.StreamID)
		if err == nil {
			acc, err = StreamAccessFor(ctx, tx, viewer, st)
		} else if errors.Is(err, ErrNotFound) {
			err = nil
		}
		if err != nil {
			return false, err
		}
		c.streams[m.StreamID] = acc
	}
	return acc.Allows(m.ID), nil
}

// InvalidMessageError is Zulip's error for a message the caller cannot see.
func InvalidMessageError() *Error { return BadRequest("Invalid message(s)") }

// MaxReadableMessageID returns Zulip's max_message_id for u: the newest
// message u received (see [UserMessage.Received]; Zulip's newest
// UserMessage row of the user), 0 when there is none. It reads the ids of
// the user's channels and conversations through their indexes, never a
// message's content or the history.
func MaxReadableMessageID(ctx context.Context, tx Tx, u *User) (MessageID, error) {
	ids, err := tx.MessageIDs(ctx, MessageQuery{RealmID: u.RealmID, FlagUser: u.ID, Newest: true, Limit: 1})
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	return ids[0], nil
}

// Readable reports whether viewer may read m, given viewer's channel access
// (see [StreamAccessMap]): a direct message they are a member of, or a
// channel message their access to its channel covers.
func Readable(viewer *User, access map[StreamID]StreamAccess, m *Message) bool {
	if m.Type == MessageTypePrivate {
		return slices.Contains(m.DirectMembers, viewer.ID)
	}
	return access[m.StreamID].Allows(m.ID)
}

// FetchVisible returns up to limit messages of q that ok accepts, in q's
// order, reading in batches so that hidden messages do not shorten the
// result. Errors come from the store.
func FetchVisible(ctx context.Context, tx Tx, q MessageQuery, limit int, ok func(*Message) bool) ([]Message, error) {
	var out []Message
	for len(out) < limit {
		q.Limit = limit - len(out)
		batch, err := tx.Messages(ctx, q)
		if err != nil {
			return nil, err
		}
		for i := range batch {
			if ok(&batch[i]) {
				out = append(out, batch[i])
				if len(out) == limit {
					break
				}
			}
		}
		if len(batch) < q.Limit {
			break
		}
		last := batch[len(batch)-1].ID
		if q.Newest {
			q.BeforeID = last
		} else {
			q.AfterID = last
		}
	}
	return out, nil
}
