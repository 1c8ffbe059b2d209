package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/internal/filetest"
)

// scratch returns a new directory outside every writable root of
// workspace-write mode (the temporary directories), removed at the end of
// the test.
func scratch(t testing.TB) string {
	t.Helper()
	var bases []string
	bases = append(bases, "/var/tmp")
	if d, err := os.UserCacheDir(); err == nil {
		bases = append(bases, d)
	}
	if d, err := os.UserHomeDir(); err == nil {
		bases = append(bases, d)
	}
	for _, b := range bases {
		real, err := filepath.EvalSymlinks(b)
		if err != nil || underTemp(real) {
			continue
		}
		dir, err := os.MkdirTemp(real, "warden-sandbox-test-")
		if err != nil {
			continue
		}
		t.Cleanup(func() {
			if err := os.RemoveAll(dir); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		})
		return dir
	}
	t.Skip("no writable directory outside the temporary directories")
	return ""
}

func underTemp(p string) bool {
	for _, d := range tempDirs() {
		if real, err := filepath.EvalSymlinks(d); err == nil && within(real, p) {
			return true
		}
	}
	return false
}

// requireSandbox skips tests that need kernel enforcement where it is
// missing.
func requireSandbox(t testing.TB) {
	t.Helper()
	if _, err := Supported(); err != nil {
		t.Skipf("no Landlock: %v", err)
	}
}

// requireNamespaces also skips tests that need user namespaces.
func requireNamespaces(t testing.TB) {
	t.Helper()
	requireSandbox(t)
	if err := Namespaces(); err != nil {
		t.Skipf("no user namespaces: %v", err)
	}
}

func mkdir(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t testing.TB, p, content string) string {
	t.Helper()
	return filetest.Write(t, filepath.Dir(p), filepath.Base(p), content)
}

func symlink(t testing.TB, target, link string) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// repo makes a workdir holding a git-like repository: .git/config,
// .git/hooks, a source file and a subdirectory.
func repo(t testing.TB) string {
	t.Helper()
	w := mkdir(t, scratch(t), "repo")
	writeFile(t, filepath.Join(w, ".git", "config"), "[core]\n")
	mkdir(t, w, ".git", "hooks")
	writeFile(t, filepath.Join(w, "main.go"), "package main\n")
	mkdir(t, w, "sub")
	return w
}

// outsideErrno is the outcome of a write outside the writable roots: EROFS
// from the read-only view where commands get namespaces, else EACCES from
// Landlock.
func outsideErrno() string {
	if viewSupported() == nil {
		return "errno=EROFS"
	}
	return "errno=EACCES"
}

// crossMount is the outcome of a rename from outside the roots into one:
// EXDEV where the roots are mounts of their own, else want.
func crossMount(want string) string {
	if viewSupported() == nil {
		return "errno=EXDEV"
	}
	return want
}

// requireView also skips tests that need the read-only view.
func requireView(t testing.TB) {
	t.Helper()
	requireNamespaces(t)
	if err := viewSupported(); err != nil {
		t.Skipf("no read-only view: %v", err)
	}
}
