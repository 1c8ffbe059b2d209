package fspath

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestG15_ResolveLikeTheKernel(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(d, "outside")
	work := filepath.Join(d, "work")
	for _, dir := range []string{out, filepath.Join(work, "real", "sub")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(out, filepath.Join(work, "cache")))
	must(os.Symlink("real/sub", filepath.Join(work, "rel")))
	must(os.Symlink(filepath.Join(out, "missing"), filepath.Join(work, "dangling")))
	must(os.Symlink("loop", filepath.Join(work, "loop")))
	tests := []struct {
		in, want string
		exists   bool
	}{
		{work + "/cache/f", out + "/f", false},
		{work + "/cache", out, true},
		{work + "/rel/../x", work + "/real/x", false},
		{work + "/cache/../work/f", d + "/work/f", false},
		{work + "/dangling", out + "/missing", false},
		{work + "/no/such/../x", work + "/no/x", false},
		{work + "/./real//sub/", work + "/real/sub", true},
	}
	for _, tt := range tests {
		got, ok, err := Resolve(tt.in, nil)
		if err != nil || got != tt.want || ok != tt.exists {
			t.Errorf("Resolve(%q) = %q, %v, %v; want %q, %v", tt.in, got, ok, err, tt.want, tt.exists)
		}
	}
	if _, _, err := Resolve(work+"/loop/x", nil); err == nil {
		t.Error("a link loop resolved")
	}
	over := func(p string) (string, bool) {
		if p == work+"/made" {
			return out, true
		}
		return "", false
	}
	if got, _, _ := Resolve(work+"/made/f", over); got != out+"/f" {
		t.Errorf("overlay link: got %q", got)
	}
	if _, _, err := Resolve("rel", nil); err == nil {
		t.Error("a relative path resolved")
	}
}

func FuzzResolve(f *testing.F) {
	f.Add("/a/../b/./c")
	f.Add("/tmp/../../..")
	f.Fuzz(func(t *testing.T, p string) {
		if len(p) == 0 || p[0] != '/' {
			return
		}
		got, _, err := Resolve(p, func(q string) (string, bool) {
			if filepath.Base(q) == "l" {
				return "../l2", true
			}
			return "", false
		})
		if err == nil && (got == "" || got[0] != '/' || filepath.Clean(got) != got) {
			t.Fatalf("Resolve(%q) = %q", p, got)
		}
	})
}

// TestG15_OneCallAnswersAsTheWalk checks Resolve's one-call answer (no
// link along the path) against the walk, component by component, over
// every path of up to three components in a tree of directories, files,
// a FIFO, absolute, relative, dangling and looping links: the two agree
// on where each path resolves, whether it exists and whether it fails.
func TestG15_OneCallAnswersAsTheWalk(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(d+"/dir/sub", 0o755))
	must(os.WriteFile(d+"/dir/file", nil, 0o600))
	must(os.WriteFile(d+"/file", nil, 0o600))
	must(syscall.Mkfifo(d+"/dir/fifo", 0o600))
	must(os.Symlink(d+"/dir", d+"/abs"))
	must(os.Symlink("dir/sub", d+"/rel"))
	must(os.Symlink("file", d+"/dir/tofile"))
	must(os.Symlink(d+"/none/x", d+"/dangling"))
	must(os.Symlink("loop", d+"/dir/loop"))
	must(os.Symlink("..", d+"/dir/up"))
	names := []string{"dir", "sub", "file", "fifo", "abs", "rel", "tofile", "dangling", "loop", "up", "none"}
	paths := []string{d}
	for depth := 0; depth < 3; depth++ {
		for _, p := range paths[len(paths)-pow(len(names), depth):] {
			for _, n := range names {
				paths = append(paths, p+"/"+n)
			}
		}
	}
	fast := 0
	for _, p := range paths {
		got, gotExists, gotErr := Resolve(p, nil)
		want, wantExists, wantErr := walk(p, nil)
		if got != want || gotExists != wantExists || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("Resolve(%q) = %q, %v, %v; the walk gives %q, %v, %v", p, got, gotExists, gotErr, want, wantExists, wantErr)
		}
		if _, ok := withoutLinks(p); ok {
			fast++
		}
	}
	if fast == 0 || fast == len(paths) {
		t.Errorf("%d of %d paths answered in one call: the test checks neither side", fast, len(paths))
	}
}

func pow(n, k int) int {
	r := 1
	for ; k > 0; k-- {
		r *= n
	}
	return r
}

// TestG15_LinkPlantedBetweenCallsIsFollowed is the attack on answering in
// one call: nothing is remembered between calls, so a directory an agent
// replaces by a link after a path was resolved leads, on the next call,
// where the link points.
func TestG15_LinkPlantedBetweenCallsIsFollowed(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, secret := d+"/home/dev", d+"/etc"
	for _, dir := range []string{home + "/project", secret} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := home + "/project/config"
	if got, exists, err := Resolve(p, nil); got != p || exists || err != nil {
		t.Fatalf("before: Resolve = %q, %v, %v", got, exists, err)
	}
	if err := os.Remove(home + "/project"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, home+"/project"); err != nil {
		t.Fatal(err)
	}
	if got, _, err := Resolve(p, nil); got != secret+"/config" || err != nil {
		t.Errorf("after the link: Resolve = %q, %v; want %q", got, err, secret+"/config")
	}
	if err := os.WriteFile(secret+"/config", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, exists, _ := Resolve(p, nil); got != secret+"/config" || !exists {
		t.Errorf("after the file: Resolve = %q, %v", got, exists)
	}
}
