// Package eventid numbers a run's events: the id event.Recorder gives the
// nth event of run RUN is RUN-NNNNNN (at least six digits). The sealed
// transcript (internal/transcript) gives an event its final number under
// the file's lock, after the lines other processes appended, so that ids
// stay unique and ascend in the file's order (SPEC L8).
package eventid

import "strconv"

// Make returns the id of run runID's event number n.
func Make(runID string, n int) string {
	d := strconv.Itoa(n)
	for len(d) < 6 {
		d = "0" + d
	}
	return runID + "-" + d
}

// Number returns the number of run runID's event id as Make gives it,
// and false for an id of another form (an override's, another run's).
func Number(runID, id string) (int, bool) {
	if len(id) <= len(runID)+1 || id[:len(runID)] != runID || id[len(runID)] != '-' {
		return 0, false
	}
	rest := id[len(runID)+1:]
	if len(rest) > 12 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(rest) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
