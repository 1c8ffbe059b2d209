//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/observe"
)

// observed is one command run traced: what the observer saw and what the
// command did.
type observed struct {
	fx   observe.Effects
	out  string
	exit int
}

// runObserved runs argv under a workspace-write policy on work with the
// network off, observed, and returns what was seen.
func runObserved(t *testing.T, work string, argv ...string) observed {
	t.Helper()
	requireNamespaces(t)
	o, err := observe.New()
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: WorkspaceWrite, Workdir: work}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd, err := p.Command(ctx, argv[0], argv[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	if err := observeCmd(cmd, o); err != nil {
		t.Fatal(err)
	}
	cmd.Dir = work
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o.Start()
	_ = cmd.Wait()
	fx, err := o.Stop()
	if err != nil {
		t.Fatalf("observer: %v", err)
	}
	return observed{fx: fx, out: out.String(), exit: cmd.ProcessState.ExitCode()}
}

// hasExec reports whether fx recorded a program whose argv is argv.
func hasExec(fx observe.Effects, argv ...string) bool {
	return slices.ContainsFunc(fx.Execs, func(e effect.Exec) bool { return slices.Equal(e.Argv, argv) })
}

func hasDest(fx observe.Effects, want effect.Dest) bool {
	return slices.Contains(fx.Network, want)
}

func TestG17_TraceExecs(t *testing.T) {
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "x"), []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	odd := "odd\x01arg with spaces\ttab\xff"
	r := runObserved(t, work, "/bin/sh", "-c", `ls >/dev/null; cat x | wc -l; /bin/echo "$0"`, odd)
	if r.exit != 0 || !strings.Contains(r.out, "3") {
		t.Fatalf("exit %d, output %q", r.exit, r.out)
	}
	if len(r.fx.Execs) == 0 || r.fx.Execs[0].Path != "/bin/sh" || r.fx.Execs[0].Argv[0] != "/bin/sh" {
		t.Fatalf("the command's own execution is not recorded first: %+v", r.fx.Execs)
	}
	t.Logf("execs: %q", r.fx.Execs)
	for _, argv := range [][]string{{"ls"}, {"cat", "x"}, {"wc", "-l"}, {"/bin/echo", odd}} {
		if !hasExec(r.fx, argv...) {
			t.Errorf("no exec of %q recorded: %+v", argv, r.fx.Execs)
		}
	}
	// In order: ls before cat and wc (which run side by side), echo last.
	pos := func(name string) int {
		return slices.IndexFunc(r.fx.Execs, func(e effect.Exec) bool { return len(e.Argv) > 0 && e.Argv[0] == name })
	}
	if !(pos("ls") < pos("cat") && pos("ls") < pos("wc") && pos("wc") < pos("/bin/echo")) {
		t.Errorf("execs out of order: %+v", r.fx.Execs)
	}
	for _, e := range r.fx.Execs[1:] {
		if !filepath.IsAbs(e.Path) {
			t.Errorf("exec path %q is not absolute", e.Path)
		}
	}
}
