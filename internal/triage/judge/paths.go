package judge

import (
	"os"
	"path"
	"strings"

	"github.com/wardenhq/warden/internal/command"
	"github.com/wardenhq/warden/internal/fspath"
	"github.com/wardenhq/warden/internal/triage/secret"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// zone is where a path lies, from the agent's point of view.
type zone int

const (
	ZWork    zone = iota // inside the workspace (the action's directory)
	ZTmp                 // a temporary directory
	ZHome                // the user's home, outside the workspace
	ZSystem              // anywhere else: system directories, other users
	ZDevice              // a device file other than the harmless ones
	ZNull                // /dev/null, the standard streams
	zUnknown             // not known (a variable, a directory changed to an unknown one)
)

// String names the zone, for messages.
func (z zone) String() string {
	switch z {
	case ZWork:
		return "the workspace"
	case ZTmp:
		return "a temporary directory"
	case ZHome:
		return "the home directory"
	case ZSystem:
		return "a system path"
	case ZDevice:
		return "a device"
	case ZNull:
		return "a null device"
	}
	return "an unknown path"
}

// place is a resolved path.
type place struct {
	Abs  string // cleaned absolute path ("~/…" when the home is unknown); "" when unknown
	rel  string // path relative to the workspace root, when in it ("." for the root)
	Zone zone
	Item bool // something find or xargs found under abs, not abs itself
	// State is true when the path is, or lies in, warden's own state
	// ($WARDEN_HOME, ~/.warden, the managed configuration).
	State bool
}

// HarmlessDevices are device files writing to or reading from is harmless.
var HarmlessDevices = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/stdin": true,
	"/dev/tty": true, "/dev/random": true, "/dev/urandom": true, "/dev/full": true, "/dev/fd/1": true,
	"/dev/fd/2": true, "/dev/fd/0": true,
}

// Where resolves p, a word (already expanded as far as possible), in the
// directory cwd ("" when unknown).
func (s *Script) Where(p, cwd string) place {
	if p == "" {
		return place{Zone: zUnknown}
	}
	if i := strings.IndexByte(p, '\x01'); i >= 0 {
		// An item find or xargs feeds the command: under its root.
		root := strings.TrimSuffix(p[:i], "/")
		if root == "" && i > 0 {
			root = "/"
		}
		if root == "" || strings.IndexByte(root, 0) >= 0 {
			return place{Zone: zUnknown, Item: true}
		}
		pl := s.Where(root, cwd)
		pl.Item = true
		return pl
	}
	// Only the part before the first unresolved expansion is known.
	known := p
	if i := strings.IndexAny(p, "$`"); i >= 0 {
		known = p[:i]
		if i == 0 {
			return place{Zone: zUnknown}
		}
		// "$X" inside a word: the directory part before it is known.
		if j := strings.LastIndexByte(known, '/'); j >= 0 {
			known = known[:j+1]
		} else {
			known = ""
		}
		if known == "" {
			if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
				return place{Zone: zUnknown}
			}
			// A relative word with a variable name part ("build/$X" was
			// handled above): somewhere in cwd.
			known = "."
		}
	}
	var abs string
	switch {
	case known == "~" || strings.HasPrefix(known, "~/"):
		if s.Home != "" {
			abs = s.Home + known[1:]
		} else {
			abs = "~" + known[1:]
		}
	case strings.HasPrefix(known, "~"):
		// ~user: another user's home.
		user, rest, _ := strings.Cut(strings.TrimPrefix(known, "~"), "/")
		home := "/home/" + user
		if user == "root" {
			home = "/root"
		}
		return s.classify(cleanPath(home + "/" + rest))
	case strings.HasPrefix(known, "/"):
		abs = known
	default:
		if cwd == "" {
			return place{Zone: zUnknown}
		}
		abs = cwd + "/" + known
	}
	return s.classify(s.resolve(abs))
}

// resolve cleans abs and, for an absolute path outside /dev and /proc,
// resolves it the way the kernel will: symbolic links on disk and those
// the script made before, ".." applied to where the path has got to. A
// path that cannot be resolved (a link loop) is returned as written.
func (s *Script) resolve(abs string) string {
	clean := cleanPath(abs)
	if !strings.HasPrefix(clean, "/") || clean == "/dev" || strings.HasPrefix(clean, "/dev/") || strings.HasPrefix(clean, "/proc/") {
		return clean
	}
	var links fspath.Links
	if len(s.links) > 0 {
		links = func(p string) (string, bool) {
			t, ok := s.links[p]
			return t, ok
		}
	} else if !s.plantable(clean) {
		// Links in system directories are the administrator's, not the
		// agent's: they resolve where the system means them to.
		return clean
	} else if _, in := within(clean, s.Work); in && !s.workDisk {
		// A workspace that is not on this machine (a recorded action)
		// holds no links to look up.
		return clean
	}
	r, _, err := fspath.Resolve(abs, links)
	if err != nil {
		return clean
	}
	return r
}

// plantable reports whether a symbolic link along the cleaned absolute
// path p could be the agent's: p lies in the workspace, the home
// directory or a temporary directory.
func (s *Script) plantable(p string) bool {
	if _, ok := within(p, s.Work); ok {
		return true
	}
	if _, ok := within(p, s.Home); ok {
		return true
	}
	for _, t := range []string{"/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/dev/shm"} {
		if _, ok := within(p, t); ok {
			return true
		}
	}
	return false
}

// Link records that the script makes the symbolic link at path link (a
// word, relative to cwd) point to target, so later paths through it
// resolve there.
func (s *Script) Link(target, link, cwd string) {
	pl := s.Where(link, cwd)
	if pl.Abs == "" || !strings.HasPrefix(pl.Abs, "/") || strings.ContainsAny(target, "$`") {
		return
	}
	if s.links == nil {
		s.links = map[string]string{}
	}
	if strings.HasPrefix(target, "~") {
		target = s.Where(target, cwd).Abs
	}
	s.links[pl.Abs] = target
}

// wardenDirs returns where warden keeps its own state: $WARDEN_HOME
// (as written and resolved), ~/.warden of the action's home and of the
// user running warden, the directory of $WARDEN_MANAGED_CONFIG, and
// /etc/warden. It is worked out once per judgement, when first needed.
func (s *Script) wardenDirs() []string {
	if s.stateSet {
		return s.state
	}
	s.stateSet = true
	s.state = s.V.K.stateDirs(s.Home, s.V.fresh)
	return s.state
}

// stateDirs is wardenDirs for the action's home directory home ("" when
// unknown), remembered while the file system's answers in it are
// (lookups.go): it reads the environment each time. fresh asks the file
// system afresh (Judgement.fresh), and remembers what it says.
func (k *Knowledge) stateDirs(home string, fresh bool) []string {
	k = k.or()
	key := stateKey{env: os.Getenv(wardenhome.EnvHome), managed: os.Getenv("WARDEN_MANAGED_CONFIG"), home: home}
	user, err := os.UserHomeDir()
	if err == nil {
		key.user, key.userOK = user, true
	}
	if dirs, ok := k.fs.getState(key); ok && !fresh {
		return dirs
	}
	out := make([]string, 1, 8) // room for every directory below
	out[0] = "/etc/warden"
	stable := true
	add := func(p string, resolve bool) {
		if p == "" || !strings.HasPrefix(p, "/") {
			return
		}
		p = path.Clean(p)
		out = append(out, p)
		if resolve {
			stable = stable && !AgentCanChange(p, k.roots)
			if r, ok := k.resolveDir(p, fresh); ok && r != p {
				out = append(out, r)
			}
		}
	}
	add(key.env, true)
	if key.managed != "" {
		add(path.Dir(key.managed), true)
	}
	if home != "" {
		add(home+"/.warden", false)
	}
	if key.userOK {
		add(user+"/.warden", false)
	}
	if stable {
		k.fs.putState(key, out)
	}
	return out
}

func cleanPath(p string) string {
	if strings.HasPrefix(p, "~") {
		return "~" + cleanRest(p[1:])
	}
	return path.Clean(p)
}

func cleanRest(p string) string {
	if p == "" {
		return ""
	}
	c := path.Clean("/" + p)
	if c == "/" {
		return ""
	}
	return c
}

// classify finds the zone of a cleaned absolute path.
func (s *Script) classify(abs string) place {
	pl := place{Abs: abs, Zone: ZSystem}
	for _, st := range s.wardenDirs() {
		if _, ok := within(abs, st); ok {
			pl.State = true
			break
		}
	}
	if strings.HasPrefix(abs, "~/.warden") && (len(abs) == 9 || abs[9] == '/') {
		pl.State = true
	}
	if HarmlessDevices[abs] || strings.HasPrefix(abs, "/dev/fd/") || strings.HasPrefix(abs, "/proc/self/fd/") {
		pl.Zone = ZNull
		return pl
	}
	if strings.HasPrefix(abs, "/dev/") {
		if strings.HasPrefix(abs, "/dev/shm/") || abs == "/dev/shm" {
			pl.Zone = ZTmp
		} else {
			pl.Zone = ZDevice
		}
		return pl
	}
	if rel, ok := within(abs, s.Work); ok {
		pl.Zone, pl.rel = ZWork, rel
		return pl
	}
	for _, r := range s.roots {
		if rel, ok := within(abs, r); ok {
			pl.Zone, pl.rel = ZWork, rel
			return pl
		}
	}
	for _, t := range []string{"/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp"} {
		if _, ok := within(abs, t); ok {
			pl.Zone = ZTmp
			return pl
		}
	}
	if strings.HasPrefix(abs, "~") {
		pl.Zone = ZHome
		return pl
	}
	if s.Home != "" {
		if _, ok := within(abs, s.Home); ok {
			pl.Zone = ZHome
		}
	}
	return pl
}

// within reports whether p is dir or below it, and the path relative to
// dir.
func within(p, dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	if p == dir {
		return ".", true
	}
	if strings.HasPrefix(p, dir) && (dir == "/" || p[len(dir)] == '/') {
		if dir == "/" {
			return p[1:], true
		}
		return p[len(dir)+1:], true
	}
	return "", false
}

// HomeOf guesses the home directory from a working directory under
// /home/NAME, /Users/NAME or /root.
func HomeOf(cwd string) string {
	for _, pre := range []string{"/home/", "/Users/"} {
		if rest, ok := strings.CutPrefix(cwd, pre); ok {
			name, _, _ := strings.Cut(rest, "/")
			if name != "" {
				return cwd[:len(pre)+len(name)] // pre + name, without building it
			}
		}
	}
	if cwd == "/root" || strings.HasPrefix(cwd, "/root/") {
		return "/root"
	}
	return ""
}

// HomeRel returns p relative to the home directory ("" for the home
// itself), and whether p is in it.
func (s *Script) HomeRel(abs string) (string, bool) {
	if strings.HasPrefix(abs, "~") {
		return strings.TrimPrefix(strings.TrimPrefix(abs, "~"), "/"), true
	}
	if s.Home == "" {
		return "", false
	}
	r, ok := within(abs, s.Home)
	if r == "." {
		r = ""
	}
	return r, ok
}

// Secret describes the credential a path holds: its level and what it is.
func (s *Script) Secret(pl place) (int, string) {
	p := pl.Abs
	if p == "" {
		p = pl.rel
	}
	if p == "" {
		return secret.None, ""
	}
	return s.V.K.or().secrets.of(p, s.Home == "/root" || pl.Zone == ZWork)
}

// SecretPath is the package's secretPath for a path of this script: when
// the person's home is /root (warden runs as root), /root is their home —
// its workspace, caches and files are judged as any home's are — not "the
// root user's files" (SPEC G15).
func (s *Script) SecretPath(p string) (int, string) {
	return s.V.K.or().secrets.of(p, s.Home == "/root")
}

// buildOutputs are directory and file names that hold generated build
// output, caches or dependencies a tool recreates: deleting them is a
// scoped, recoverable cleanup.
var buildOutputs = map[string]bool{
	"build": true, "dist": true, "out": true, "target": true, "node_modules": true, ".next": true,
	".nuxt": true, ".svelte-kit": true, "__pycache__": true, ".pytest_cache": true, ".mypy_cache": true,
	".ruff_cache": true, "coverage": true, ".coverage": true, "htmlcov": true, ".tox": true, ".nox": true,
	".cache": true, ".parcel-cache": true, ".turbo": true, ".gradle": true, "obj": true, ".eggs": true,
	"tmp": true, ".tmp": true, "temp": true, "cover.out": true, "coverage.out": true, "coverage.html": true,
	"coverage.xml": true, ".nyc_output": true, "storybook-static": true, "_build": true,
	"cmake-build-debug": true, "cmake-build-release": true, ".angular": true, ".expo": true, "lib-cov": true,
}

// isBuildOutput reports whether a workspace-relative path is (inside) a
// build output, or an artefact such as *.o, *.pyc or *.egg-info.
func isBuildOutput(rel string) bool {
	if rel == "" || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	for _, part := range strings.Split(rel, "/") {
		if buildOutputs[part] || strings.HasSuffix(part, ".egg-info") {
			return true
		}
	}
	base := path.Base(rel)
	for _, ext := range []string{".o", ".a", ".pyc", ".pyo", ".class", ".log", ".orig", ".rej", ".tmp", ".bak", ".swp"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return false
}

// IsCacheDir reports whether a path relative to the home directory is in a
// cache that tools recreate.
func IsCacheDir(rel string) bool {
	for _, c := range []string{".cache/", "Library/Caches/", ".npm/_cacache", ".npm/_logs", ".gradle/caches",
		".m2/repository", "go/pkg/mod/cache", ".cargo/registry/cache", ".pnpm-store", ".yarn/cache", ".bun/install/cache"} {
		if strings.HasPrefix(rel+"/", c) || strings.HasPrefix(rel, c) {
			return rel+"/" != c
		}
	}
	return false
}

// StartupFile reports whether writing abs changes what runs later (see
// command.Persistent).
func StartupFile(abs string) (bool, string) { return command.Persistent(abs) }

// CriticalSystemPath reports whether deleting or overwriting abs (a
// system path) would break the system or its accounts.
func CriticalSystemPath(abs string) bool {
	// Each directory below starts with one of these: a path that does
	// not is none of them, found without comparing it to each.
	first, _, _ := strings.Cut(strings.TrimPrefix(abs, "/"), "/")
	switch first {
	case "etc", "boot", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "System", "Library", "private", "var":
	default:
		return false
	}
	for _, d := range []string{"/etc", "/boot", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
		"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64", "/usr/libexec", "/usr/share", "/usr/include",
		"/System", "/Library", "/private/etc", "/var/lib/dpkg", "/var/lib/rpm", "/var/log"} {
		if _, ok := within(abs, d); ok {
			return true
		}
	}
	return false
}

// BroadPath describes a path whose removal or recursive change wrecks a
// system or a user: /, a top-level directory, the home directory, /home.
func (s *Script) BroadPath(pl place) string {
	if pl.Item {
		return ""
	}
	switch pl.Abs {
	case "/":
		return "the whole file system"
	case "~", s.Home:
		if pl.Abs != "" {
			return "the home directory"
		}
	case "/home", "/Users", "/root":
		return pl.Abs
	}
	if topLevel[pl.Abs] {
		return pl.Abs
	}
	return ""
}

// topLevel are the system directories whose removal or recursive change
// wrecks a system.
var topLevel = map[string]bool{
	"/bin": true, "/boot": true, "/dev": true, "/etc": true, "/lib": true, "/lib32": true, "/lib64": true,
	"/opt": true, "/proc": true, "/run": true, "/sbin": true, "/srv": true, "/sys": true, "/usr": true, "/var": true,
	"/snap": true, "/System": true, "/Library": true, "/Applications": true, "/private": true, "/Volumes": true,
	"/usr/bin": true, "/usr/lib": true, "/usr/local": true, "/usr/share": true, "/usr/sbin": true, "/var/lib": true,
	"/var/log": true, "/usr/local/bin": true, "/usr/local/lib": true, "/etc/ssh": true, "/etc/pam.d": true,
}
