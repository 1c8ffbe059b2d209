package editor

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/internal/fsguard"
)

// BenchmarkG16_View measures what keeping warden's state out of reach
// costs a text_editor view of a small file: the whole call (path resolved
// as the kernel resolves it, fsguard's checks before and after the open),
// beside the guard's checks alone and a plain os.ReadFile of the file.
func BenchmarkG16_View(b *testing.B) {
	work := b.TempDir()
	b.Setenv("WARDEN_HOME", filepath.Join(b.TempDir(), "home"))
	file := filepath.Join(work, "a.txt")
	if err := os.WriteFile(file, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	tl, err := newEditor(Options{Dir: work})
	if err != nil {
		b.Fatal(err)
	}
	raw := []byte(`{"command":"view","path":"a.txt"}`)
	b.Run("text_editor view", func(b *testing.B) {
		for b.Loop() {
			if _, err := tl.Run(context.Background(), raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fsguard checks", func(b *testing.B) {
		f, err := os.Open(file)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		for b.Loop() {
			if fsguard.Check(file) != nil || fsguard.Opened(f) != nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.ReadFile(file); err != nil {
				b.Fatal(err)
			}
		}
	})
}
