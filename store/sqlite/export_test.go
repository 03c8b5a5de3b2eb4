package sqlite

import (
	"database/sql"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

// Internals exposed to the external tests of this package.
var (
	CheckConn      = checkConn
	DeleteSQL      = dialect.DeleteSQL
	TopicDeleteSQL = topicDeleteSQL
	MessagesSQL    = dialect.PlainMessagesSQL
)

// ScheduledSQL returns the query ScheduledMessages runs for f.
func ScheduledSQL(f store.ScheduledFilter) (string, []any) { return sqlstore.ScheduledSQL(&dialect, f) }

// DBs returns the writer and reader pools of s.
func DBs(s *Store) (writer, readers *sql.DB) { return s.writer, s.readers }

// BulkSettingSQL returns the statement UpdateSettingBulk runs for the setting.
func BulkSettingSQL(setting string) string {
	return dialect.BulkSettingSQL(sqlstore.SettingColumns[setting], "integer")
}

// SettingColumn reports the column name of a setting.
func SettingColumn(setting string) (string, bool) {
	c, ok := sqlstore.SettingColumns[setting]
	return c, ok && store.IsSetting(setting)
}

// CachedStmts returns how many prepared statements the writer and reader
// caches of s hold.
func CachedStmts(s *Store) (writer, readers int) {
	s.writerStmts.mu.RLock()
	writer = len(s.writerStmts.stmts)
	s.writerStmts.mu.RUnlock()
	s.readerStmts.mu.RLock()
	readers = len(s.readerStmts.stmts)
	s.readerStmts.mu.RUnlock()
	return writer, readers
}

// Queued returns how many Updates of s wait for the writer.
func Queued(s *Store) int64 { return s.writes.queued.Load() }

// Commits returns how many write transactions s has committed.
func Commits(s *Store) int64 { return s.writes.commits.Load() }

// Generations returns the generations of s's row cache, one for each of
// CachedTables.
func Generations(s *Store) [10]uint64 { return s.rows.now() }

// UserWrites returns the count of single-user writes of s's row cache.
func UserWrites(s *Store) uint64 { return s.rows.userWritesNow() }

// CachedTables are the names of the row cache's tables, in its order.
var CachedTables = []string{"users", "realms", "streams", "subscriptions", "event_audiences", "linkifiers",
	"group_settings", "user_topics", "muted_users", "alert_words"}

// ChangedTables returns the names of the cached tables query may change.
func ChangedTables(query string) []string {
	var names []string
	for t, n := range CachedTables {
		if changedTables(query).has(cachedTable(t)) {
			names = append(names, n)
		}
	}
	return names
}

// The event log's statements whose query plans a test checks.
const (
	EventsByScan       = eventsByScan
	EventsByAudience   = eventsByAudience
	PrunedAudiencesSQL = prunedAudiencesSQL
)

// WithTrace makes a Store call fn with every statement its transactions run
// and the statement's arguments, before it runs.
func WithTrace(fn func(query string, args []any)) Option { return withTrace(fn) }

// SetBulkRows sets how many rows one statement of CreateMessages inserts
// and returns a function that restores the previous value.
func SetBulkRows(n int) (restore func()) {
	old := bulkRows
	bulkRows = n
	return func() { bulkRows = old }
}

// WithoutIndexer makes a Store run no full-text indexer (see
// withoutIndexer).
func WithoutIndexer() Option { return withoutIndexer() }

// SearchTail returns indexed_through and the number of stale messages of s.
func SearchTail(s *Store) (through int64, stale int, err error) {
	err = s.readers.QueryRow("SELECT indexed_through, (SELECT count(*) FROM search_stale) FROM search_state").Scan(&through, &stale)
	return through, stale, err
}

// CacheSize returns the page cache setting (PRAGMA cache_size) of the
// connection of tx, an Update's transaction.
func CacheSize(stx store.Tx) (int64, error) {
	var n int64
	err := stx.(*tx).tx.QueryRow("PRAGMA cache_size").Scan(&n)
	return n, err
}

// LocalStmts returns how many statements tx prepared for itself (see
// tx.stmt).
func LocalStmts(stx store.Tx) int { return len(stx.(*tx).local) }
