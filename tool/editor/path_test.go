package editor

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/tool"
)

// checkInside fails unless the resolved location rel lies inside the
// tool's directory and holds no symbolic link in its existing part, so that
// using it cannot lead outside. It checks with filepath.EvalSymlinks alone,
// independently of realPath.
func checkInside(t *testing.T, tl *editorTool, p, rel string) {
	t.Helper()
	if filepath.IsAbs(rel) {
		t.Fatalf("resolve(%q) = %q, an absolute path", p, rel)
	}
	full := filepath.Join(tl.real, rel)
	if _, ok := within(tl.real, full); !ok {
		t.Fatalf("resolve(%q) = %q, outside %s", p, rel, tl.real)
	}
	prefix := full
	for {
		if _, err := os.Lstat(prefix); err == nil {
			break
		}
		prefix = filepath.Dir(prefix)
	}
	resolved, err := filepath.EvalSymlinks(prefix)
	if err != nil {
		t.Fatalf("resolve(%q) = %q, whose existing part %s does not resolve: %v", p, rel, prefix, err)
	}
	if resolved != prefix {
		t.Fatalf("resolve(%q) = %q, whose existing part %s is a link to %s", p, rel, prefix, resolved)
	}
}

func FuzzResolve(f *testing.F) {
	for _, seed := range []string{
		"f.txt", ".", "..", "../outside/secret.txt", "sub/../../outside", "sub/./in.txt",
		"to-outside-dir/secret.txt", "to-secret", "dangling-out", "dangling-chain", "dangling-in",
		"sub/up-and-out", "sub/up-and-in", "to-root-parent/root/sub", "to-root-parent/outside",
		"loop-a/x", "dangling-dotdot", "dangling-to-link", "a//b/", "/etc/passwd", "..foo",
		"to-sub/../to-sub/../../outside", "sub/in.txt/x", "new/dir/file",
	} {
		f.Add(seed)
	}
	root, outside := confined(f, f.TempDir())
	tl, err := newEditor(Options{Dir: root})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := tl.resolve(p)
		if err != nil {
			var te *tool.Error
			if !errors.As(err, &te) {
				t.Fatalf("resolve(%q) error %v is not a *tool.Error", p, err)
			}
			return
		}
		checkInside(t, tl, p, rel)

		// Reading through the tool never fails for confinement once resolve
		// accepted the path, and never reaches the file outside.
		raw, _ := json.Marshal(map[string]string{"command": "view", "path": p})
		out, err := tl.Run(t.Context(), raw)
		if te := tool.AsError(err); te != nil && te.Type == tool.ErrPermission {
			t.Fatalf("view %q: resolve accepted it but Run said %v", p, te)
		}
		if err == nil && out == "     1\tsecret\n" {
			t.Fatalf("view %q read the secret outside %s", p, outside)
		}
	})
}
