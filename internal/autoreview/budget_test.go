package autoreview_test

import (
	"strings"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/autoreview"
)

// G4: a review has a budget of tool calls. A reviewer that asks for ten
// calls at once gets four run; one that keeps calling tools once the
// budget is spent fails the review — a failure that fails closed, told
// apart from a denial — after a bounded number of model calls.
func TestG4_ToolCallBudget(t *testing.T) {
	dir := t.TempDir()
	var calls [][2]string
	for range 10 {
		calls = append(calls, [2]string{"list_dir", `{}`})
	}
	srv := newFake(t, completion("", calls...))
	r := &autoreview.Reviewer{Model: srv.model(t), Tools: autoreview.ReadOnlyTools(dir), MaxSteps: 3, Attempts: 2, MaxToolCalls: 4}
	res, err := review(t, r)
	if err == nil || res.Status != action.StatusFailed || !res.Denied() {
		t.Fatalf("status %s, err %v: want a failed review", res.Status, err)
	}
	if res.Verdict != nil || !strings.Contains(res.Message, "Auto-review failed") || strings.Contains(res.Message, "denied this action") {
		t.Errorf("the exhausted budget reads as a verdict: %q", res.Message)
	}
	if !strings.Contains(err.Error(), "budget") {
		t.Errorf("error %v does not name the budget", err)
	}
	if res.ToolCalls != 4 || res.Steps != 1 {
		t.Errorf("ran %d tool calls in %d steps, want 4 in 1", res.ToolCalls, res.Steps)
	}
	if n := srv.requests(); n != 1+2 {
		t.Errorf("%d model calls, want the step and then 2 attempts", n)
	}
	req := srv.request(1)
	var ran, refused int
	for _, m := range req.Messages {
		if m.Role != "tool" {
			continue
		}
		switch {
		case strings.HasPrefix(m.Content, autoreview.BeginToolOutput) && strings.Contains(m.Content, "not run: the budget of 4 tool calls"):
			refused++
		case strings.HasPrefix(m.Content, autoreview.BeginToolOutput):
			ran++
		}
	}
	if ran != 4 || refused != 6 {
		t.Errorf("%d calls ran and %d were refused, want 4 and 6", ran, refused)
	}
}

// G4: the budget of a review is configurable in [auto_review]: the managed
// file's value wins over the user's; a value out of range is an error.
func TestG4_ConfiguredBudget(t *testing.T) {
	dir := t.TempDir()
	src := autoreview.PolicySources{
		ManagedPath:    writeFile(t, dir, "managed.toml", "[auto_review]\nmax_tool_calls = 6\n"),
		UserConfigPath: writeFile(t, dir, "config.toml", "[auto_review]\nmax_steps = 2\nmax_tool_calls = 40\n"),
	}
	res, err := autoreview.ResolvePolicy(src)
	if err != nil || res.MaxSteps != 2 || res.MaxToolCalls != 6 {
		t.Errorf("budget: steps %d, tool calls %d, %v; want 2 and 6", res.MaxSteps, res.MaxToolCalls, err)
	}
	if !strings.Contains(res.Describe(), "steps 2, tool calls 6") {
		t.Errorf("the budget is not described:\n%s", res.Describe())
	}
	for _, bad := range []string{"max_steps = 0", "max_tool_calls = -1", "max_tool_calls = 5000", `max_steps = "many"`} {
		writeFile(t, dir, "config.toml", "[auto_review]\n"+bad+"\n")
		if _, err := autoreview.ResolvePolicy(src); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
