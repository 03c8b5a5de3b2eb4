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

// MessageLists is what each store's Querier also implements for the
// statements over a list of message ids, which travel as one argument
// each database unpacks its own way (json_each, an array).
type MessageLists interface {
	// MessageListArg returns the argument of such a list.
	MessageListArg(ids []store.MessageID) any
	// InList returns the condition that the SQL expression col is one of
	// the list that parameter param holds.
	InList(col, param string) string
	// ListRows returns a FROM item named alias with one row per id of the
	// list that parameter param holds, its column named id.
	ListRows(param, alias string) string
}

// messageLists returns the transaction's MessageLists.
func (x *Tx) messageLists() MessageLists { return x.q.(MessageLists) }
