package gateway

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/decider"
	"github.com/wardenhq/warden/internal/mcp"
	"github.com/wardenhq/warden/internal/override"
	"github.com/wardenhq/warden/internal/task"
)

// overridable is a boundary reviewer that denies every action but one a
// person overrode (SPEC G12), and records its reviews as auto-review does,
// so that the gate keeps its denials.
type overridable struct{}

// Approve implements approval.Approver.
func (overridable) Approve(ctx context.Context, req *approval.Request) (approval.Approval, error) {
	act, err := action.JSON(req.Tool, req.Call, req.Boundary)
	if err != nil {
		return approval.Approval{}, err
	}
	if override.From(ctx).Applies(act) {
		return approval.Approval{Decision: approval.Approve, Explanation: "a person overrode the denial",
			AutoReview: &event.AutoReview{Action: act, Status: action.StatusApproved, Rationale: "overridden"}}, nil
	}
	return approval.Approval{Decision: approval.Reject, Explanation: "denied by the test reviewer",
		AutoReview: &event.AutoReview{Action: act, Status: action.StatusDenied, Rationale: "denied by the test reviewer"}}, nil
}

func init() {
	approval.Register("test_overridable", func(map[string]any) (approval.Approver, error) { return overridable{}, nil })
}

// G12 in a long warden mcp session: a person's override granted while the
// session is open (`warden auto-review approve`, through the run's
// transcript) lets exactly one retry of the denied call run; the next retry
// is denied again.
func TestG12_MCPOverrideGrantedDuringTheSession(t *testing.T) {
	home := t.TempDir()
	t.Setenv("WARDEN_HOME", home)
	dir := t.TempDir()
	cfg := testConfig(t, "", "")
	cfg.Paths.Runs, cfg.Paths.Key = filepath.Join(home, "runs"), filepath.Join(home, "keys", "override.key")
	cfg.Boundary = func(workdir string, person approval.Approver) (*approval.Policy, error) {
		return decider.New(decider.Config{Reviewers: []string{"test_overridable"}, Workdir: workdir, Person: person})
	}
	p := connectFS(t, &Gateway{Config: cfg, Server: "filesystem", Mode: mcp.Prompt}, dir)
	target := filepath.Join(dir, "deploy.txt")
	args := map[string]any{"path": target, "content": "overridden"}
	written := func() bool { _, err := os.Stat(target); return err == nil }
	if text, isErr := p.call(t, "write_file", args); !isErr || written() {
		t.Fatalf("the first call answered %q (isError %v), written %v: want a denial", text, isErr, written())
	}
	runs, _ := filepath.Glob(filepath.Join(home, "runs", "mcp-*.jsonl"))
	if len(runs) != 1 {
		t.Fatalf("runs %v", runs)
	}
	runID := strings.TrimSuffix(filepath.Base(runs[0]), ".jsonl")
	if err := task.ApproveStored(context.Background(), runs[0], runID+"-d1", "dana", "just this once"); err != nil {
		t.Fatal(err)
	}
	if text, isErr := p.call(t, "write_file", args); isErr || !written() {
		t.Fatalf("the retry after the override answered %q (isError %v), written %v: want it run", text, isErr, written())
	}
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if text, isErr := p.call(t, "write_file", args); !isErr || written() {
		t.Fatalf("a second retry answered %q (isError %v), written %v: the override is for one retry", text, isErr, written())
	}
	p.Close()
	<-p.done
	p.done <- nil
	// The override and the gateway's own events share one chain, numbered
	// one after the other.
	if _, err := task.VerifyTranscript(runs[0]); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range runEvents(t, cfg) {
		if seen[e.ID] {
			t.Errorf("event id %s twice", e.ID)
		}
		seen[e.ID] = true
	}
}
