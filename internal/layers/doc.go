// Package layers holds no code: its test checks that warden's import graph
// runs one way, as docs/architecture.md draws it — storage below
// governance, the console below the database, the first pass below the
// reviewer agent, the agent free of any concrete reviewer or model.
package layers
