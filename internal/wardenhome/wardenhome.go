// Package wardenhome says where warden keeps its own state: its home
// directory ($WARDEN_HOME, default ~/.warden) and the managed
// (administrator) configuration file. Package sandbox protects both in every
// mode.
package wardenhome

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/wardenhq/warden/internal/fspath"
)

// Where warden keeps its own state, as the rest of warden reads it (the
// sandbox protects it, task keeps runs and keys under the home directory,
// autoreview reads the managed configuration).
const (
	// EnvHome names warden's home directory; it defaults to ~/.warden.
	EnvHome = "WARDEN_HOME"
	// EnvManagedConfig names the managed (administrator) configuration
	// file; it defaults to DefaultManagedConfig.
	EnvManagedConfig = "WARDEN_MANAGED_CONFIG"
	// DefaultManagedConfig is the managed configuration file when
	// EnvManagedConfig is unset.
	DefaultManagedConfig = "/etc/warden/managed.toml"
	// EnvToken names the API token of `warden serve`: whoever holds it
	// decides requests, so the agent's commands never see it (ToolEnv).
	EnvToken = "WARDEN_TOKEN"
	// EnvRunToken names a run credential given in the environment (for a
	// run, hook or gateway on another machine than its server); by
	// default it is read from $WARDEN_HOME/token.
	EnvRunToken = "WARDEN_RUN_TOKEN"
)

// EnvDB names the store's database URL, which may carry its password:
// whoever can write the store can decide the requests queued there.
const EnvDB = "WARDEN_DB"

// ToolEnv returns environ without warden's own credentials (EnvToken,
// EnvRunToken, the store's URL EnvDB) and without EnvHome, which says where
// the rest are kept, for the processes the agent's tools start (SPEC S4).
func ToolEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if name, _, _ := strings.Cut(kv, "="); name == EnvToken || name == EnvRunToken || name == EnvDB || name == EnvHome {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// KeyPath returns where warden keeps the state key that authenticates
// denials and overrides (SPEC G15): keys/override.key in Home, else in
// .warden of the working directory when no home can be found. Runs,
// hooks, `warden mcp` and `warden serve` seal and verify with it.
func KeyPath() string {
	home := Home()
	if home == "" {
		home = ".warden"
	}
	return filepath.Join(home, "keys", "override.key")
}

// Home returns warden's home directory: $WARDEN_HOME, or ~/.warden,
// absolute and clean; "" when neither can be found.
func Home() string {
	h := os.Getenv(EnvHome)
	if h == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		h = filepath.Join(home, ".warden")
	}
	a, err := filepath.Abs(h)
	if err != nil {
		return ""
	}
	return a
}

// ManagedConfig returns the managed (administrator) configuration file:
// $WARDEN_MANAGED_CONFIG, or DefaultManagedConfig, absolute and clean.
func ManagedConfig() string {
	m := os.Getenv(EnvManagedConfig)
	if m == "" {
		m = DefaultManagedConfig
	}
	a, err := filepath.Abs(m)
	if err != nil {
		return ""
	}
	return a
}

// Paths returns where warden keeps its state, which no tool of the agent
// may list, read or write in any sandbox mode (SPEC G15, G16): Home(),
// ~/.warden and ManagedConfig(), absolute and clean, without duplicates.
// They need not exist.
func Paths() []string {
	var out []string
	add := func(p string) {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add(Home())
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		add(filepath.Join(home, ".warden"))
	}
	add(ManagedConfig())
	return out
}

// Covers reports whether the absolute path p, with its links already
// resolved as the kernel resolves them (fspath.Resolve), is warden's state
// or lies in it: equal to or under one of Paths(), each taken both as
// written and resolved the same way. A state path that cannot be resolved
// is taken as written.
func Covers(p string) bool {
	p = filepath.Clean(p)
	for _, s := range Paths() {
		cands := []string{s}
		if r, _, err := fspath.Resolve(s, nil); err == nil && r != s {
			cands = append(cands, r)
		}
		for _, c := range cands {
			if p == c || strings.HasPrefix(p, c+"/") || c == "/" {
				return true
			}
		}
	}
	return false
}

// CheckRoot refuses a directory the agent's tools would work in or write
// to — a workspace, a writable root — that is warden's state or lies in it
// (SPEC G16): its tools could then read the store, the keys and the token,
// whatever the sandbox. what names the directory for the message ("the
// workspace", "--writable-root"). dir is made absolute and resolved as the
// kernel resolves it; a directory that contains warden's home (such as
// $HOME) is fine: the state in it stays covered.
func CheckRoot(what, dir string) error {
	abs := dir
	if !filepath.IsAbs(abs) {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("%s %s: %w", what, dir, err)
		}
		abs = wd + "/" + dir // not cleaned: ".." is the kernel's to apply
	}
	real, _, err := fspath.Resolve(abs, nil)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, dir, err)
	}
	if Covers(real) {
		return fmt.Errorf("%s %s is inside warden's own state (%s), which no tool may read or write: choose a directory outside it", what, dir, strings.Join(Paths(), ", "))
	}
	return nil
}

// ConfigSources are the configuration files a run reads its settings from
// — the auto-review policy (SPEC G8), the first pass's programs files. An
// empty path, or a file that does not exist, is skipped.
type ConfigSources struct {
	// ManagedPath is the administrator's file, whose settings win.
	ManagedPath string
	// UserConfigPath is the user's file.
	UserConfigPath string
}

// DefaultConfigSources returns the managed file named by
// WARDEN_MANAGED_CONFIG (default /etc/warden/managed.toml) and config.toml in
// WARDEN_HOME (default ~/.warden). When the home directory cannot be found,
// UserConfigPath is empty.
func DefaultConfigSources() ConfigSources {
	src := ConfigSources{ManagedPath: ManagedConfig()}
	if home := Home(); home != "" {
		src.UserConfigPath = filepath.Join(home, "config.toml")
	}
	return src
}

// ErrExposed is the error of a file of warden's state that has more than
// one name (Exposed).
var ErrExposed = errors.New("it has another name (a hard link), which warden's sandbox does not hide")

// Links returns the number of names (hard links) of the file fi
// describes; 1 when the system does not say.
func Links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st != nil {
		return uint64(st.Nlink)
	}
	return 1
}

// Exposed reports whether the open file f, a file of warden's state, has
// more than one name. The sandbox hides warden's state by path, not by
// inode (SPEC G16): a hard link to a state file made beforehand somewhere a
// tool may read — the workspace — reads the same bytes, so a secret in such
// a file counts as known to whoever can read that other name. A second
// name that goes away within settle — warden writing a new file under a
// temporary name and linking it into place — does not count.
func Exposed(f *os.File) (bool, error) {
	deadline := time.Now().Add(settle)
	for {
		fi, err := f.Stat()
		if err != nil {
			return false, err
		}
		if Links(fi) <= 1 {
			return false, nil
		}
		if time.Now().After(deadline) {
			return true, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settle is how long Exposed waits for a second name to go away.
const settle = 100 * time.Millisecond

// Retire removes the name path of an exposed secret file of warden's
// state, so that a new secret is made in a new file: the other names keep
// the old secret, which is no longer used. It says so on stderr, naming
// what the secret is. It removes path only while path still names the
// open file f (another warden may have replaced it already).
func Retire(path string, f *os.File, what string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	now, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	if !os.SameFile(now, fi) {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %s is exposed (%w), and it cannot be replaced: %w", what, path, ErrExposed, err)
	}
	fmt.Fprintf(os.Stderr, "warden: %s %s had %d names (hard links), which warden's sandbox does not hide: it is treated as exposed and replaced by a new one; the old one is no longer accepted\n",
		what, path, Links(fi))
	return nil
}

// RetireExposed retires (Retire) each of the secret files of warden's state
// at paths that is Exposed, so that whatever uses it next makes a new
// secret. A path that does not exist is skipped. Errors are returned
// joined; a secret that could not be retired stays refused by its reader.
func RetireExposed(paths ...string) error {
	var errs []error
	for _, p := range paths {
		if p == "" {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		exposed, err := Exposed(f)
		if err == nil && exposed {
			err = Retire(p, f, "warden's secret")
		}
		f.Close()
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// CreateSecret writes data to a new file at path, readable by its owner
// only, atomically and only when no file is there: a complete file appears
// at path, or nothing does; os.ErrExist when path exists (another process
// may be creating it too). The file is written under a temporary name
// made from pattern (see os.CreateTemp) in path's directory, which must
// exist.
func CreateSecret(path, pattern string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}

// DBURL returns the store's database URL to use: flag if set, else
// $WARDEN_DB, else "" (the default store, SQLite in $WARDEN_HOME).
func DBURL(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv(EnvDB)
}

// Rewrite replaces the contents of the small state file at path with
// data, in place, creating it (0600) if it is missing and never through a
// link: the session state, the spool's cursors and its read position. A
// reader that races it may see a short or mixed file, which each of those
// readers checks (a MAC, a number) and reads as absent.
func Rewrite(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
