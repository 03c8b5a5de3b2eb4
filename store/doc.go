// Package store is the contract between chatcore's Service and the stores
// that persist its data: the typed ids, the entities (realms, users,
// channels, messages, ...), the per-user message flags, the [Store] and [Tx]
// interfaces with one sub-interface per aggregate, the sentinel errors
// [ErrNotFound] and [ErrConflict], the event log's entries and notices, and
// the optional read hints a store may implement ([SingleReadStore],
// [Prefetcher]).
//
// The implementations live beside it, as database/sql/driver's and
// testing/fstest's do beside their contracts: store/memory (for tests and
// embedding), store/sqlite (the embedded default) and store/postgres (several
// instances on one database). store/storetest is the conformance suite every
// implementation passes; an embedder's own store can run it too.
//
// This package holds no rules of Zulip's: a store checks no permissions,
// validates no input and writes no user-facing text, and nothing here imports
// the Service. The root package chatcore names the same types (chatcore.User
// is store.User), so embedders need only one import.
package store
