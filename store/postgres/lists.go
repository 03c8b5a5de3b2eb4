package postgres

import "github.com/chatcore/chatcore/store"

// UserListArg implements sqlstore.UserLists: a bigint[] (a nil list is
// NULL).
func (querier) UserListArg(ids []store.UserID) any { return ids }

// UserListCol implements sqlstore.UserLists.
func (querier) UserListCol(p *[]store.UserID) any { return p }
