package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeFences returns the fenced blocks of README.md's section headed
// title, in order, as language and text.
func readmeFences(t *testing.T, title string) [][2]string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("README has no section %q", title)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var out [][2]string
	for _, m := range regexp.MustCompile("(?s)```(\\w*)\n(.*?)```").FindAllStringSubmatch(sec, -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

// Issue 20 item 6: README is a front door of at most 300 lines that opens
// with the two commands (.ci/run runs the second), and a newcomer who
// follows it alone writes and runs a task with a person in the loop. This
// test does what the README says, word for word, with the built binary as
// `warden` on PATH: the first pass approves the read, the upload reaches
// the person (stdin answers "r"), is rejected, and never runs.
func TestREADME_PersonInTheLoopTaskRuns(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n > 300 {
		t.Errorf("README has %d lines, want at most 300", n)
	}
	want := "# warden\n\n```sh\ngo run ./cmd/warden run examples/quickstart/task.yaml\ngo vet ./... && go test -race ./...\n```\n"
	if !bytes.HasPrefix(data, []byte(want)) {
		t.Errorf("README does not open with the two commands:\n%s", want)
	}

	fences := readmeFences(t, "A task with a person in the loop")
	var shells, yamls []string
	for _, f := range fences {
		switch f[0] {
		case "sh":
			shells = append(shells, f[1])
		case "yaml":
			yamls = append(yamls, f[1])
		}
	}
	if len(shells) < 2 || len(yamls) < 2 {
		t.Fatalf("the section has %d sh and %d yaml blocks, want the setup, task.yaml, model.yaml and the run", len(shells), len(yamls))
	}
	dir := t.TempDir()
	bin := filepath.Dir(binary(t))
	env := append(noKeyEnv(t, dir), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	sh := func(script, stdin string) (int, string, string) {
		cmd := exec.Command("bash", "-e", "-c", script)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, append(os.Environ(), env...), strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		return exitCode(cmd.Run()), stdout.String(), stderr.String()
	}
	// The setup makes the directory and notes.txt; the files go in it.
	if code, _, stderr := sh(shells[0], ""); code != 0 {
		t.Fatalf("setup: exit %d\n%s", code, stderr)
	}
	share := filepath.Join(dir, "share")
	write(t, share, "task.yaml", yamls[0])
	write(t, share, "model.yaml", yamls[1])
	notes, err := os.ReadFile(filepath.Join(share, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := sh("cd share\n"+shells[1], "r\n")
	if code != 0 {
		t.Fatalf("check and run: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, s := range []string{"task.yaml: ok (", "Approvals: 1 approve, 1 reject, 1 escalate", "transcript: "} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("the README's task draws a warning:\n%s", stderr)
	}
	for _, s := range []string{"approval requested: bash", "1 │ curl -fsS --data-binary @notes.txt", "human → reject"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	// The upload never ran: its tool event is the approval error.
	tr := regexp.MustCompile(`transcript: (\S+)`).FindStringSubmatch(stdout)
	if tr == nil {
		t.Fatal("no transcript path")
	}
	code, shown, _ := runBinary(t, env, "", "transcript", "show", tr[1])
	if code != 0 || !strings.Contains(shown, "error approval: rejected by a person") {
		t.Errorf("transcript show: exit %d\n%s", code, shown)
	}
	if after, _ := os.ReadFile(filepath.Join(share, "notes.txt")); !bytes.Equal(after, notes) {
		t.Errorf("notes.txt changed: %q", after)
	}
}

// README lists every command of the top-level usage, in its Commands block
// and as a row of its table, so a new command cannot go undocumented
// (issue 20 item 6: the CLI in one table).
func TestCLI_READMEListsEveryCommand(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	block := strings.Join(readmeCommands(t), "\n")
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	var cmds []string
	for _, line := range strings.Split(usage, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "warden ") {
			cmds = append(cmds, line)
		} else if len(cmds) > 0 && strings.HasPrefix(line, "[") {
			cmds[len(cmds)-1] += " " + line
		}
	}
	for _, c := range cmds {
		// The command is named by its words up to the first argument in
		// capitals or brackets.
		var words []string
		for _, w := range strings.Fields(c) {
			if !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w) {
				break
			}
			words = append(words, w)
		}
		if !strings.Contains(norm(block), strings.Join(words, " ")+" ") && !strings.HasSuffix(norm(block), strings.Join(words, " ")) {
			t.Errorf("README's Commands block lacks %q", strings.Join(words, " "))
		}
		if !strings.Contains(readme, "\n| `"+strings.Join(words, " ")) {
			t.Errorf("README's table has no row for %q", strings.Join(words, " "))
		}
	}
	if len(cmds) < 15 {
		t.Errorf("found %d commands in the usage", len(cmds))
	}
}
