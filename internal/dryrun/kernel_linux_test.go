//go:build linux

package dryrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/wardenhq/warden/sandbox"
	"golang.org/x/sys/unix"
)

// staged runs script through the dry run's helper in a new directory
// holding files (paths relative to it), where the dry run is supported,
// and returns the staging tmpfs (closed when the test ends) with a differ
// over it, and the directory.
func staged(t *testing.T, files map[string]string, script string) (*differ, string) {
	t.Helper()
	needDryRun(t)
	dir := t.TempDir()
	abs := map[string]string{}
	for name, content := range files {
		abs[filepath.Join(dir, name)] = content
	}
	writeFiles(t, abs)
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	receive, err := sandbox.Policy{Workdir: dir}.WrapDryRun(cmd, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	view, err := receive("view")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { view.Close() })
	return &differ{root: "/proc/self/fd/" + strconv.Itoa(int(view.Fd()))}, dir
}

// upper returns the upper layer's entry for host, failing the test when
// there is none.
func (d *differ) upperOf(t *testing.T, host string) (string, unix.Stat_t) {
	t.Helper()
	p, ok := d.upperPath(host)
	if !ok {
		t.Fatalf("%s: not in any upper layer", host)
	}
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return p, st
}

func TestG17_KernelOverlayUpperLayerHoldsWrites(t *testing.T) {
	d, dir := staged(t, map[string]string{"f": "one\n"}, "echo two >> f")
	p, st := d.upperOf(t, dir+"/f")
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\n" || st.Mode&unix.S_IFMT != unix.S_IFREG {
		t.Errorf("upper layer: %q, mode %o; want the copy-up with the write", b, st.Mode)
	}
	if b, _ := os.ReadFile(dir + "/f"); string(b) != "one\n" {
		t.Errorf("the real file changed: %q", b)
	}
}

func TestG17_KernelWhiteoutsMarkDeletes(t *testing.T) {
	d, dir := staged(t, map[string]string{"f": "one\n", "d/g": "g\n"}, "rm f && rm -r d && mkdir d")
	_, st := d.upperOf(t, dir+"/f")
	if st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != 0 {
		t.Errorf("f in the upper layer: mode %o rdev %d; want a whiteout (character device 0/0)", st.Mode, st.Rdev)
	}
	p, _ := d.upperOf(t, dir+"/d")
	if !opaque(p) {
		t.Errorf("d, removed and made again, is not opaque in the upper layer")
	}
	if _, err := os.Stat(dir + "/d/g"); err != nil {
		t.Errorf("the real file is gone: %v", err)
	}
}

func TestG17_KernelChmodCopiesUpUnchangedContents(t *testing.T) {
	d, dir := staged(t, map[string]string{"f": "same\n"}, "chmod 0600 f")
	p, st := d.upperOf(t, dir+"/f")
	if b, _ := os.ReadFile(p); string(b) != "same\n" || st.Mode&0o7777 != 0o600 {
		t.Errorf("upper layer: %q, mode %o; want the same contents, mode 0600", b, st.Mode&0o7777)
	}
	if fi, _ := os.Stat(dir + "/f"); fi.Mode().Perm() != 0o644 {
		t.Errorf("the real file's mode changed: %v", fi.Mode())
	}
}

func TestG17_KernelTopOfViewReadOnly(t *testing.T) {
	needDryRun(t)
	rep := run(t, t.TempDir(), "touch /warden-g17-top && echo MADE", Request{})
	if _, err := os.Stat("/warden-g17-top"); err == nil {
		os.Remove("/warden-g17-top")
		t.Fatal("a file was made at the real top of /")
	}
	if rep.Exit == 0 || len(rep.Creates) != 0 {
		t.Errorf("a new entry at the top of the view: exit %d, creates %v, %q", rep.Exit, rep.Creates, rep.Output)
	}
}
