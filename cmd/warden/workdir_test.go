package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runPath returns the workdir line of warden run's stdout.
func workdirOf(t *testing.T, stdout string) string {
	t.Helper()
	for _, l := range strings.Split(stdout, "\n") {
		if w, ok := strings.CutPrefix(l, "workdir: "); ok {
			return w
		}
	}
	t.Fatalf("no workdir: line in\n%s", stdout)
	return ""
}

// Issue 10 item 8: a temporary workdir made for a run is removed when the
// run ends, its path still printed; --keep-workdir keeps it; resuming a run
// whose workdir was removed is a configuration error that says to use
// --keep-workdir.
func TestNewcomer8_TemporaryWorkdirRemoved(t *testing.T) {
	dir := t.TempDir()
	env, task, tr := scratchTask(t, dir, "name: tmp\ninput: go\ntools: [bash]\napproval: [{name: auto}]\n")
	model := write(t, dir, "m.yaml", fileWriter)
	code, stdout, stderr := runBinary(t, env, "", "run", task, "--quiet", "--model", "scripted:"+model, "--transcript", tr)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	wd := workdirOf(t, stdout)
	if _, err := os.Stat(wd); !os.IsNotExist(err) {
		t.Errorf("workdir %s still exists (%v)", wd, err)
	}
	if !strings.Contains(stderr, "removed the temporary workdir "+wd) || !strings.Contains(stderr, "--keep-workdir") {
		t.Errorf("stderr does not say the workdir was removed:\n%s", stderr)
	}
	runID := lines(t, tr)[0]["run_id"].(string)
	code, _, stderr = runBinary(t, env, "", "run", "--resume", runID, "--input", "more", "--transcript", tr, "--model", "scripted:"+model)
	if code != exitUsage || !strings.Contains(stderr, "--keep-workdir") || !strings.Contains(stderr, wd) {
		t.Errorf("resume of a removed workdir: exit %d, want 2 suggesting --keep-workdir\n%s", code, stderr)
	}

	tr2 := filepath.Join(dir, "t2.jsonl")
	code, stdout, stderr = runBinary(t, env, "", "run", task, "--quiet", "--keep-workdir", "--model", "scripted:"+model, "--transcript", tr2)
	if code != exitOK {
		t.Fatalf("--keep-workdir: exit %d\n%s", code, stderr)
	}
	wd = workdirOf(t, stdout)
	t.Cleanup(func() { os.RemoveAll(wd) })
	if _, err := os.Stat(filepath.Join(wd, "f.txt")); err != nil {
		t.Errorf("--keep-workdir: %v", err)
	}
	// A resumed run leaves its directory where it is.
	runID = lines(t, tr2)[0]["run_id"].(string)
	if code, _, stderr := runBinary(t, env, "", "run", "--resume", runID, "--input", "more", "--quiet", "--transcript", tr2, "--model", "scripted:"+model); code != exitOK {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(wd, "f.txt")); err != nil {
		t.Errorf("after the resume: %v", err)
	}
}

// Issue 10 item 8: an interrupted run keeps its temporary workdir, to be
// resumed, and says so.
func TestNewcomer8_InterruptedRunKeepsWorkdir(t *testing.T) {
	dir := t.TempDir()
	task := write(t, dir, "task.yaml", "name: int\ninput: go\ntools: [bash]\napproval: [{name: auto}]\n")
	model := write(t, dir, "m.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: \"touch started; sleep 30\"}}]\n- content: done\n")
	tr := filepath.Join(dir, "t.jsonl")
	cmd := exec.Command(binary(t), "run", task, "--quiet", "--model", "scripted:"+model, "--transcript", tr)
	cmd.Env = append(os.Environ(), "WARDEN_HOME="+filepath.Join(dir, "home"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(tr)
		if bytes.Contains(data, []byte(`"event":"approval"`)) {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no approval event\n%s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the command is running
	cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	wd := workdirOf(t, out.String())
	t.Cleanup(func() { os.RemoveAll(wd) })
	if _, err := os.Stat(wd); err != nil {
		t.Errorf("the interrupted run's workdir is gone: %v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "interrupted") || !strings.Contains(errb.String(), wd) {
		t.Errorf("stderr does not say the workdir was kept:\n%s", errb.String())
	}
}

// Issue 10 item 8: a run that did not complete keeps its temporary workdir
// for --resume, and says why.
func TestNewcomer8_UnfinishedRunKeepsWorkdir(t *testing.T) {
	dir := t.TempDir()
	env, task, tr := scratchTask(t, dir, "name: lim\ninput: go\ntools: [bash]\napproval: [{name: auto}]\nlimits: {turns: 1}\n")
	code, stdout, stderr := runBinary(t, env, "", "run", task, "--quiet", "--model", "scripted:"+write(t, dir, "m.yaml", fileWriter), "--transcript", tr)
	if code != exitLimited {
		t.Fatalf("exit %d, want 3\n%s", code, stderr)
	}
	wd := workdirOf(t, stdout)
	t.Cleanup(func() { os.RemoveAll(wd) })
	if _, err := os.Stat(filepath.Join(wd, "f.txt")); err != nil || !strings.Contains(stderr, "kept the temporary workdir "+wd) {
		t.Errorf("a limited run's workdir: %v\n%s", err, stderr)
	}
	runID := lines(t, tr)[0]["run_id"].(string)
	model2 := write(t, dir, "m2.yaml", "- tool_calls: [{id: c2, function: bash, arguments: {cmd: \"cat f.txt\"}}]\n- content: done\n")
	if code, _, stderr := runBinary(t, env, "", "run", "--resume", runID, "--input", "go on", "--quiet", "--transcript", tr, "--model", "scripted:"+model2); code != exitLimited && code != exitOK {
		t.Errorf("resume: exit %d\n%s", code, stderr)
	}
}

// scratchTask writes the task taskYAML in dir and returns the environment
// that gives its runs their own warden home in dir, the task file and a
// transcript path in dir.
func scratchTask(t *testing.T, dir, taskYAML string) (env []string, task, transcript string) {
	t.Helper()
	return []string{"WARDEN_HOME=" + filepath.Join(dir, "home")}, write(t, dir, "task.yaml", taskYAML), filepath.Join(dir, "t.jsonl")
}
