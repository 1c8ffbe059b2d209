package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// runBinary runs the built warden with args and stdin and returns its exit
// code, stdout and stderr.
func runBinary(t *testing.T, env []string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return wardenProc{env: env, stdin: stdin}.run(t, args...)
}

// wardenProc says how a test runs the built warden binary.
type wardenProc struct {
	dir   string   // the working directory; the test's when empty
	env   []string // added to the test's environment
	stdin string   // all its input
}

// run runs the built warden with args as p says and returns its exit
// status, stdout and stderr.
func (p wardenProc) run(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := p.start(t, &stdout, &stderr, args...)
	return code, stdout.String(), stderr.String()
}

// ok runs the built warden with args as p says, fails the test unless it
// exits 0, and returns its stderr.
func (p wardenProc) ok(t testing.TB, args ...string) (stderr string) {
	t.Helper()
	code, _, stderr := p.run(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	return stderr
}

// combined runs the built warden with args as p says and returns its exit
// status and its stdout and stderr as one stream, in the order written.
func (p wardenProc) combined(t testing.TB, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code := p.start(t, &out, &out, args...)
	return code, out.String()
}

func (p wardenProc) start(t testing.TB, stdout, stderr io.Writer, args ...string) int {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdin = strings.NewReader(p.stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return exitCode(cmd.Run())
}

// helpCommands are every command and subcommand.
var helpCommands = [][]string{
	{}, {"run"}, {"check"}, {"policy"}, {"policy", "check"}, {"transcript"}, {"transcript", "show"}, {"transcript", "verify"},
	{"exec"}, {"rules"}, {"rules", "check"}, {"auto-review"}, {"auto-review", "policy"},
	{"auto-review", "approve"}, {"eval"}, {"serve"}, {"operator"}, {"operator", "add"}, {"operator", "list"}, {"version"},
}

// --help and -h exit 0 on every command, with its usage on stdout and
// nothing on stderr (issue 10, item 6).
func TestCLI_HelpExitsZeroEverywhere(t *testing.T) {
	for _, cmd := range helpCommands {
		for _, h := range []string{"--help", "-h"} {
			args := append(append([]string{}, cmd...), h)
			code, stdout, stderr := runBinary(t, nil, "", args...)
			if code != exitOK || !strings.Contains(stdout, "usage:") || stderr != "" {
				t.Errorf("warden %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
			}
		}
	}
	// A command's own -h after "--" is the command's, not warden's.
	if code, stdout, _ := runBinary(t, nil, "", "rules", "check", "--", "ls", "-h"); code == exitUsage || strings.Contains(stdout, "usage:") {
		t.Errorf("rules check -- ls -h: exit %d, want a decision:\n%s", code, stdout)
	}
}

func TestCLI_Version(t *testing.T) {
	code, stdout, stderr := runBinary(t, nil, "", "version")
	if code != exitOK || !regexp.MustCompile(`^warden \S+ \(commit \S+\)\n$`).MatchString(stdout) || stderr != "" {
		t.Errorf("version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if got := versionText(nil, false); got != "warden (devel) (commit unknown)" {
		t.Errorf("without build info: %q", got)
	}
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}
	if got := versionText(bi, true); got != "warden v1.2.3 (commit abc123+dirty)" {
		t.Errorf("with build info: %q", got)
	}
}

// A missing required flag or argument is named, with exit 2.
func TestCLI_MissingRequiredFlagsNamed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--resume", "X"}, "--resume needs --input"},
		{[]string{"run"}, "missing TASK.yaml"},
		{[]string{"run", "t.yaml", "--input", "x"}, "--input needs --resume"},
		{[]string{"auto-review", "approve", "D"}, "missing --run"},
		{[]string{"auto-review", "approve", "--run", "R"}, "missing DENIAL_ID"},
		{[]string{"exec"}, "no command given"},
		{[]string{"rules", "check"}, "no command given"},
		{[]string{"run", "--max-output", "x"}, "-max-output"},
	} {
		code, _, stderr := runBinary(t, nil, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("warden %s: exit %d, stderr lacks %q:\n%s", strings.Join(tc.args, " "), code, tc.want, stderr)
		}
	}
	_, stdout, _ := runBinary(t, nil, "", "run", "--help")
	if strings.Contains(stdout, "(default -1)") || !strings.Contains(stdout, "-max-output N") {
		t.Errorf("run --help on --max-output:\n%s", stdout)
	}
}

// readmeCommands returns the lines of README's Commands block, each
// command's continuation lines joined to it.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "## Commands\n\n```\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README has no Commands block")
	}
	var cmds []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		if strings.HasPrefix(line, "warden ") || len(cmds) == 0 {
			cmds = append(cmds, line)
		} else {
			cmds[len(cmds)-1] += " " + strings.TrimSpace(line)
		}
	}
	return cmds
}

// Every flag README's Commands block names is defined on its command (its
// --help lists it), and the top-level usage lists the same commands with
// the same flags: they cannot drift apart (issue 10, item 6).
func TestCLI_READMECommandsMatchFlags(t *testing.T) {
	flagRE := regexp.MustCompile(`--([a-z][a-z-]*)`)
	_, top, _ := runBinary(t, nil, "", "--help")
	topFields := strings.Join(strings.Fields(top), " ")
	cmds := readmeCommands(t)
	if len(cmds) < 10 {
		t.Fatalf("README's Commands block has %d commands", len(cmds))
	}
	for _, line := range cmds {
		if !strings.Contains(topFields, strings.Join(strings.Fields(line), " ")) {
			t.Errorf("the top-level usage lacks README's\n  %s", line)
		}
		var words []string
		for _, w := range strings.Fields(line)[1:] {
			if !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w) {
				break
			}
			words = append(words, w)
		}
		code, help, _ := runBinary(t, nil, "", append(words, "--help")...)
		if code != exitOK {
			t.Errorf("warden %s --help: exit %d", strings.Join(words, " "), code)
		}
		for _, m := range flagRE.FindAllStringSubmatch(line, -1) {
			if !regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(m[1]) + `\b`).MatchString(help) {
				t.Errorf("README names --%s for warden %s; the command does not define it:\n%s", m[1], strings.Join(words, " "), help)
			}
		}
	}
}

// summaryOf returns the summary lines of warden run's stdout: everything
// from the line before "workdir:" on.
func summaryOf(t *testing.T, stdout string) string {
	t.Helper()
	lines := strings.Split(stdout, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "workdir: ") && i > 0 {
			return lines[i-1]
		}
	}
	t.Fatalf("no summary in:\n%s", stdout)
	return ""
}

// checkOneSummary fails unless stdout holds one summary, equal to want.
func checkOneSummary(t *testing.T, what, stdout, want string) {
	t.Helper()
	if got := summaryOf(t, stdout); got != want {
		t.Errorf("%s: summary\n  %s\nwant\n  %s", what, got, want)
	}
	for _, twice := range []string{"model call", "tokens", "tool call"} {
		if n := strings.Count(stdout, twice); n != 1 {
			t.Errorf("%s: %q appears %d times:\n%s", what, twice, n, stdout)
		}
	}
	if strings.Contains(stdout, "model: ") || strings.Contains(stdout, "runs:") {
		t.Errorf("%s: a second summary:\n%s", what, stdout)
	}
}

// One summary, each quantity counted once, for a run, a run whose model
// fails, two turns of --interactive and a resumed run (issue 10, item 4).
func TestCLI_OneSummary(t *testing.T) {
	dir := t.TempDir()
	env := []string{"WARDEN_HOME=" + dir}
	task := write(t, dir, "task.yaml", "name: s\ninput: say hi\n")
	f := newFakeOpenAI(t)
	tr := filepath.Join(dir, "t.jsonl")

	code, stdout, stderr := runBinary(t, env, "", append([]string{"run", task, "--quiet", "--keep-workdir", "--transcript", tr}, f.modelArgs()...)...)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	checkOneSummary(t, "run", stdout, "Run completed. 1 turn, 1 model call, 1→1 tokens. 0 tool calls.")

	runID := lines(t, tr)[0]["run_id"].(string)
	code, stdout, stderr = runBinary(t, env, "", append([]string{"run", "--resume", runID, "--input", "again", "--quiet", "--transcript", tr}, f.modelArgs()...)...)
	if code != exitOK {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	checkOneSummary(t, "resume", stdout, "Run completed. 1 turn, 1 model call, 1→1 tokens. 0 tool calls.")

	code, stdout, stderr = runBinary(t, env, "and again\n\n", append([]string{"run", task, "--interactive", "--quiet", "--transcript", filepath.Join(dir, "i.jsonl")}, f.modelArgs()...)...)
	if code != exitOK {
		t.Fatalf("interactive: exit %d\n%s", code, stderr)
	}
	checkOneSummary(t, "interactive", stdout, "Run completed. 2 turns, 2 model calls, 2→2 tokens. 0 tool calls.")

	// A refused connection: nothing listens on the port any more.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	code, stdout, stderr = runBinary(t, env, "", "run", task, "--quiet", "--transcript", filepath.Join(dir, "e.jsonl"),
		"--model", "openai/fake", "--base-url", url, "--api-key", "k")
	if code != exitError {
		t.Fatalf("model error: exit %d\n%s", code, stderr)
	}
	checkOneSummary(t, "model error", stdout, "Run error. 1 turn, 0 model calls, 0→0 tokens. 0 tool calls. 1 error.")
}

// Counts are printed with the right plural: one entry is "1 reviewer".
func TestCLI_PolicyCheckPlurals(t *testing.T) {
	dir := t.TempDir()
	one := write(t, dir, "one.yaml", "reviewers:\n  - name: auto\n    tools: bash\n    decision: continue\n")
	two := write(t, dir, "two.yaml", "approvers:\n  - name: auto\n    tools: bash\n  - name: auto\n    tools: \"*\"\n    decision: reject\n")
	code, stdout, stderr := warden(t, "policy", "check", one, two)
	if code != exitOK || !strings.Contains(stdout, one+": ok (1 reviewer)\n") || !strings.Contains(stdout, two+": ok (2 approvers)\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
