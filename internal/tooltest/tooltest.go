// Package tooltest holds what tests of the tool loop build their runs from:
// a tool that asks to cross the sandbox, and policy rules compiled from
// patterns.
package tooltest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// Crossing returns a tool named "write" that asks the run's boundary
// approver to write path, outside the writable roots, and reports what it
// was told: "written" when approved, else an approval error carrying the
// decider's explanation.
func Crossing(path string) tool.Tool {
	return tool.Func{
		Spec: tool.Info{Name: "write", Description: "Writes outside the sandbox (asks first).",
			Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"path":{"type":"string"}}}`)},
		Fn: func(ctx context.Context, _ json.RawMessage) (string, error) {
			dec, err := boundary.Ask(ctx, &boundary.Request{Permission: boundary.Write, Paths: []string{path}, Reason: "outside the writable roots"})
			if err != nil || !dec.Approved {
				return "", tool.Errorf(tool.ErrApproval, "%s", dec.Explanation)
			}
			return "written", nil
		},
	}
}

// Rule returns the rule named name that hands the calls matching patterns
// to h; a pattern that does not compile fails the test.
func Rule[H any](t testing.TB, name string, h H, patterns ...string) policy.Rule[H] {
	t.Helper()
	m, err := policy.CompileList(patterns)
	if err != nil {
		t.Fatal(err)
	}
	return policy.Rule[H]{Name: name, Match: m, Handler: h}
}
