package sandbox

import (
	"context"
	"os/exec"
	"testing"
)

// The extra wall time of starting a sandboxed command is
// BenchmarkStartSandboxed minus BenchmarkStartPlain: both start /bin/true
// and wait for it.
func BenchmarkStartPlain(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStartSandboxed(b *testing.B) {
	requireSandbox(b)
	w := repo(b) // a workdir with a .git to protect
	for _, bc := range []struct {
		name string
		p    Policy
	}{
		{"workspace-write", Policy{Mode: WorkspaceWrite, Workdir: w}},
		{"workspace-write+network", Policy{Mode: WorkspaceWrite, Workdir: w, NetworkAccess: true}},
		{"read-only", Policy{Mode: ReadOnly, Workdir: w}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				cmd, err := bc.p.Command(context.Background(), "/bin/true")
				if err != nil {
					b.Fatal(err)
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}
