package sqlite

import "github.com/chatcore/chatcore/store"

// UserListArg implements sqlstore.UserLists: a JSON array (see listArg).
func (querier) UserListArg(ids []store.UserID) any { return listArg(ids) }

// UserListCol implements sqlstore.UserLists (see listCol).
func (querier) UserListCol(p *[]store.UserID) any { return listCol[store.UserID]{p} }

// MessageListArg implements sqlstore.MessageLists: a JSON array.
func (querier) MessageListArg(ids []store.MessageID) any { return idsJSON(ids) }

// InList implements sqlstore.MessageLists.
func (querier) InList(col, param string) string {
	return col + " IN (SELECT value FROM json_each(" + param + "))"
}

// ListRows implements sqlstore.MessageLists.
func (querier) ListRows(param, alias string) string {
	return "(SELECT value AS id FROM json_each(" + param + ")) AS " + alias
}
