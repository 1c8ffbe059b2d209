package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/eval"
)

// effectsCorpus is the executable corpus of requests whose effects are
// hidden from their text (SPEC G17; its README is the schema).
const effectsCorpus = "../../internal/eval/testdata/effects"

// corpus reads the effects corpus and makes the directory its cases'
// worlds are made in (corpusBase).
func corpus(t testing.TB) ([]eval.Case, string) {
	t.Helper()
	cases, err := eval.ReadCorpus(effectsCorpus)
	if err != nil {
		t.Fatal(err)
	}
	return cases, corpusBase(t)
}

// corpusBase is where the cases' worlds are made: not under /tmp, which
// every sandboxed command sees as a private directory of its own, so that
// a case's home directory is where a person's is, on the real disk. $WARDEN_EFFECTS_ROOT
// overrides it.
func corpusBase(t testing.TB) string {
	t.Helper()
	base := os.Getenv("WARDEN_EFFECTS_ROOT")
	if base == "" {
		base = "/var/tmp"
	}
	dir, err := os.MkdirTemp(base, "warden-effects-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// corpusRun is one run of warden on a case: its exit status, stdout,
// stderr and wall time.
type corpusRun struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// runInWorld runs the built warden with args in w's workspace, with w's
// environment only (so nothing of the test's own, a GOCACHE or a version
// manager's shims, changes what the case does) and warden's state in
// state, outside the home directory that is checked.
func runInWorld(t testing.TB, w eval.World, state string, args ...string) corpusRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Dir = w.Work
	cmd.Env = append(w.Env(), "WARDEN_HOME="+state, "WARDEN_MANAGED_CONFIG="+filepath.Join(state, "none.toml"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	return corpusRun{code: exitCode(err), stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
}

// dryRunArgs returns the arguments of `warden exec --dry-run --json` for c.
func dryRunArgs(c *eval.Case) []string {
	args := []string{"exec", "--dry-run", "--json"}
	if c.Timeout != "" {
		args = append(args, "--dry-run-timeout", c.Timeout)
	}
	return append(append(args, "--"), c.Command...)
}

var (
	dryRunProbe     sync.Once
	dryRunMissing   string
	dryRunProbeFail string
)

// needDryRun skips the test when this build of warden has no dry run —
// the flag unknown, or the kernel lacking what it needs (exit 125 with
// the reason) — and fails it when the probe fails any other way. It never
// stands in for a dry run's result.
func needDryRun(t testing.TB) {
	t.Helper()
	dryRunProbe.Do(func() {
		dir := corpusBase(t)
		w := eval.World{Home: dir, Work: dir, Path: eval.CorpusPath}
		r := runInWorld(t, w, filepath.Join(dir, ".state"), "exec", "--dry-run", "--json", "--", "true")
		switch {
		case r.code == exitUsage && strings.Contains(r.stderr, "flag provided but not defined: -dry-run"):
			dryRunMissing = "this build of warden has no `warden exec --dry-run` yet (the runner of SPEC G17 is not in this tree)"
		case r.code == exitSandbox:
			dryRunMissing = "warden exec --dry-run is not supported here: " + strings.TrimSpace(r.stderr)
		case r.code != exitOK:
			dryRunProbeFail = "warden exec --dry-run --json -- true: exit " + strconv.Itoa(r.code) + "\nstderr:\n" + r.stderr
		}
	})
	if dryRunMissing != "" {
		t.Skip(dryRunMissing)
	}
	if dryRunProbeFail != "" {
		t.Fatal(dryRunProbeFail)
	}
}

// TestG17_CorpusDryRunShowsHiddenEffectsAndChangesNothing runs every case
// of the effects corpus through the real `warden exec --dry-run --json`:
// the JSON must name each effect the case expects (files written, created,
// deleted, renamed or chmodded, credential stores read, programs run,
// names looked up, destinations tried, a budget outlived), and nothing on
// disk may change — the home directory with the workspace in it, and the
// case's paths outside it, compared path by path (content, mode, owner,
// mtime) before and after. This is the shape of the acceptance suite.
func TestG17_CorpusDryRunShowsHiddenEffectsAndChangesNothing(t *testing.T) {
	needDryRun(t)
	cases, base := corpus(t)
	unrecorded := unrecordedKinds(t, base)
	for kind, probe := range unrecorded {
		t.Logf("NOT CHECKED: %s effects — this build's dry run recorded none for %s", kind, probe)
	}
	for i := range cases {
		c := &cases[i]
		t.Run(c.ID, func(t *testing.T) {
			t.Parallel()
			if miss := c.MissingPrograms(eval.CorpusPath); len(miss) > 0 {
				t.Skipf("needs %s, not on %s", strings.Join(miss, ", "), eval.CorpusPath)
			}
			root := filepath.Join(base, c.ID)
			w, err := c.Build(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			watched := append([]string{w.Home}, c.Unchanged...)
			before, err := eval.TakeSnapshot(watched...)
			if err != nil {
				t.Fatal(err)
			}
			r := runInWorld(t, w, filepath.Join(root, "state"), dryRunArgs(c)...)
			after, err := eval.TakeSnapshot(watched...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := before.Diff(after); len(diff) > 0 {
				t.Errorf("the dry run of %q changed the disk:\n%s", strings.Join(c.Command, " "), strings.Join(diff, "\n"))
			}
			var rep effect.Report
			dec := json.NewDecoder(strings.NewReader(r.stdout))
			if err := dec.Decode(&rep); err != nil {
				t.Fatalf("exit %d: stdout is not the JSON report: %v\nstdout:\n%s\nstderr:\n%s", r.code, err, r.stdout, r.stderr)
			}
			var miss []string
			for _, e := range c.Unnamed(&rep, w) {
				if kind := effectKind(e); unrecorded[kind] != "" {
					t.Logf("not checked (this build records no %s effects): %s", kind, e)
					continue
				}
				miss = append(miss, e)
			}
			if len(miss) > 0 {
				t.Errorf("the dry run of %q (%s) does not show:\n  %s\nreport:\n%s\nstderr:\n%s", strings.Join(c.Command, " "),
					c.Description, strings.Join(miss, "\n  "), indentJSON(r.stdout), r.stderr)
			}
		})
	}
}

// effectKind is the kind of effect an expectation is about: "exec",
// "network", "reads", or "files" for the rest.
func effectKind(expect string) string {
	switch verb, _, _ := strings.Cut(expect, " "); verb {
	case "exec":
		return "exec"
	case "lookup", "connect", "sendto":
		return "network"
	case "reads":
		return "reads"
	}
	return "files"
}

// unrecordedKinds finds the kinds of effect this build's dry run does not
// record at all, by one probe that has one of each — a program started,
// a credential store read, a name looked up, a connect — and returns each
// missing kind with what showed it missing. Files are never in it: they
// are always checked. The kinds returned are left unchecked, loudly: a
// build that records a kind for the probe must record it for every case.
func unrecordedKinds(t *testing.T, base string) map[string]string {
	t.Helper()
	probe := &eval.Case{ID: "_probe", Dir: filepath.Join(effectsCorpus, "_probe")}
	w, err := probe.Build(context.Background(), filepath.Join(base, "_probe"))
	if err != nil {
		t.Fatal(err)
	}
	script := `cat "$HOME/.aws/credentials" >/dev/null; getent hosts probe.exfil.example; ` +
		`python3 -c 'import socket; s = socket.socket(); s.settimeout(1); s.connect_ex(("203.0.113.9", 443))'; true`
	r := runInWorld(t, w, filepath.Join(base, "_probe", "state"), "exec", "--dry-run", "--json", "--", "sh", "-c", script)
	var rep effect.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("probe: exit %d: %v\nstdout:\n%s\nstderr:\n%s", r.code, err, r.stdout, r.stderr)
	}
	out := map[string]string{}
	if len(rep.Execs) == 0 {
		out["exec"] = "sh -c 'cat …; getent …; python3 …' (no program at all)"
	}
	if len(rep.Network) == 0 {
		out["network"] = "getent hosts probe.exfil.example and a connect to 203.0.113.9:443 (no destination at all)"
	}
	if len(rep.Reads) == 0 {
		out["reads"] = "cat ~/.aws/credentials (no credential store at all)"
	}
	return out
}

func indentJSON(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	return b.String()
}

// BenchmarkG17_CorpusDryRunVsPlainRun measures, side by side in one run,
// what a dry run costs over a plain sandboxed run of the same command, on
// the effects corpus: each case (but those whose dry run outlives its
// budget, which would measure the budget) is run through `warden exec
// --dry-run --json` and through `warden exec` (workspace-write, network
// off) in a fresh copy of its world, alternately. It reports the mean wall
// milliseconds per case of each (dry-ms/case, plain-ms/case) and their
// ratio. go test ./cmd/warden -run '^$' -bench G17_Corpus -benchtime 3x
func BenchmarkG17_CorpusDryRunVsPlainRun(b *testing.B) {
	needDryRun(b)
	cases, base := corpus(b)
	var runnable []*eval.Case
	for i := range cases {
		c := &cases[i]
		if len(c.MissingPrograms(eval.CorpusPath)) == 0 && !slices.Contains(c.Effects, "timed_out") {
			runnable = append(runnable, c)
		}
	}
	world := func(c *eval.Case, n int) (eval.World, string) {
		root := filepath.Join(base, fmt.Sprintf("%s-%d", c.ID, n))
		w, err := c.Build(context.Background(), root)
		if err != nil {
			b.Fatal(err)
		}
		return w, filepath.Join(root, "state")
	}
	var dry, plain time.Duration
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range runnable {
			b.StopTimer()
			w, state := world(c, n)
			n++
			b.StartTimer()
			r := runInWorld(b, w, state, dryRunArgs(c)...)
			if r.code == exitSandbox || r.code == exitUsage || !json.Valid([]byte(r.stdout)) {
				b.Fatalf("%s: dry run: exit %d: %s", c.ID, r.code, r.stderr)
			}
			dry += r.took
			b.StopTimer()
			w, state = world(c, n)
			n++
			b.StartTimer()
			plain += runInWorld(b, w, state, append([]string{"exec", "--"}, c.Command...)...).took
		}
	}
	runs := float64(b.N * len(runnable))
	b.ReportMetric(float64(dry.Microseconds())/1000/runs, "dry-ms/case")
	b.ReportMetric(float64(plain.Microseconds())/1000/runs, "plain-ms/case")
	b.ReportMetric(float64(dry)/float64(plain), "dry/plain")
}

// The corpus test's disk check can fail: the same harness, running a case
// for real (`warden exec`, workspace-write) instead of dry, sees the files
// it deleted in the workspace — and the sandbox keeps the harmful case's
// write to ~/.bashrc out, so the home directory outside the workspace is
// unchanged.
func TestG17_CorpusHarnessSeesARealRun(t *testing.T) {
	cases, base := corpus(t)
	byID := map[string]*eval.Case{}
	for i := range cases {
		byID[cases[i].ID] = &cases[i]
	}
	for _, tc := range []struct {
		id          string
		wantRemoved []string // paths of the workspace removed
	}{
		{"b10-make-clean", []string{"build", "main.o"}},
		{"h04-installer-bashrc", nil},
	} {
		c := byID[tc.id]
		if c == nil {
			t.Fatalf("no case %s", tc.id)
		}
		if miss := c.MissingPrograms(eval.CorpusPath); len(miss) > 0 {
			t.Skipf("needs %v", miss)
		}
		root := filepath.Join(base, c.ID)
		w, err := c.Build(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		before, err := eval.TakeSnapshot(w.Home)
		if err != nil {
			t.Fatal(err)
		}
		r := runInWorld(t, w, filepath.Join(root, "state"), append([]string{"exec", "--"}, c.Command...)...)
		after, err := eval.TakeSnapshot(w.Home)
		if err != nil {
			t.Fatal(err)
		}
		diff := strings.Join(before.Diff(after), "\n")
		for _, p := range tc.wantRemoved {
			if !strings.Contains(diff, "removed "+filepath.Join(w.Work, p)+"\n") && !strings.HasSuffix(diff, "removed "+filepath.Join(w.Work, p)) {
				t.Errorf("%s: the real run's removal of ./%s not seen (exit %d, %s); diff:\n%s", c.ID, p, r.code, r.stderr, diff)
			}
		}
		if strings.Contains(diff, filepath.Join(w.Home, ".bashrc")) {
			t.Errorf("%s: a sandboxed run changed ~/.bashrc:\n%s", c.ID, diff)
		}
	}
}
