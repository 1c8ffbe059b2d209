//go:build !race

package serve

// raceEnabled reports that the race detector is on.
const raceEnabled = false
