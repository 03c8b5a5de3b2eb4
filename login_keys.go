package chatcore

import "github.com/chatcore/chatcore/store"

// LoginKey is [store.LoginKey]: an API key a password login issued.
type LoginKey = store.LoginKey

// KeyHolder is [store.KeyHolder]: the user of an API key with their
// realm's state, as authentication reads them.
type KeyHolder = store.KeyHolder
