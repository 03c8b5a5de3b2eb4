//go:build race

package chatcore_test

// sqliteFaultStride is the distance between faulted steps on SQLite. The race
// detector slows the transpiled SQLite some twentyfold, so race builds fault
// every sixth step (each mode at different steps); the memory store is still
// faulted at every step, and normal builds fault SQLite at every step too.
const sqliteFaultStride = 6
