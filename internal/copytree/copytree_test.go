package copytree

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// tree makes, under dir, a directory with a mode-0755 script, a mode-0640
// file, a link that points out of the tree and a fifo.
func tree(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o750); err != nil {
		t.Fatal(err)
	}
	for name, perm := range map[string]fs.FileMode{"run.sh": 0o755, "sub/notes": 0o640} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, name), perm); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "sub", "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestG1_CopyTreeFollowsNoLink checks the copy a cross-device quarantine
// (SPEC G1) and an eval case's workspace rely on: links are copied as
// links, never followed; modes are kept or made private as asked; a fifo
// is left out or refused as asked; an exclusive copy refuses to overwrite.
func TestG1_CopyTreeFollowsNoLink(t *testing.T) {
	for _, tc := range []struct {
		name     string
		o        Options
		wantErr  bool
		script   fs.FileMode
		notes    fs.FileMode
		existing bool // the destination already holds run.sh
	}{
		{name: "private", o: Options{Exclusive: true}, script: 0o600, notes: 0o600},
		{name: "modes kept", o: Options{KeepModes: true}, script: 0o755, notes: 0o640},
		{name: "special refused", o: Options{RefuseSpecial: true}, wantErr: true},
		{name: "overwrite", o: Options{KeepModes: true}, script: 0o755, notes: 0o640, existing: true},
		{name: "exclusive refuses to overwrite", o: Options{Exclusive: true}, wantErr: true, existing: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, dst := filepath.Join(t.TempDir(), "src"), filepath.Join(t.TempDir(), "dst")
			tree(t, src)
			if tc.existing {
				if err := os.MkdirAll(dst, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dst, "run.sh"), []byte("old contents, longer than the new"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := Copy(src, dst, tc.o)
			if tc.wantErr {
				if err == nil {
					t.Fatal("copied without an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]fs.FileMode{"run.sh": tc.script, "sub/notes": tc.notes} {
				info, err := os.Lstat(filepath.Join(dst, name))
				if err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(filepath.Join(dst, name))
				if !info.Mode().IsRegular() || string(got) != name {
					t.Errorf("%s: mode %v, contents %q", name, info.Mode(), got)
				}
				if !tc.existing || name != "run.sh" {
					if info.Mode().Perm() != want {
						t.Errorf("%s: mode %v, want %v", name, info.Mode().Perm(), want)
					}
				}
			}
			link := filepath.Join(dst, "sub", "link")
			if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("link: %v, %v: not copied as a link", info, err)
			}
			if l, _ := os.Readlink(link); l != "/etc/passwd" {
				t.Errorf("link points at %q", l)
			}
			if _, err := os.Lstat(filepath.Join(dst, "fifo")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("fifo copied: %v", err)
			}
		})
	}
}
