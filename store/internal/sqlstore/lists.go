package sqlstore

import "github.com/chatcore/chatcore/store"

// UserLists is what each store's Querier also implements for the columns
// that hold a list of user ids (a scheduled message's direct members),
// which each database stores its own way (a JSON array, an array type).
type UserLists interface {
	// UserListArg returns the argument of such a column; a nil list is
	// NULL, so that nil and empty lists read back as they were written.
	UserListArg(ids []store.UserID) any
	// UserListCol returns the scan destination of such a column into p.
	UserListCol(p *[]store.UserID) any
}

// lists returns the transaction's UserLists.
func (x *Tx) lists() UserLists { return x.q.(UserLists) }
