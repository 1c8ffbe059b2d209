package effect

import "encoding/json"

// Observed is what the dry run of one boundary request gave the
// approvers after the first pass (SPEC G17): the report and its summary,
// or, when no dry run ran, why not. It travels with the request, so that
// the reviewer, the person and the record all see the same effects.
type Observed struct {
	// Report is what the dry run observed; nil when none ran.
	Report *Report
	// Summary is Report.Summary for the run's writable roots: what the
	// reviewer and the person read.
	Summary string
	// Unavailable says why no dry run ran (turned off, unsupported by the
	// kernel, failed); "" when Report is set.
	Unavailable string
}

// JSON returns the report as JSON, for the auto_review event's effects
// field; nil when there is none.
func (o *Observed) JSON() json.RawMessage {
	if o == nil || o.Report == nil {
		return nil
	}
	b, err := json.Marshal(o.Report)
	if err != nil {
		return nil
	}
	return b
}

// Note returns the line a person reads about the dry run, with its
// summary; "" when no dry run ran (the record says why).
func (o *Observed) Note() string {
	if o == nil || o.Report == nil {
		return ""
	}
	return "effects seen in a dry run (warden ran the command once in a throw-away copy; nothing real changed): " + o.Summary
}
