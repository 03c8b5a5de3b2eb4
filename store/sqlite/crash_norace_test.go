//go:build !race

package sqlite_test

// crashBigCount is the size of the crash test's big topic (see
// crash_race_test.go for race builds).
const crashBigCount = 20000
