package judge_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/vocab"

	// The judges register with package judge.
	_ "github.com/wardenhq/warden/internal/triage"
)

// TestG15_RememberedLookupsFollowTheAgent checks the attack on the
// remembered workspace lookups (lookups.go): the agent makes the
// directory a command runs in — absent when first judged — a link to /etc,
// then writes "in the workspace". The write must be judged where the
// kernel takes it, whether the agent could make the link from the sandbox
// (the workspace lies in a temporary directory) or only from outside it
// (an escalated command judged in between).
func TestG15_RememberedLookupsFollowTheAgent(t *testing.T) {
	write := func(k *judge.Knowledge, cwd string) judge.Verdict {
		return k.Judge(action.Action{Kind: action.Shell, Command: []string{"bash", "-lc", "echo x > hosts"}, Cwd: cwd}, nil)
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sys, err := os.MkdirTemp("/var/lib", "warden-lookups-")
	if err != nil {
		t.Skip("no writable /var/lib:", err)
	}
	t.Cleanup(func() { os.RemoveAll(sys) })
	for _, tt := range []struct {
		name      string
		cwd       string
		escalated bool // an escalated command is judged before the link is made
	}{
		{"workspace in a temporary directory", tmp + "/proj", false},
		{"workspace the sandbox cannot change", sys + "/proj", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := judge.DefaultKnowledge().WithWritableRoots(nil)
			if v := write(k, tt.cwd); v.Decision != vocab.Allow {
				t.Fatalf("a write in the absent workspace = %s: %s", v.Decision, v.Reason)
			}
			if tt.escalated {
				k.Judge(action.Action{Kind: action.Shell, Command: []string{"bash", "-lc", "true"}, Cwd: tt.cwd,
					SandboxPermissions: action.RequireEscalated}, nil)
			}
			if err := os.Symlink("/etc", tt.cwd); err != nil {
				t.Fatal(err)
			}
			if v := write(k, tt.cwd); v.Decision == vocab.Allow {
				t.Errorf("echo x > hosts, in a workspace that is now a link to /etc = allow: %s", v.Reason)
			}
		})
	}
}

// TestG15_LookupsRememberedOnlyWhereTheAgentCannotChangeThem checks which
// directories' lookups are remembered.
func TestG15_LookupsRememberedOnlyWhereTheAgentCannotChangeThem(t *testing.T) {
	for _, tt := range []struct {
		p     string
		roots []string
		can   bool
	}{
		{"/home/dev/project", nil, false},
		{"/etc/warden", nil, false},
		{"/tmp", nil, false},
		{"/tmp/w", nil, true},
		{"/var/tmp/a/b", nil, true},
		{"/dev/shm/w", nil, true},
		{"/srv/data/w", []string{"/srv/data"}, true},
		{"/srv/data", []string{"/srv/data"}, false},
		{"/srv/data/w", []string{"rel"}, true},
		{"relative/w", nil, true},
		{"/home/dev/../x", nil, true},
	} {
		if got := judge.AgentCanChange(tt.p, tt.roots); got != tt.can {
			t.Errorf("agentCanChange(%q, %q) = %v, want %v", tt.p, tt.roots, got, tt.can)
		}
	}
}

// TestG15_RememberedStateFollowsItsLink checks the attack on the
// remembered state directories: $WARDEN_HOME is a link in a temporary
// directory, which the agent turns to another directory between two
// judgements. A write to where it now leads is a write to warden's state,
// never routine.
func TestG15_RememberedStateFollowsItsLink(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"real1", "real2", "work"} {
		if err := os.Mkdir(filepath.Join(d, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(d, "home")
	if err := os.Symlink(filepath.Join(d, "real1"), home); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WARDEN_HOME", home)
	k := judge.DefaultKnowledge().WithWritableRoots(nil)
	write := func(target string) judge.Verdict {
		return k.Judge(action.Action{Kind: action.Shell, Command: []string{"bash", "-lc", "echo x > " + target + "/policy.toml"},
			Cwd: filepath.Join(d, "work")}, nil)
	}
	if v := write(filepath.Join(d, "real1")); v.Decision == vocab.Allow {
		t.Fatalf("a write to where $WARDEN_HOME leads = allow: %s", v.Reason)
	}
	if err := os.Remove(home); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(d, "real2"), home); err != nil {
		t.Fatal(err)
	}
	if v := write(filepath.Join(d, "real2")); v.Decision == vocab.Allow {
		t.Errorf("a write to where $WARDEN_HOME leads now = allow: %s", v.Reason)
	}
}

// TestG15_UnconfinedActionsLookAfresh checks the attack on the remembered
// lookups that no judged action reveals: the directory a command runs in
// is absent when first judged (a place the sandbox cannot change), then
// something outside the sandbox and unseen by the first pass (an MCP
// server, a person) makes it a link to /etc. A write the sandbox blocked
// there, which approving would let through, and an MCP call's write are
// judged where the kernel takes them.
func TestG15_UnconfinedActionsLookAfresh(t *testing.T) {
	sys, err := os.MkdirTemp("/var/lib", "warden-lookups-")
	if err != nil {
		t.Skip("no writable /var/lib:", err)
	}
	t.Cleanup(func() { os.RemoveAll(sys) })
	cwd := sys + "/proj"
	k := judge.DefaultKnowledge().WithWritableRoots(nil)
	if v := k.Judge(action.Action{Kind: action.Shell, Command: []string{"bash", "-lc", "echo x > hosts"}, Cwd: cwd}, nil); v.Decision != vocab.Allow {
		t.Fatalf("a write in the absent workspace = %s: %s", v.Decision, v.Reason)
	}
	if err := os.Symlink("/etc", cwd); err != nil {
		t.Fatal(err)
	}
	for _, a := range []action.Action{
		{Kind: action.Shell, Command: []string{"bash", "-lc", "echo x > hosts"}, Cwd: cwd, Paths: []string{"hosts"}},
		{Kind: action.Shell, Command: []string{"bash", "-lc", "echo x > hosts"}, Cwd: cwd, Paths: []string{cwd + "/hosts"}},
	} {
		if v := k.Judge(a, nil); v.Decision == vocab.Allow {
			t.Errorf("blocked write %v in a workspace that is now a link to /etc = allow: %s", a.Paths, v.Reason)
		}
	}
}
