package sandbox

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The extra wall time of starting a sandboxed command is
// BenchmarkStartSandboxed minus BenchmarkStartPlain: both start /bin/true,
// with no output to collect, and wait for it.
func BenchmarkStartPlain(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// rerun runs /bin/true in p again, collecting its output, for the message
// of a failed run.
func rerun(p Policy) string {
	cmd, err := p.Command(context.Background(), "/bin/true")
	if err != nil {
		return err.Error()
	}
	out, _ := cmd.CombinedOutput()
	return string(out)
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
				if err := cmd.Run(); err != nil {
					b.Fatalf("%v: %s", err, rerun(bc.p))
				}
			}
		})
	}
}

// BenchmarkCommandLargeWorkspace measures Policy.Command alone (no start)
// in a workspace of 1,000 directories and 10,000 files, the size of a small
// project with its dependencies: every sandboxed command looks there for
// nested protected names (.git, .warden, .agents), so this is paid per
// command.
func BenchmarkCommandLargeWorkspace(b *testing.B) {
	requireSandbox(b)
	w := repo(b)
	for i := range 10 {
		for j := range 10 {
			for k := range 10 {
				d := mkdir(b, w, "pkg"+strconv.Itoa(i), "mod"+strconv.Itoa(j), "dir"+strconv.Itoa(k))
				for f := range 10 {
					writeFile(b, filepath.Join(d, "file"+strconv.Itoa(f)+".js"), "x\n")
				}
			}
		}
	}
	writeFile(b, filepath.Join(w, "pkg3", "mod4", ".git"), "gitdir: "+filepath.Join(w, ".git")+"\n")
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	for b.Loop() {
		if _, err := p.Command(context.Background(), "/bin/true"); err != nil {
			b.Fatal(err)
		}
	}
}
