package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/copytree"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// statePaths returns warden's own state, which no sandboxed command may
// change in any mode (SPEC G15): $WARDEN_HOME, ~/.warden and the managed
// configuration file ($WARDEN_MANAGED_CONFIG, default
// /etc/warden/managed.toml), absolute and clean, with symbolic links
// resolved as a write would follow them, without duplicates. They need not
// exist.
func statePaths() []string {
	var out []string
	for _, c := range wardenhome.Paths() {
		for _, p := range []string{filepath.Clean(c), resolvedOr(c)} {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func resolvedOr(p string) string {
	if r, err := resolvePath(filepath.Clean(p)); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// stateDirs are the state paths that are directories warden creates when
// they are missing (the homes, not the managed file).
func stateDirs() []string {
	var out []string
	if h := wardenhome.Home(); h != "" {
		out = append(out, h)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		out = append(out, filepath.Join(home, ".warden"))
	}
	return out
}

// ensureState creates warden's home directories that lie in a writable
// root and do not exist yet, so that they can be bound read-only: a
// workspace equal to $HOME must not be able to plant ~/.warden/config.toml.
func ensureState(roots []string) error {
	for _, d := range stateDirs() {
		real := resolvedOr(d)
		in := false
		for _, r := range roots {
			if within(r, real) {
				in = true
				break
			}
		}
		if !in {
			continue
		}
		if _, err := os.Lstat(real); errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(real, 0o700); err != nil {
				return fmt.Errorf("sandbox: creating %s to protect it: %w", real, err)
			}
		}
	}
	return nil
}

// fileKey identifies a file: its device and inode, and, so that a new file
// that reuses a removed one's inode number is not taken for it, its type
// and birth time where the file system records one (0 elsewhere).
type fileKey struct {
	dev, ino uint64
	typ      uint32
	born     int64
}

// Watch records the protected names (.git, .warden, .agents) present, at
// any depth, in a policy's working directory and configured writable roots
// before a command runs, and the state paths missing then; Sweep, after the
// command, moves away what it created. Protected paths that exist are
// kept read-only by the kernel; those that do not cannot be (nothing
// there to bind, and no kernel mechanism refuses one name in a writable
// directory), so a command can create them — a .git with hooks/ or
// core.fsmonitor runs code the next time the person uses git there — and
// Sweep undoes it. The temporary directories are not walked.
type Watch struct {
	roots  []string
	before map[string]fileKey
	absent []string
	start  time.Time
}

// Quarantined is a protected path a command created, and where Sweep moved
// it.
type Quarantined struct {
	// Path is where the command created it.
	Path string
	// To is where it is now, under warden's home directory.
	To string
}

// Watch returns a record of the protected names in the policy's roots, to
// call Sweep on once the command has ended. It returns nil, and Sweep does
// nothing, outside workspace-write mode (read-only commands create
// nothing; full-access ones are not restricted).
func (p Policy) Watch() (*Watch, error) {
	if p.Mode != WorkspaceWrite {
		return nil, nil
	}
	// Probing the kernel, which Wrap needs, may write warden's home (the
	// probe's cache): done first, so that Sweep does not take warden's own
	// files for ones the command created.
	_ = namespaces()
	w := &Watch{before: map[string]fileKey{}, start: time.Now()}
	// The command's start creates them anyway, to protect them.
	if err := ensureState(p.resolvedRoots()); err != nil {
		return nil, err
	}
	w.roots = p.walkRoots()
	for _, r := range w.roots {
		for path, key := range protectedNamesUnder(r) {
			w.before[path] = key
		}
	}
	for _, sp := range statePaths() {
		if _, err := os.Lstat(sp); errors.Is(err, fs.ErrNotExist) {
			w.absent = append(w.absent, sp)
		}
	}
	return w, nil
}

// WatchAndWrap is Watch followed by Wrap(cmd), with a single walk of the
// roots for both: the walk costs what the roots' directories cost the
// kernel, for every command. Call Sweep on the Watch (nil outside
// workspace-write mode) once the command has ended.
func (p Policy) WatchAndWrap(cmd *exec.Cmd) (*Watch, error) {
	w, err := p.Watch()
	if err != nil {
		return nil, err
	}
	var found map[string]fileKey
	if w != nil {
		found = w.before
	}
	if err := p.wrap(cmd, found); err != nil {
		return nil, err
	}
	return w, nil
}

// walkRoots returns the roots whose protected names are looked for at any
// depth: the working directory and the configured writable roots,
// resolved (resolvedRoots). The private temporary directories are not the
// person's, and are not walked.
func (p Policy) walkRoots() []string { return p.resolvedRoots() }

// nestedProtected returns the protected names that exist at any depth of
// the walked roots, and the git directories their .git files name. found
// is what a walk of the roots found already (a Watch's), nil to walk them
// now.
func (p Policy) nestedProtected(found map[string]fileKey) ([]string, error) {
	if found == nil {
		found = map[string]fileKey{}
		for _, r := range p.walkRoots() {
			maps.Copy(found, protectedNamesUnder(r))
		}
	}
	var out []string
	for path := range found {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			continue // gone, or a link: its target is decided where it points
		}
		out = append(out, path)
		if filepath.Base(path) == ".git" && fi.Mode().IsRegular() {
			dirs, err := gitdirTargets(path)
			if err != nil {
				return nil, err
			}
			out = append(out, dirs...)
		}
	}
	slices.Sort(out) // map order: the helper's arguments stay the same
	return out, nil
}

// protectedNamesUnder walks root without following links and returns the
// entries named like protected paths, with their identity; it does not
// descend into them. Directories it cannot read are left out.
func protectedNamesUnder(root string) map[string]fileKey {
	out := map[string]fileKey{}
	walkNames(root, out)
	return out
}

// Sweep moves every protected name created in the roots since Watch, and
// every state path created since, to a new directory under warden's home
// ("quarantine/TIME-PID/" followed by the original absolute path), and
// returns what it moved. Call it once the command and everything it
// started have ended. The error reports paths it could not move.
//
// What the command created is told by identity, not by name: an entry
// whose identity (device, inode, type, birth time) Watch did not record.
// So a .git that existed before stays where it is even when the command
// renamed a directory above it, and a new .git at the name of one that
// existed (after moving that away) is moved. No link is followed, neither
// by the walk nor by the move, which checks, in the directory it opened,
// that the entry is still the one the walk found.
func (w *Watch) Sweep() ([]Quarantined, error) {
	if w == nil {
		return nil, nil
	}
	known := make(map[fileKey]bool, len(w.before))
	for _, key := range w.before {
		known[key] = true
	}
	found := map[string]fileKey{}
	var created []string
	for _, r := range w.roots {
		for path, key := range protectedNamesUnder(r) {
			if !known[key] {
				created = append(created, path)
				found[path] = key
			}
		}
	}
	for _, sp := range w.absent {
		if _, err := os.Lstat(sp); err == nil {
			created = append(created, sp)
		}
	}
	if len(created) == 0 {
		return nil, nil
	}
	slices.Sort(created)
	home := wardenhome.Home()
	if home == "" {
		return nil, fmt.Errorf("sandbox: no home directory to quarantine %s in", strings.Join(created, ", "))
	}
	qdir := filepath.Join(home, "quarantine", w.start.UTC().Format("20060102T150405.000000000Z")+"-"+strconv.Itoa(os.Getpid()))
	var moved []Quarantined
	var errs []error
	for _, path := range created {
		to := filepath.Join(qdir, path)
		key, walked := found[path]
		if !walked {
			key, _ = keyOf(path) // a state path: reached by its own name
		}
		if err := moveAway(path, to, key); err != nil {
			errs = append(errs, fmt.Errorf("sandbox: quarantining %s: %w", path, err))
			continue
		}
		moved = append(moved, Quarantined{Path: path, To: to})
	}
	return moved, errors.Join(errs...)
}

// moveAway moves path, the file key identifies, to to, creating to's
// parent; across file systems it copies and then removes.
func moveAway(path, to string, key fileKey) error {
	err := renameNoFollow(path, to, key)
	if err == nil {
		return nil
	}
	var le *os.LinkError
	if !errors.As(err, &le) || !isCrossDevice(le.Err) {
		return err
	}
	if err := copytree.Copy(path, to, copytree.Options{Exclusive: true}); err != nil {
		return err
	}
	return os.RemoveAll(path)
}

// secretNames are the entries of warden's home that a sandboxed command
// may not read when the home itself cannot be hidden (a writable root lies
// inside it): the keys that authenticate overrides, the transcripts, the
// quarantine, the server's token and the store (with SQLite's write-ahead
// log, shared memory and journal files beside it).
func secretNames() []string {
	return []string{"keys", "runs", "quarantine", "token", "tmp", "warden.db", "warden.db-wal", "warden.db-shm", "warden.db-journal"}
}

// hiddenPaths returns what of warden's state the sandbox hides from reads
// (SPEC G15): each of warden's home directories that exists, or, where a
// writable root lies inside one, its secret entries that hold no root. A
// hidden directory shows as empty and unreadable, a hidden file as empty.
// Without this, a sandboxed command could read the key that authenticates
// a person's overrides and forge one.
func hiddenPaths(roots []string) []string {
	holdsRoot := func(p string) bool {
		for _, r := range roots {
			if within(p, r) {
				return true
			}
		}
		return false
	}
	var out []string
	add := func(p string) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink == 0 && (fi.IsDir() || fi.Mode().IsRegular()) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, d := range stateDirs() {
		real := resolvedOr(d)
		if !holdsRoot(real) {
			add(real)
			continue
		}
		for _, n := range secretNames() {
			if c := filepath.Join(real, n); !holdsRoot(c) {
				add(c)
			}
		}
	}
	return out
}
