//go:build !race

package plantest

// raceEnabled reports a race build (see Run).
const raceEnabled = false
