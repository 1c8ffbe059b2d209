package autoreview_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/wardenhome/hometest"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"

	_ "github.com/wardenhq/warden/model/scripted"
)

// auto_review is a registered approver, usable in policy files (SPEC P3):
// the reviewer agent on the model its parameter names.
func TestP3_AutoReviewIsARegisteredApprover(t *testing.T) {
	dir := t.TempDir()
	hometest.Use(t, filepath.Join(dir, "home"))
	script := filepath.Join(dir, "verdicts.yaml")
	if err := os.WriteFile(script, []byte("- content: '{\"outcome\": \"deny\", \"risk_level\": \"high\", \"rationale\": \"no\"}'\n- content: '{\"outcome\": \"allow\", \"risk_level\": \"low\"}'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !approval.Registered("auto_review") {
		t.Fatal("auto_review is not registered")
	}
	p, err := approval.Compile([]policy.Entry{{Name: "auto_review", Tools: []string{"bash"}, Params: map[string]any{"model": "scripted:" + script, "timeout": "5s", "attempts": 1}}})
	if err != nil {
		t.Fatal(err)
	}
	req := &approval.Request{Call: tool.NewCall("c1", "bash", `{"cmd":"rm -rf build"}`)}
	for _, want := range []approval.Decision{approval.Reject, approval.Approve} {
		out, err := p.Decide(context.Background(), req, nil)
		if err != nil || out.Decision != want || out.Approver != "auto_review" {
			t.Fatalf("decision %s by %s, %v; want %s", out.Decision, out.Approver, err, want)
		}
	}
	for _, bad := range []struct {
		params map[string]any
		want   string
	}{
		{nil, "parameter model is required"},
		{map[string]any{"model": 3}, "parameter model"},
		{map[string]any{"model": "scripted:" + script, "colour": "red"}, `unknown parameter "colour"`},
		{map[string]any{"model": "scripted:" + script, "timeout": "soon"}, "parameter timeout"},
	} {
		if _, err := approval.Build("auto_review", bad.params); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v: error %v, want %q", bad.params, err, bad.want)
		}
	}
}
