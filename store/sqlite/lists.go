package sqlite

import "github.com/chatcore/chatcore/store"

// UserListArg implements sqlstore.UserLists: a JSON array (see listArg).
func (querier) UserListArg(ids []store.UserID) any { return listArg(ids) }

// UserListCol implements sqlstore.UserLists (see listCol).
func (querier) UserListCol(p *[]store.UserID) any { return listCol[store.UserID]{p} }
