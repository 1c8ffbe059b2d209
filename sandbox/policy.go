package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/internal/sandboxmode"
	"github.com/wardenhq/warden/sandbox/internal/confine"
)

// Mode is a sandbox mode: how far a command may write without asking.
type Mode = sandboxmode.Mode

// The sandbox modes (SPEC G1).
const (
	// ReadOnly lets a command read everything and write nothing but the
	// terminal and null devices.
	ReadOnly = sandboxmode.ReadOnly
	// WorkspaceWrite adds writing to the working directory, the configured
	// writable roots and the temporary directories, except protected paths.
	WorkspaceWrite = sandboxmode.WorkspaceWrite
	// FullAccess runs commands without any restriction.
	FullAccess = sandboxmode.FullAccess
)

// ParseMode returns the Mode named s ("read-only", "workspace-write" or
// "full-access"), or an error that lists the valid names.
func ParseMode(s string) (Mode, error) { return sandboxmode.Parse(s) }

// enforced reports whether the policy's mode restricts a command: false
// for full access, true for read-only and workspace-write, an error for
// any other mode.
func (p Policy) enforced() (bool, error) {
	switch p.Mode {
	case FullAccess:
		return false, nil
	case ReadOnly, WorkspaceWrite:
		return true, nil
	}
	return false, fmt.Errorf("sandbox: invalid mode %q", p.Mode)
}

// ProtectedNames are the entries of every writable root that stay read-only
// inside it. A .git that is a file ("gitdir: PATH", as in worktrees and
// submodules) also protects the directory it points to.
var ProtectedNames = []string{".git", ".warden", ".agents"}

// devicePaths are the devices every mode may write to (see
// confine.DevicePaths).
var devicePaths = confine.DevicePaths

// Policy says what a command may do: the sandbox mode, the working
// directory and extra writable roots, and whether it may use the network.
// The zero Mode is invalid; use ParseMode or one of the constants.
type Policy struct {
	// Mode is the sandbox mode.
	Mode Mode
	// Workdir is the working directory, writable in workspace-write mode.
	// Empty means the current directory of this process.
	Workdir string
	// WritableRoots are extra writable roots in workspace-write mode;
	// relative ones are taken relative to Workdir.
	WritableRoots []string
	// NetworkAccess lets commands use the network. Off by default.
	NetworkAccess bool
	// Unenforced records that the user explicitly accepted running without
	// kernel enforcement where Landlock is missing (warden's
	// --sandbox-unenforced). Without it, read-only and workspace-write
	// commands are refused on such kernels.
	Unenforced bool
	// TempDir names the run's private temporary root: in workspace-write
	// mode, commands see its subdirectories tmp, shm and tmpdir (made when
	// missing) at /tmp, /dev/shm and $TMPDIR, so what one command of the
	// run leaves there the next finds, and nothing of it meets the person
	// or a command outside the sandbox. Empty: every command gets new,
	// empty ones that go when it ends. The caller removes it with the run.
	TempDir string
}

// workdir returns the absolute, clean working directory of the policy.
func (p Policy) workdir() (string, error) {
	wd := p.Workdir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("sandbox: working directory: %w", err)
		}
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return "", fmt.Errorf("sandbox: working directory: %w", err)
	}
	return wd, nil
}

// abs returns path made absolute against the working directory, cleaned.
func (p Policy) abs(path string) (string, error) {
	if filepath.IsAbs(path) {
		return filepath.Clean(path), nil
	}
	wd, err := p.workdir()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, path), nil
}

// tempDirs are the temporary directories commands get private ones at in
// workspace-write mode (see Policy.TempDir).
func tempDirs() []string {
	return []string{os.TempDir(), "/tmp", "/dev/shm"}
}

// resolvedRoots returns the directories of the person's that commands may
// write under in workspace-write mode, with symbolic links resolved: the
// working directory and the configured writable roots, without
// duplicates. Roots that do not exist are left out. The temporary
// directories are not among them: commands get private ones (see
// Policy.TempDir), and where they cannot, none. It returns nil for
// read-only mode (nothing is writable but devices) and for full-access
// mode (nothing is restricted).
func (p Policy) resolvedRoots() []string {
	if p.Mode != WorkspaceWrite {
		return nil
	}
	var cands []string
	if wd, err := p.workdir(); err == nil {
		cands = append(cands, wd)
	}
	for _, r := range p.WritableRoots {
		if a, err := p.abs(r); err == nil {
			cands = append(cands, a)
		}
	}
	var out []string
	for _, c := range cands {
		real, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue
		}
		if !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// protectedAll returns the paths that stay read-only inside the writable
// roots: .git, .warden and .agents under each root (whether or not they
// exist), the targets of those that are symbolic links, and, for a .git
// file of the form "gitdir: PATH", the directory it names and that
// directory's common git directory (its "commondir" file); and warden's own
// state (statePaths) where it lies in a root. Paths are absolute, clean and
// sorted. It returns nil outside workspace-write mode.
func (p Policy) protectedAll() ([]string, error) {
	return protectedPaths(p.resolvedRoots())
}

// protectedPaths returns the protected paths of the resolved roots.
func protectedPaths(roots []string) ([]string, error) {
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, sp := range statePaths() {
		for _, root := range roots {
			if within(root, sp) {
				add(sp)
				break
			}
		}
	}
	for _, root := range roots {
		for _, name := range ProtectedNames {
			path := filepath.Join(root, name)
			add(path)
			fi, err := os.Lstat(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("sandbox: protected path: %w", err)
			}
			real, err := filepath.EvalSymlinks(path)
			if err == nil {
				add(real)
				if fi, err = os.Stat(real); err != nil {
					return nil, fmt.Errorf("sandbox: protected path: %w", err)
				}
			} else if fi.Mode()&fs.ModeSymlink != 0 {
				// A dangling link: a write through it would create its target.
				if t, err := resolvePath(path); err == nil {
					add(t)
				}
				continue
			}
			if name != ".git" || !fi.Mode().IsRegular() {
				continue
			}
			dirs, err := gitdirTargets(path)
			if err != nil {
				return nil, err
			}
			for _, d := range dirs {
				add(d)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// gitdirTargets reads a .git file ("gitdir: PATH") and returns the git
// directory it names and, when that directory has a "commondir" file, the
// common directory too, both resolved. A file without a gitdir line gives
// nothing.
func gitdirTargets(gitFile string) ([]string, error) {
	data, err := readSmall(gitFile)
	if err != nil {
		return nil, fmt.Errorf("sandbox: reading %s: %w", gitFile, err)
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	if !ok {
		return nil, nil
	}
	target := strings.TrimSpace(rest)
	if target == "" {
		return nil, nil
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(gitFile), target)
	}
	target, err = resolvePath(target)
	if err != nil {
		return nil, err
	}
	out := []string{target}
	if cd, err := readSmall(filepath.Join(target, "commondir")); err == nil {
		c := strings.TrimSpace(firstLine(cd))
		if c != "" {
			if !filepath.IsAbs(c) {
				c = filepath.Join(target, c)
			}
			if c, err = resolvePath(c); err == nil && c != target {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// readSmall reads at most 64 KiB of a file.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 64<<10))
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line)
}

// CanWrite reports whether the policy lets a command write to path: the
// same decision the kernel makes for sandboxed commands, made in user space
// for tools that write from the warden process itself (such as
// text_editor). A relative path is taken relative to Workdir. Symbolic
// links are followed, including a dangling last one (writing through it
// would create its target), so a link inside a writable root that points
// outside it, or into a protected path, is not writable.
//
// A protected path that does not exist yet (.warden in a root without one)
// is refused here too; for commands, the kernel cannot refuse it, and
// Watch and Sweep move it away afterwards. The host's temporary
// directories are refused (outside a root): sandboxed commands write
// private ones, and a write from warden's process would reach the person's.
func (p Policy) CanWrite(path string) bool {
	if p.Mode == FullAccess {
		return true
	}
	if path == "" {
		return false
	}
	a, err := p.abs(path)
	if err != nil {
		return false
	}
	real, err := resolvePath(a)
	if err != nil {
		return false
	}
	for _, d := range devicePaths {
		if real == d || (d == "/dev/pts" && within(d, real)) {
			return true
		}
	}
	if p.Mode != WorkspaceWrite {
		return false
	}
	roots := p.resolvedRoots()
	protected, err := protectedPaths(roots)
	if err != nil {
		return false
	}
	for _, pr := range protected {
		if within(pr, real) {
			return false
		}
	}
	for _, root := range roots {
		if within(root, real) {
			// Protected names at any depth (a nested repository's
			// .git, one that does not exist yet).
			rel, _ := filepath.Rel(root, real)
			for _, c := range splitPath(rel) {
				if slices.Contains(ProtectedNames, c) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// within reports whether path is dir or lies under it; both are absolute
// and clean.
func within(dir, path string) bool { return confine.Within(dir, path) }

// maxSymlinks bounds the symbolic links resolvePath follows, as the kernel
// does (ELOOP).
const maxSymlinks = 40

// resolvePath returns the absolute, clean path p with every symbolic link
// followed, component by component, as the kernel would when opening it
// for writing. Components from the first one that does not exist on are
// appended as they are (after lexical cleaning), so a dangling last link
// resolves to the file a write through it would create.
func resolvePath(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("sandbox: %q is not absolute", p)
	}
	todo := splitPath(p)
	cur := "/"
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				// Nothing from here on exists: no more links to follow.
				return filepath.Clean(filepath.Join(append([]string{next}, todo...)...)), nil
			}
			return "", fmt.Errorf("sandbox: resolving %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", fmt.Errorf("sandbox: resolving %s: too many levels of symbolic links", p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("sandbox: resolving %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		todo = append(splitPath(target), todo...)
	}
	return cur, nil
}

// splitPath splits a path into its non-empty components.
func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}
