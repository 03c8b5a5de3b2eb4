package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// maxCachedStmts bounds a stmtCache. Statement texts vary only with which
// filters a query uses (and inlined LIMITs), so a few hundred cover every
// path; beyond the bound, statements are simply prepared per use.
const maxCachedStmts = 256

// stmtCache keeps prepared statements of one pool, keyed by SQL text, so hot
// paths (one topic-deletion batch after another) do not parse and plan the
// same SQL in every transaction. A transaction uses a cached statement through
// sql.Tx.StmtContext, which reuses the statement already prepared on the
// transaction's connection. Statements missing from the cache are prepared
// after the transaction ends: preparing on the pool during a transaction
// would wait for the writer's only connection, which the transaction holds.
// stmtCache is safe for concurrent use.
type stmtCache struct {
	db    *sql.DB
	mu    sync.RWMutex
	stmts map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, stmts: map[string]*sql.Stmt{}}
}

// get returns the cached statement for query, or nil.
func (c *stmtCache) get(query string) *sql.Stmt {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.stmts[query]
}

// add prepares and caches the queries not cached yet, up to the bound. A
// query that fails to prepare is left out; its callers saw the error already.
func (c *stmtCache) add(ctx context.Context, queries []string) {
	for _, q := range queries {
		c.mu.RLock()
		_, have := c.stmts[q]
		full := len(c.stmts) >= maxCachedStmts
		c.mu.RUnlock()
		if have || full {
			continue
		}
		st, err := c.db.PrepareContext(ctx, q)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if _, have := c.stmts[q]; have || len(c.stmts) >= maxCachedStmts {
			st.Close()
		} else {
			c.stmts[q] = st
		}
		c.mu.Unlock()
	}
}

// close closes every cached statement.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for q, st := range c.stmts {
		errs = append(errs, st.Close())
		delete(c.stmts, q)
	}
	return errors.Join(errs...)
}
