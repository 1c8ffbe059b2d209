package triage_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/triage"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
	"github.com/wardenhq/warden/tool/bash"
)

// bashRequest is an approval request for a boundary crossing of the bash
// tool running cmd.
func bashRequest(cmd string) *approval.Request {
	call := tool.NewCall("c1", "bash", `{"cmd":`+quote(cmd)+`}`)
	return &approval.Request{
		Call:     call,
		Tool:     bash.New(bash.Options{}),
		Boundary: &boundary.Request{Permission: boundary.Exec, Command: cmd, Reason: "the exec rules ask"},
		History: []chat.Message{
			{Role: chat.System, Content: "You are a coding agent."},
			{Role: chat.User, Content: "Please tidy the repository."},
			{Role: chat.Assistant, Content: "On it.", ToolCalls: []tool.Call{call}},
		},
	}
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func TestG14_ApproverDecidesClearCases(t *testing.T) {
	a := triage.Approver(nil, nil)
	ctx := context.Background()

	got, err := a.Approve(ctx, bashRequest("git status && go test ./..."))
	if err != nil || got.Decision != approval.Approve {
		t.Fatalf("routine: %+v, %v", got, err)
	}
	if v, ok := got.Metadata[triage.MetadataKey].(triage.Verdict); !ok || v.Decision != vocab.Allow {
		t.Errorf("metadata: %#v", got.Metadata)
	}
	// The transcript's record travels typed (SPEC G13).
	if ar := got.AutoReview; ar == nil || ar.Status != action.StatusApproved || ar.Source != event.SourceFirstPass || !strings.Contains(string(ar.Action), "go test") {
		t.Errorf("record: %+v", got.AutoReview)
	}

	got, err = a.Approve(ctx, bashRequest("cat ~/.ssh/id_rsa"))
	if err != nil || got.Decision != approval.Reject {
		t.Fatalf("critical: %+v, %v", got, err)
	}
	if !strings.Contains(got.Explanation, "SSH private key") || !strings.Contains(got.Explanation, vocab.DenialInstruction) {
		t.Errorf("denial explanation: %q", got.Explanation)
	}
	if ar := got.AutoReview; ar == nil || ar.Status != action.StatusDenied || ar.Source != event.SourceFirstPass || ar.Rationale == "" {
		t.Errorf("record: %+v", got.AutoReview)
	}
}

func TestG14_ApproverWithoutReviewerRejectsUnclear(t *testing.T) {
	got, err := triage.Approver(nil, nil).Approve(context.Background(), bashRequest("git push --force origin main"))
	if err != nil || got.Decision != approval.Reject {
		t.Fatalf("%+v, %v", got, err)
	}
	if !strings.HasPrefix(got.Explanation, triage.NoReviewerMessage) || !strings.Contains(got.Explanation, "force push") {
		t.Errorf("explanation: %q", got.Explanation)
	}
}

func TestG14_ApproverPassesUnclearToNext(t *testing.T) {
	var asked []string
	next := approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
		asked = append(asked, req.Boundary.Command)
		return approval.Approval{Decision: approval.Approve, Explanation: "the reviewer agrees", Metadata: map[string]any{"model": "yes"}}, nil
	})
	a := triage.Approver(nil, next)
	ctx := context.Background()
	for _, cmd := range []string{"ls", "rm -rf ~"} {
		if _, err := a.Approve(ctx, bashRequest(cmd)); err != nil {
			t.Fatal(err)
		}
	}
	if len(asked) != 0 {
		t.Fatalf("clear cases reached the next reviewer: %q", asked)
	}
	got, err := a.Approve(ctx, bashRequest("git push --force origin main"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Decision != approval.Approve || got.Explanation != "the reviewer agrees" || len(asked) != 1 {
		t.Fatalf("%+v, asked %q", got, asked)
	}
	if got.Metadata["model"] != "yes" || got.Metadata[triage.MetadataKey].(triage.Verdict).Decision != vocab.Escalate {
		t.Errorf("metadata: %#v", got.Metadata)
	}
	if got.AutoReview != nil {
		t.Errorf("an escalation left a record of its own: %+v", got.AutoReview)
	}

	boom := errors.New("model down")
	failing := triage.Approver(nil, approval.Func(func(context.Context, *approval.Request) (approval.Approval, error) {
		return approval.Approval{}, boom
	}))
	if _, err := failing.Approve(ctx, bashRequest("git push --force origin main")); !errors.Is(err, boom) {
		t.Errorf("error of next: %v", err)
	}
}

func TestG14_ApproverJudgesCallsWithoutBoundary(t *testing.T) {
	a := triage.Approver(nil, nil)
	req := &approval.Request{Call: tool.NewCall("c1", "read_file", `{"path":"/home/dev/.ssh/id_ed25519"}`)}
	if got, _ := a.Approve(context.Background(), req); got.Decision != approval.Reject {
		t.Errorf("key read: %+v", got)
	}
	req = &approval.Request{Call: tool.NewCall("c2", "bash", `{"cmd":"ls -la"}`), Tool: bash.New(bash.Options{})}
	if got, _ := a.Approve(context.Background(), req); got.Decision != approval.Approve {
		t.Errorf("bash ls: %+v", got)
	}
}

func TestG14_RegisteredRulesApprover(t *testing.T) {
	if !approval.Registered("rules") {
		t.Fatal(`"rules" is not registered`)
	}
	if _, err := approval.Build("rules", map[string]any{"decision": "approve"}); err == nil || !strings.Contains(err.Error(), `unknown parameter "decision"`) {
		t.Errorf("unknown parameter: %v", err)
	}
	if _, err := approval.Build("rules", map[string]any{"rules": []any{"/nonexistent/team.rules"}}); err == nil {
		t.Error("a missing rules file loaded")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(file, []byte("rules:\n  - pattern: [git, push]\n    decision: forbidden\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// In a policy, unclear actions escalate to the next approver.
	p, err := approval.Compile([]policy.Entry{
		{Name: "rules", Tools: []string{"*"}, Params: map[string]any{"rules": []any{file}}},
		{Name: "auto", Tools: []string{"*"}, Params: map[string]any{"decision": "approve", "explanation": "a person said yes"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd      string
		decision approval.Decision
		by       string
	}{
		{"go test ./...", approval.Approve, "rules"},
		{"cat ~/.aws/credentials", approval.Reject, "rules"},
		{"git push origin feature/x", approval.Reject, "rules"},
		{"git reset --hard origin/main", approval.Approve, "auto"},
	} {
		var records []approval.Record
		out, err := p.Decide(context.Background(), bashRequest(tc.cmd), func(r approval.Record) { records = append(records, r) })
		if err != nil {
			t.Fatal(err)
		}
		if out.Decision != tc.decision || out.Approver != tc.by {
			t.Errorf("%q: %s by %s (%s), want %s by %s", tc.cmd, out.Decision, out.Approver, out.Explanation, tc.decision, tc.by)
		}
		if tc.by == "auto" && (len(records) != 2 || records[0].Approval.Decision != approval.Escalate) {
			t.Errorf("%q: records %+v", tc.cmd, records)
		}
	}
}
