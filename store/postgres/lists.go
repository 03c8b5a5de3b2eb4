package postgres

import "github.com/chatcore/chatcore/store"

// UserListArg implements sqlstore.UserLists: a bigint[] (a nil list is
// NULL).
func (querier) UserListArg(ids []store.UserID) any { return ids }

// UserListCol implements sqlstore.UserLists.
func (querier) UserListCol(p *[]store.UserID) any { return p }

// MessageListArg implements sqlstore.MessageLists: a bigint[].
func (querier) MessageListArg(ids []store.MessageID) any { return ids }

// InList implements sqlstore.MessageLists.
func (querier) InList(col, param string) string { return col + " = ANY(" + param + ")" }

// ListRows implements sqlstore.MessageLists.
func (querier) ListRows(param, alias string) string {
	return "unnest(" + param + "::bigint[]) AS " + alias + "(id)"
}
