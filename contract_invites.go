package chatcore

import "github.com/chatcore/chatcore/store"

// The invitation names of the store contract under the root package (see
// contract.go).
type (
	// Invite is [store.Invite].
	Invite = store.Invite
	// InviteID is [store.InviteID].
	InviteID = store.InviteID
	// InviteStatus is [store.InviteStatus].
	InviteStatus = store.InviteStatus
	// InviteFilter is [store.InviteFilter].
	InviteFilter = store.InviteFilter
	// InviteStore is [store.InviteStore].
	InviteStore = store.InviteStore
)

// The invitation states ([store.InviteActive], ...).
const (
	InviteActive  = store.InviteActive
	InviteUsed    = store.InviteUsed
	InviteRevoked = store.InviteRevoked
)
