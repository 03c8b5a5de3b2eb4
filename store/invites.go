package store

import (
	"context"
	"time"
)

// InviteID identifies an invitation (a single-use e-mail invitation or a
// multi-use link; ids are shared by both kinds and never reused).
type InviteID int64

// InviteStatus is where an invitation stands.
type InviteStatus int

// The invitation states.
const (
	// InviteActive invitations can still be accepted (until they expire).
	InviteActive InviteStatus = 0
	// InviteUsed single-use invitations created an account.
	InviteUsed InviteStatus = 1
	// InviteRevoked invitations were revoked by their inviter or an
	// administrator.
	InviteRevoked InviteStatus = 2
)

// Invite is an invitation to join a realm: an e-mail invitation for one
// address, or a multi-use link (MultiUse, Email "") anyone holding it may
// open until it expires or is revoked; its page creates no account but an
// e-mail invitation (a confirmation) for the address the visitor gives.
type Invite struct {
	ID      InviteID
	RealmID RealmID
	// Key is the secret of the invitation link; unique across realms.
	Key      string
	MultiUse bool
	// Email is the invited address (single-use invitations only).
	Email     string
	InviterID UserID
	// InviteAs is the role the new account gets.
	InviteAs Role
	// StreamIDs are the channels the new account is subscribed to.
	StreamIDs []StreamID
	// IncludeRealmDefaultStreams adds the realm's default channels.
	IncludeRealmDefaultStreams bool
	// NotifyReferrer makes the inviter hear when the invitation is used.
	NotifyReferrer bool
	CreatedAt      time.Time
	// ExpiresAt is when the link stops working; zero: never.
	ExpiresAt time.Time
	Status    InviteStatus
	// UsedByID is the account a single-use invitation created (zero until
	// then).
	UsedByID UserID
}

// InviteFilter selects invitations of one realm; zero fields do not filter.
// Results are ordered by id.
type InviteFilter struct {
	RealmID RealmID
	// InviterID selects the invitations one user sent.
	InviterID UserID
	// Status filters on the status when non-nil.
	Status *InviteStatus
	// Email selects single-use invitations of the address, compared by
	// FoldKey.
	Email string
	// CreatedSince keeps invitations created at or after it, when not zero.
	CreatedSince time.Time
	// Limit bounds the result; zero means no limit.
	Limit int
}

// InviteStore persists invitations and what bot administration writes
// beyond UserStore.
type InviteStore interface {
	// CreateInvite inserts inv and fills in inv.ID when zero. A duplicate
	// id or key gives ErrConflict; an unknown realm gives ErrNotFound.
	CreateInvite(ctx context.Context, inv *Invite) error
	// Invite returns the invitation with the id, or ErrNotFound.
	Invite(ctx context.Context, id InviteID) (*Invite, error)
	// InviteByKey returns the invitation with the link key, or ErrNotFound.
	InviteByKey(ctx context.Context, key string) (*Invite, error)
	// Invites returns the invitations matching f (RealmID is required).
	Invites(ctx context.Context, f InviteFilter) ([]Invite, error)
	// UpdateInvite overwrites the stored invitation inv.ID (its key
	// included), or returns ErrNotFound. A key another invitation has
	// gives ErrConflict.
	UpdateInvite(ctx context.Context, inv *Invite) error
	// UpdateBotService overwrites the stored service s.ID (its bot
	// included), or returns ErrNotFound.
	UpdateBotService(ctx context.Context, s *BotService) error
}
