package fspath

import (
	"os"
	"path/filepath"
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
