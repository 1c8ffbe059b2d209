//go:build linux

package dryrun

import (
	"context"
	"testing"

	"github.com/wardenhq/warden/sandbox"
)

// BenchmarkG17_DryRunOverSandboxed compares a dry run with a plain
// sandboxed run (workspace-write) of the same command, side by side:
// /bin/true, and a script that writes 10 files in the workspace.
func BenchmarkG17_DryRunOverSandboxed(b *testing.B) {
	if err := Supported(); err != nil {
		b.Skip(err)
	}
	const write10 = `for i in 0 1 2 3 4 5 6 7 8 9; do echo "$i" > "f$i"; done`
	for _, c := range []struct{ name, prog, script string }{
		{"true", "/bin/true", ""},
		{"write10", "/bin/sh", write10},
	} {
		argv := []string{c.prog}
		if c.script != "" {
			argv = append(argv, "-c", c.script)
		}
		b.Run(c.name+"/sandboxed", func(b *testing.B) {
			dir := b.TempDir()
			p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: dir}
			for i := 0; i < b.N; i++ {
				cmd, err := p.Command(context.Background(), argv[0], argv[1:]...)
				if err != nil {
					b.Fatal(err)
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
		b.Run(c.name+"/dryrun", func(b *testing.B) {
			dir := b.TempDir()
			for i := 0; i < b.N; i++ {
				rep, err := Run(context.Background(), Request{Argv: argv, Dir: dir})
				if err != nil || rep.Exit != 0 {
					b.Fatalf("%v: %+v", err, rep)
				}
				if c.script != "" && len(rep.Creates) != 10 {
					b.Fatalf("creates %v", rep.Creates)
				}
			}
		})
	}
}
