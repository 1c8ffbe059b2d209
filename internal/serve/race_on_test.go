//go:build race

package serve

// raceEnabled reports that the race detector is on: the store's SQLite
// engine then runs many times slower, and tests scale their load down.
const raceEnabled = true
