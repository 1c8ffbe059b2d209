package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/hookcmd"
	"github.com/wardenhq/warden/internal/policyfile"
	"github.com/wardenhq/warden/internal/store"
)

// envBenchBase names a second warden binary BenchmarkX1_HookProcess runs
// beside this build, in turn, each in its own $WARDEN_HOME: the build to
// compare with (the same figures, prefixed "base-").
const envBenchBase = "WARDEN_BENCH_BASE"

// hookBenchPolicy is the compiled approval policy the benchmark's hooks
// decide by.
const hookBenchPolicy = "approvers:\n  - name: auto\n    decision: approve\n    tool: Bash\n    args:\n      command: {commands: [ls, \"git status\"]}\n  - name: auto\n    decision: reject\n"

// hookBenchInput is the hook event the benchmark's hooks decide: Codex's
// PreToolUse of `git status` in session SESSION.
const hookBenchInput = `{"session_id":"SESSION","turn_id":"u1","cwd":"/w","model":"m","permission_mode":"default","transcript_path":null,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"},"tool_use_id":"call_1"}`

// benchArm is one binary under the benchmark: its $WARDEN_HOME and what
// its runs measured.
type benchArm struct {
	prefix string // of its metrics
	bin    string
	hook   []string // the arguments before HOST: "hook" for warden, none for warden-hook
	home   string
	policy string
	times  []time.Duration
	cpu    []time.Duration
}

// BenchmarkX1_HookProcess measures what a host waits for on every tool
// call: process start to answer of the real binary, for a decision by a
// compiled approval policy with the session's state in warden's
// transcript and the store (issue 22's speed target: p50 ≤ 5 ms, p99 ≤
// 15 ms). In one run: a hook in a fresh session (a new session id each
// time), a hook in a session that already holds 1,000 calls (written in
// this process, then 100 hook processes more), `warden version` (start-up
// alone) and a Go hello-world (the floor: what starting any Go process
// costs here). It reports the percentiles of wall time, the median CPU
// time (user and system: what the machine's load does not inflate) and
// the binary's size. Beside warden it runs warden-hook (cmd/warden-hook,
// the same hook without the model SDKs), built from this tree: the same
// figures prefixed "fast-".
//
// $WARDEN_BENCH_BASE=BIN runs BIN beside this build, in turn (this, BIN,
// this, …), each with its own $WARDEN_HOME: the same figures prefixed
// "base-". BIN is a warden, or a warden-hook when it is so named; its
// phases are reported too (base-hook-phases). The sub-benchmarks hook-phases and fast-hook-phases run this
// build's warden and warden-hook alone with $WARDEN_HOOK_TRACE and report
// where a hook's time goes: start (exec, the runtime's and the packages'
// initialisation, until the command begins), input (flags, hooks.yaml,
// the policy compiled, stdin read), config (the control plane connected),
// decision (the session's state, the policy, the transcript), store (the
// run marked in the default store's spool; a base that commits to SQLite
// reports its open, beside the decision, too), exit (the answer
// written, the process reaped), as medians of wall and CPU time, and the
// hook's peak resident memory as the process itself reads it (the rusage
// of a child started with vfork counts this test's memory too).
//
//	go test ./cmd/warden -run '^$' -bench X1_HookProcess -benchtime 100x
//	WARDEN_BENCH_BASE=/tmp/warden-old go test ./cmd/warden -run '^$' -bench X1_HookProcess -benchtime 100x
//	WARDEN_BENCH_BASE=/tmp/old/warden-hook go test ./cmd/warden -run '^$' -bench X1_HookProcess -benchtime 100x
func BenchmarkX1_HookProcess(b *testing.B) {
	arms := []*benchArm{{bin: binary(b), hook: []string{"hook"}}, {prefix: "fast-", bin: fastBinary(b)}}
	if base := os.Getenv(envBenchBase); base != "" {
		arm := &benchArm{prefix: "base-", bin: base, hook: []string{"hook"}}
		if filepath.Base(base) == "warden-hook" {
			arm.hook = nil // a warden-hook takes HOST first
		}
		arms = append(arms, arm)
	}
	for _, a := range arms {
		a.home = b.TempDir()
		a.policy = filepath.Join(a.home, "approval.yaml")
		if err := os.WriteFile(a.policy, []byte(hookBenchPolicy), 0o600); err != nil {
			b.Fatal(err)
		}
		prefillSession(b, a, "bench-long", 1000)
	}
	hello := helloWorld(b)
	input := func(session string) []byte {
		return bytes.Replace([]byte(hookBenchInput), []byte("SESSION"), []byte(session), 1)
	}
	// The long session's hooks are real processes from here on: 100 more
	// before it is measured.
	for _, a := range arms {
		for i := 0; i < 100; i++ {
			if _, err := a.spawn(input("bench-long"), nil, a.args("codex", "--approval", a.policy)...); err != nil {
				b.Fatal(err)
			}
		}
	}
	fresh := 0
	b.Run("hook-fresh-session", func(b *testing.B) {
		runArms(b, arms, func(a *benchArm) ([]byte, []string) {
			fresh++
			return input(fmt.Sprintf("fresh-%d", fresh)), a.args("codex", "--approval", a.policy)
		})
	})
	b.Run("hook-after-1000-calls", func(b *testing.B) {
		runArms(b, arms, func(a *benchArm) ([]byte, []string) {
			return input("bench-long"), a.args("codex", "--approval", a.policy)
		})
	})
	b.Run("version", func(b *testing.B) {
		var wardens []*benchArm // warden-hook has no version
		for _, a := range arms {
			if a.hook != nil {
				wardens = append(wardens, a)
			}
		}
		runArms(b, wardens, func(a *benchArm) ([]byte, []string) { return nil, []string{"version"} })
	})
	b.Run("hello-world", func(b *testing.B) {
		floor := []*benchArm{{bin: hello, home: arms[0].home}}
		runArms(b, floor, func(a *benchArm) ([]byte, []string) { return nil, nil })
	})
	b.Run("hook-phases", func(b *testing.B) { hookPhases(b, arms[0], input("bench-long")) })
	b.Run("fast-hook-phases", func(b *testing.B) { hookPhases(b, arms[1], input("bench-long")) })
	if len(arms) > 2 {
		b.Run("base-hook-phases", func(b *testing.B) { hookPhases(b, arms[2], input("bench-long")) })
	}
}

// args returns the arm's arguments for a hook of host with flags.
func (a *benchArm) args(host string, flags ...string) []string {
	return append(append(append([]string(nil), a.hook...), host), flags...)
}

var (
	fastOnce sync.Once
	fastDir  string
	fastErr  error
)

// fastBinary returns warden-hook (cmd/warden-hook) built from this tree
// as README installs it (-ldflags='-s -w'), in a directory of its own beside a link to the warden binary() returns,
// which it hands hooks that need a model to and runs sandboxed calls under.
func fastBinary(t testing.TB) string {
	t.Helper()
	full := binary(t)
	fastOnce.Do(func() {
		if fastDir, fastErr = os.MkdirTemp("", "warden-hook-bin-"); fastErr != nil {
			return
		}
		if fastErr = os.Symlink(full, filepath.Join(fastDir, "warden")); fastErr != nil {
			return
		}
		if out, err := exec.Command("go", "build", "-ldflags=-s -w", "-o", filepath.Join(fastDir, "warden-hook"), "../warden-hook").CombinedOutput(); err != nil {
			fastErr = fmt.Errorf("building warden-hook: %v\n%s", err, out)
		}
	})
	if fastErr != nil {
		t.Fatal(fastErr)
	}
	return filepath.Join(fastDir, "warden-hook")
}

// spawn runs the arm's binary with args and stdin in its home, adding
// environment env, and returns its stdout; its wall and CPU time and peak
// memory are added to the arm's.
func (a *benchArm) spawn(stdin []byte, env []string, args ...string) ([]byte, error) {
	cmd := exec.Command(a.bin, args...)
	cmd.Env = append(append(os.Environ(), "WARDEN_HOME="+a.home, "WARDEN_DB=", "WARDEN_SERVER="), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %v: %w %s", a.bin, args, err, out.Bytes())
	}
	a.times = append(a.times, time.Since(start))
	a.cpu = append(a.cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	return out.Bytes(), nil
}

// runArms runs each arm b.N times, in turn, with the input and arguments
// run gives, and reports each arm's figures.
func runArms(b *testing.B, arms []*benchArm, run func(*benchArm) ([]byte, []string)) {
	for _, a := range arms {
		a.times, a.cpu = nil, nil
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, a := range arms {
			stdin, args := run(a)
			out, err := a.spawn(stdin, nil, args...)
			if err != nil {
				b.Fatal(err)
			}
			if stdin != nil && len(out) != 0 {
				b.Fatalf("%s: the hook answered %q, want an approval (no output)", a.bin, out)
			}
		}
	}
	b.StopTimer()
	for _, a := range arms {
		b.ReportMetric(percentile(a.times, 0.5), a.prefix+"p50-ms")
		b.ReportMetric(percentile(a.times, 0.99), a.prefix+"p99-ms")
		b.ReportMetric(percentile(a.cpu, 0.5), a.prefix+"cpu-p50-ms")
		if fi, err := os.Stat(a.bin); err == nil {
			b.ReportMetric(float64(fi.Size())/(1<<20), a.prefix+"binary-MiB")
		}
	}
}

// percentile returns the p-th percentile of d in milliseconds.
func percentile(d []time.Duration, p float64) float64 {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return float64(d[min(len(d)-1, int(float64(len(d))*p))].Microseconds()) / 1000
}

// prefillSession writes n calls into session of the arm's home, as the
// hook decides them (its transcript, state and store), in this process.
func prefillSession(b *testing.B, a *benchArm, session string, n int) {
	pf, err := policyfile.LoadFile(a.policy)
	if err != nil {
		b.Fatal(err)
	}
	ap, err := approval.Compile(pf.Entries)
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(a.home, "warden.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	buf := st.Buffer()
	cfg := &hook.Config{Config: govern.Config{Approval: ap, Sink: buf, Paths: govern.Paths{Runs: filepath.Join(a.home, "runs"), Key: filepath.Join(a.home, "keys", "override.key")}}}
	h, _ := hook.Lookup("codex")
	in := bytes.Replace([]byte(hookBenchInput), []byte("SESSION"), []byte(session), 1)
	for i := 0; i < n; i++ {
		if ans := cfg.Handle(context.Background(), h, in); ans.Code != 0 {
			b.Fatal(ans.Stderr)
		}
	}
	if err := buf.Close(); err != nil {
		b.Fatal(err)
	}
}

// helloWorld builds a Go program that prints a line and exits: the floor
// of any Go process's start here.
func helloWorld(b *testing.B) string {
	dir := b.TempDir()
	src := "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.22\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "hello")
	// Linked as warden-hook is (-s -w), so that the floor is comparable.
	cmd := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building hello-world: %v\n%s", err, out)
	}
	return bin
}

// hookPhases runs the arm's hook b.N times with $WARDEN_HOOK_TRACE and
// reports the median wall and CPU time of each phase.
func hookPhases(b *testing.B, a *benchArm, input []byte) {
	trace := filepath.Join(b.TempDir(), "trace.jsonl")
	a.times, a.cpu = nil, nil
	var spawned []time.Time
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		spawned = append(spawned, time.Now())
		if _, err := a.spawn(input, []string{hookcmd.EnvTrace + "=" + trace}, a.args("codex", "--approval", a.policy)...); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	f, err := os.Open(trace)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	wall, cpu := map[string][]time.Duration{}, map[string][]time.Duration{}
	var order []string
	var rss []time.Duration // KiB, sorted as durations
	add := func(name string, w, c time.Duration) {
		if _, ok := wall[name]; !ok {
			order = append(order, name)
		}
		wall[name], cpu[name] = append(wall[name], w), append(cpu[name], c)
	}
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		var l hookcmd.TraceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || i >= len(spawned) {
			b.Fatalf("trace line %d: %v", i+1, err)
		}
		begin := time.Duration(l.BeginCPU) * time.Microsecond
		add("start", time.Unix(0, l.Begin).Sub(spawned[i]), begin)
		sumW, sumC := time.Unix(0, l.Begin).Sub(spawned[i]), begin
		for _, p := range l.Phases {
			w, c := time.Duration(p.Micros)*time.Microsecond, time.Duration(p.CPU)*time.Microsecond
			add(p.Name, w, c)
			sumW, sumC = sumW+w, sumC+c
		}
		add("exit", a.times[i]-sumW, a.cpu[i]-sumC)
		for _, p := range l.Beside {
			add(p.Name+"(beside)", time.Duration(p.Micros)*time.Microsecond, 0)
		}
		rss = append(rss, time.Duration(l.PeakRSS))
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	for _, name := range order {
		b.ReportMetric(percentile(wall[name], 0.5), name+"-p50-ms")
		if c := percentile(cpu[name], 0.5); c != 0 {
			b.ReportMetric(c, name+"-cpu-p50-ms")
		}
	}
	b.ReportMetric(percentile(a.times, 0.5), "p50-ms")
	b.ReportMetric(percentile(a.cpu, 0.5), "cpu-p50-ms")
	slices.Sort(rss)
	b.ReportMetric(float64(rss[len(rss)-1])/1024, "peak-RSS-MiB")
}

// TestX1_HookTraceTimesEachPhase: with $WARDEN_HOOK_TRACE a hook process
// appends one line per process — when its command began, each phase's
// time (the store's is the spool's mark: no store is opened beside), its
// peak memory — and answers as it does without it.
func TestX1_HookTraceTimesEachPhase(t *testing.T) {
	home := t.TempDir()
	policy := filepath.Join(home, "approval.yaml")
	if err := os.WriteFile(policy, []byte(hookBenchPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	in := bytes.Replace([]byte(hookBenchInput), []byte("SESSION"), []byte("traced"), 1)
	for i := 0; i < 2; i++ {
		before := time.Now()
		p := wardenProc{env: []string{"WARDEN_HOME=" + home, "WARDEN_DB=", hookcmd.EnvTrace + "=" + trace}, stdin: string(in)}
		if code, out, errb := p.run(t, "hook", "codex", "--approval", policy); code != 0 || out != "" {
			t.Fatalf("traced hook: exit %d, answer %q %s: want the approval (no output)", code, out, errb)
		}
		data, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
		if len(lines) != i+1 {
			t.Fatalf("after %d hooks the trace has %d lines", i+1, len(lines))
		}
		var l hookcmd.TraceLine
		if err := json.Unmarshal(lines[i], &l); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ph := range l.Phases {
			names = append(names, ph.Name)
		}
		if begin := time.Unix(0, l.Begin); begin.Before(before) || begin.After(time.Now()) || l.BeginCPU <= 0 {
			t.Errorf("began at %v (CPU %d µs), want within the process's life", begin, l.BeginCPU)
		}
		if !slices.Equal(names, []string{"input", "config", "decision", "store"}) || len(l.Beside) != 0 || l.PeakRSS <= 0 {
			t.Errorf("trace line %s: want the phases input, config, decision, store (the spool's mark), nothing beside (no store opened), the peak RSS", lines[i])
		}
	}
}
