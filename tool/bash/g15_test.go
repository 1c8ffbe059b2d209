package bash

import (
	"testing"

	"github.com/wardenhq/warden/sandbox"
)

// TestG15_FullAccessRetriesAskAsEscalations checks that every retry the
// sandbox's blocks lead to is asked as an escalation exactly when it would
// run outside the sandbox (full access), so that the first pass, which
// never grants an escalation, cannot grant it; a retry that stays in the
// sandbox (one more writable root, the network) is not escalated.
func TestG15_FullAccessRetriesAskAsEscalations(t *testing.T) {
	work := t.TempDir()
	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: work}
	for _, tt := range []struct {
		name  string
		block sandbox.Block
	}{
		{"write at an unknown path", sandbox.Block{Kind: sandbox.KindWrite}},
		{"write into a protected path", sandbox.Block{Kind: sandbox.KindWrite, Path: work + "/.git/config", Protected: true}},
		{"read that needs privileges", sandbox.Block{Kind: sandbox.KindRead, Path: "/proc/1/maps"}},
		{"privileged operation", sandbox.Block{Kind: sandbox.KindPrivilege}},
		{"write in the workspace", sandbox.Block{Kind: sandbox.KindWrite, Path: work + "/f"}},
		{"network", sandbox.Block{Kind: sandbox.KindNetwork}},
	} {
		wider, req := widen(p, tt.block)
		if full := wider.Mode == sandbox.FullAccess; req.Escalated != full {
			t.Errorf("%s: retry mode %s, request escalated = %v", tt.name, wider.Mode, req.Escalated)
		}
	}
}
