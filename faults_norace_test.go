//go:build !race

package chatcore_test

// sqliteFaultStride is the distance between faulted steps on SQLite (see
// faults_race_test.go).
const sqliteFaultStride = 1
