package sqlstore

import "github.com/chatcore/chatcore/store"

// Call returns fn(t). When fn panics, undo runs (to roll back or release
// what the transaction holds) before the panic goes on.
func Call(t store.Tx, fn func(store.Tx) error, undo func()) error {
	done := false
	defer func() {
		if !done {
			undo()
		}
	}()
	err := fn(t)
	done = true
	return err
}
