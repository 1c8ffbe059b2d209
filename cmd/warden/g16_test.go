package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// G16: `warden exec` hands the command none of warden's own credentials —
// the API token of `warden serve` and the store's URL — in any sandbox
// mode; the rest of the environment passes (the control).
func TestG16_ExecStripsWardensCredentials(t *testing.T) {
	const token, db = "wtok-5f4e3d2c1b0a-secret", "postgres://warden:pw-9a8b7c@db/warden"
	t.Setenv("WARDEN_TOKEN", token)
	t.Setenv("WARDEN_DB", db)
	t.Setenv("WARDEN_G16_CONTROL", "control-passes")
	for _, mode := range []string{"full-access", "workspace-write", "read-only"} {
		t.Run(mode, func(t *testing.T) {
			if mode != "full-access" {
				requireSandbox(t)
			}
			code, stdout, stderr := wardenExec(t, t.TempDir(), "--sandbox", mode, "--", "/usr/bin/env")
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if strings.Contains(stdout, token) || strings.Contains(stdout, "pw-9a8b7c") || strings.Contains(stdout, "WARDEN_TOKEN=") || strings.Contains(stdout, "WARDEN_DB=") {
				t.Errorf("the command received warden's credentials:\n%s", stdout)
			}
			if !strings.Contains(stdout, "WARDEN_G16_CONTROL=control-passes") {
				t.Errorf("the rest of the environment did not pass (control):\n%s", stdout)
			}
		})
	}
}

// G16: a working directory or writable root inside warden's home (or equal
// to it, or reaching it through a link) is refused before anything runs,
// by `warden exec` and by `warden run` (a task's workdir:, its
// writable_roots:); a directory that contains warden's home, as $HOME
// contains ~/.warden, is fine. The effect is checked: the command never
// ran.
func TestG16_WorkInsideWardensHomeIsRefused(t *testing.T) {
	binary(t) // built before wardenExec changes the directory
	base := t.TempDir()
	home := filepath.Join(base, "wardenhome")
	sub := filepath.Join(home, "runs")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "innocent")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WARDEN_HOME", home)
	ran := func(dir string) bool {
		_, err := os.Stat(filepath.Join(dir, "ran"))
		os.Remove(filepath.Join(dir, "ran"))
		return err == nil
	}
	for _, dir := range []string{home, sub, link} {
		code, _, stderr := wardenExec(t, dir, "--sandbox", "full-access", "--", "sh", "-c", "touch ran")
		if code != exitUsage || !strings.Contains(stderr, "inside warden's own state") {
			t.Errorf("exec in %s: exit %d, want 2 saying why\n%s", dir, code, stderr)
		}
		if ran(dir) || ran(sub) {
			t.Errorf("exec in %s: the command ran", dir)
		}
	}
	work := t.TempDir()
	code, _, stderr := wardenExec(t, work, "--sandbox", "full-access", "--writable-root", link, "--", "sh", "-c", "touch ran")
	if code != exitUsage || !strings.Contains(stderr, "--writable-root") || ran(work) {
		t.Errorf("exec --writable-root %s: exit %d, want 2 before running\n%s", link, code, stderr)
	}
	// Containing warden's home is fine.
	if code, _, stderr := wardenExec(t, base, "--sandbox", "full-access", "--", "sh", "-c", "touch ran"); code != exitOK || !ran(base) {
		t.Errorf("exec in %s, which contains warden's home: exit %d\n%s", base, code, stderr)
	}

	// warden run: the task's workdir, and a writable root.
	model := write(t, base, "m.yaml", "- tool_calls: [{id: c1, function: bash, arguments: {cmd: touch ran}}]\n- content: done\n")
	for name, task := range map[string]string{
		"workdir":       "name: w\ninput: go\ntools: [bash]\nworkdir: " + link + "\n",
		"writable root": "name: w\ninput: go\ntools: [bash]\nworkdir: " + work + "\nsandbox: {mode: workspace-write, writable_roots: [" + sub + "]}\n",
	} {
		path := write(t, base, "task.yaml", task)
		code, stdout, stderr := runBinary(t, []string{"WARDEN_HOME=" + home}, "", "run", path, "--model", "scripted:"+model, "--transcript", filepath.Join(base, "t.jsonl"))
		if code != exitUsage || !strings.Contains(stderr, "inside warden's own state") {
			t.Errorf("run with a %s in warden's home: exit %d, want 2 saying why\nstdout:\n%s\nstderr:\n%s", name, code, stdout, stderr)
		}
		if ran(sub) || ran(work) {
			t.Errorf("run with a %s in warden's home: the command ran", name)
		}
	}
}

// G16: warden's home, made by a first run, is the person's alone: the home
// and every directory in it are 0700, so no other user reaches the
// transcripts, the keys or the store whatever their own modes; the token
// and keys are 0600 besides.
func TestG16_FreshHomeIsPrivate(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "fresh", "home")
	model := write(t, dir, "m.yaml", "- content: done\n")
	task := write(t, dir, "task.yaml", "name: p\ninput: go\nworkdir: "+dir+"\n")
	if code, stdout, stderr := runBinary(t, []string{"WARDEN_HOME=" + home}, "", "run", task, "--model", "scripted:"+model); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	n := 0
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		n++
		switch {
		case fi.IsDir() && fi.Mode().Perm() != 0o700:
			t.Errorf("%s is %v, want 0700", p, fi.Mode().Perm())
		case !fi.IsDir() && (strings.Contains(p, "key") || filepath.Base(p) == "token") && fi.Mode().Perm()&0o077 != 0:
			t.Errorf("%s is %v, want 0600", p, fi.Mode().Perm())
		}
		return nil
	})
	if n < 3 {
		t.Errorf("warden's home holds %d entries; the run wrote no transcript or key there", n)
	}
}

// G16, end to end: the agent's text_editor asks for warden's token and
// lists warden's home — with no sandbox, and in workspace-write — and the
// model is sent none of it: the transcript, which records every result the
// model receives, holds neither the token's bytes nor the home's entries.
func TestG16_RunNeverSendsWardensStateToTheModel(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	const secret = "runtok-93b1c7d5e2f4-secret"
	if err := os.MkdirAll(filepath.Join(home, "keys"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, home, "token", secret+"\n")
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "token"), filepath.Join(work, "readme.txt")); err != nil {
		t.Fatal(err)
	}
	calls := ""
	for i, p := range []string{filepath.Join(home, "token"), home, "readme.txt", "/proc/self/root" + filepath.Join(home, "token"), "/proc/self/environ"} {
		calls += "- tool_calls: [{id: c" + string(rune('0'+i)) + ", function: text_editor, arguments: {command: view, path: " + strconv.Quote(p) + "}}]\n"
	}
	model := write(t, dir, "m.yaml", calls+"- content: done\n")
	allow := write(t, dir, "allow.yaml", "approvers:\n  - name: auto\n")
	for _, sb := range []string{"", "sandbox: {mode: workspace-write}\n"} {
		task := write(t, dir, "task.yaml", "name: s\ninput: go\ntools: [text_editor]\nworkdir: "+work+"\n"+sb)
		tr := filepath.Join(dir, "t.jsonl")
		os.Remove(tr)
		code, stdout, stderr := runBinary(t, []string{"WARDEN_HOME=" + home, "WARDEN_TOKEN=" + secret}, "", "run", task, "--model", "scripted:"+model, "--approval", allow, "--transcript", tr)
		if code != exitOK {
			t.Fatalf("%q: exit %d\n%s\n%s", sb, code, stdout, stderr)
		}
		data, err := os.ReadFile(tr)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), secret) || strings.Contains(string(data), "keys/") {
			t.Errorf("%q: the model was sent warden's state:\n%s", sb, data)
		}
		if n := strings.Count(string(data), "warden's own state"); n < 3 {
			t.Errorf("%q: %d refusals naming warden's state, want at least 3:\n%s", sb, n, data)
		}
	}
}
