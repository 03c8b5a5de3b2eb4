package chatcore

import "github.com/chatcore/chatcore/store"

// LoginKey is [store.LoginKey]: an API key a password login issued.
type LoginKey = store.LoginKey
