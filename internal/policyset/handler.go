package policyset

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
)

// Guard, deferred by a function that asks the handler name (an approver
// or a reviewer, as what says) and returns its answer, with err pointing
// at that function's error result: it wraps the handler's error with its
// name, and turns a panic into an error with the stack (SPEC A7, R7). A
// deferred call, not a function to call back, so that asking a handler
// costs no closure.
func Guard(what, name string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s %s panicked: %v\n%s", what, name, p, debug.Stack())
		return
	}
	if *err != nil {
		*err = fmt.Errorf("%s %s: %w", what, name, *err)
	}
}

// AutoFactory returns the factory of the built-in "auto" handler, which
// always answers one decision: parameter decision (one of valid; def by
// default) and an optional explanation ("auto DECISION" by default). make
// builds the handler.
func AutoFactory[H any, D ~string](def D, valid []D, make func(d D, explanation string) H) Factory[H] {
	return func(params map[string]any) (H, error) {
		var zero H
		d, explanation := def, ""
		for k, v := range params {
			s, ok := v.(string)
			switch {
			case k == "decision" && ok:
				d = D(s)
			case k == "explanation" && ok:
				explanation = s
			case k == "decision" || k == "explanation":
				return zero, fmt.Errorf("parameter %s must be a string", k)
			default:
				return zero, fmt.Errorf("unknown parameter %q (parameters: decision, explanation)", k)
			}
		}
		if !slices.Contains(valid, d) {
			return zero, fmt.Errorf("decision %q: want %s", d, oneOf(valid))
		}
		if explanation == "" {
			explanation = "auto " + string(d)
		}
		return make(d, explanation), nil
	}
}

// oneOf lists choices as "a, b or c".
func oneOf[D ~string](choices []D) string {
	s := make([]string, len(choices))
	for i, c := range choices {
		s[i] = string(c)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
