//go:build !race

package chatcore_test

// fltSQLiteStride is the distance between faulted steps on SQLite (see
// faults_race_test.go).
const fltSQLiteStride = 1
