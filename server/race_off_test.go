//go:build !race

package server

// raceEnabled reports that the race detector is on.
const raceEnabled = false
