// Package render is the text rendering of a run's events for a person:
// one escaped line per event (Format, TextWriter) as `warden run` shows
// them on stderr and `warden transcript show` prints them, and the summary
// of a run or transcript (Stats). The events themselves and their JSON
// Lines form are package event's.
package render
