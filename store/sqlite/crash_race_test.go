//go:build race

package sqlite_test

// crashBigCount is the size of the crash test's big topic. The race detector
// instruments the transpiled SQLite as well and slows it down some twentyfold,
// so race builds use a smaller topic; the logic tested is the same.
const crashBigCount = 3000
