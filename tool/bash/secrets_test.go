package bash

import (
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/sandbox"
)

// The agent's commands never see warden's own credentials: with the API
// token of `warden serve` in their environment, a sandboxed command with
// the network on could decide its own pending requests through the API
// (SPEC S2, G15). The token stays out of the environment the commands
// start with, whatever they do to look for it. (A command run with no
// sandbox at all has the person's rights: it can read warden's files, the
// token file among them; docs/control-plane.md says so.)
func TestG15_CommandsCannotReadTheServerToken(t *testing.T) {
	const token = "tok-3f9d2a-never-for-agents"
	t.Setenv("WARDEN_TOKEN", token)
	t.Setenv("WARDEN_DB", "postgres://warden:"+token+"@db.internal/warden")
	t.Setenv("WARDEN_SERVER", "http://127.0.0.1:7878")
	dir := t.TempDir()
	probes := []string{
		`echo "$WARDEN_TOKEN"`,
		`env`,
		`cat /proc/self/environ | tr '\0' '\n'`,
		`cat /proc/$PPID/environ | tr '\0' '\n'`,
		`sh -c 'printenv WARDEN_TOKEN'`,
	}
	cases := []struct {
		name string
		p    *sandbox.Policy
	}{{"unsandboxed", nil}}
	if sandbox.Namespaces() == nil {
		cases = append(cases, struct {
			name string
			p    *sandbox.Policy
		}{"workspace-write with network", &sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: dir, NetworkAccess: true}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tl := newShell(Options{Dir: dir, Timeout: time.Minute, Sandbox: c.p})
			for _, probe := range probes {
				out, _ := call(t, t.Context(), tl, probe)
				if strings.Contains(out, token) {
					t.Errorf("%s: the command read warden's API token:\n%s", probe, out)
				}
			}
			// The rest of the environment still reaches commands.
			if out, err := call(t, t.Context(), tl, `echo "$WARDEN_SERVER"`); err != nil || !strings.Contains(out, "127.0.0.1:7878") {
				t.Errorf("the environment was lost: %q, %v", out, err)
			}
		})
	}
}
