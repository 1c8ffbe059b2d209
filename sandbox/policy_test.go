package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/internal/wardenhome"
)

func TestG1_ParseMode(t *testing.T) {
	for _, m := range []Mode{ReadOnly, WorkspaceWrite, FullAccess} {
		if got, err := ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	for _, s := range []string{"", "readonly", "full", "WORKSPACE-WRITE"} {
		if _, err := ParseMode(s); err == nil {
			t.Errorf("ParseMode(%q): no error", s)
		}
	}
}

func TestG1_WritableRootsResolved(t *testing.T) {
	w := t.TempDir()
	extra := mkdir(t, w, "extra")
	symlink(t, extra, filepath.Join(w, "link"))
	p := Policy{Mode: WorkspaceWrite, Workdir: w, WritableRoots: []string{"link", "missing", extra}}
	got := p.resolvedRoots()
	realW, _ := filepath.EvalSymlinks(w)
	realExtra, _ := filepath.EvalSymlinks(extra)
	tmp, _ := filepath.EvalSymlinks(os.TempDir())
	// The temporary directories are not the person's roots: commands get
	// private ones.
	if len(got) != 2 || got[0] != realW || got[1] != realExtra || slices.Contains(got, tmp) {
		t.Errorf("resolvedRoots() = %v", got)
	}
	if slices.Contains(got, filepath.Join(w, "missing")) {
		t.Error("a missing root is listed")
	}
	for _, m := range []Mode{ReadOnly, FullAccess} {
		if got := (Policy{Mode: m, Workdir: w}).resolvedRoots(); got != nil {
			t.Errorf("%s: %v", m, got)
		}
	}
}

func TestG1_ProtectedPaths(t *testing.T) {
	w, _ := filepath.EvalSymlinks(t.TempDir())
	mkdir(t, w, ".git")
	elsewhere := mkdir(t, w, "..", filepath.Base(w)+"-gitdir")
	defer os.RemoveAll(elsewhere)
	sub := mkdir(t, w, "sub")
	writeFile(t, filepath.Join(sub, ".git"), "gitdir: ../../"+filepath.Base(elsewhere)+"\n")
	symlink(t, filepath.Join(w, "sub"), filepath.Join(w, ".agents"))
	p := Policy{Mode: WorkspaceWrite, Workdir: w, WritableRoots: []string{"sub"}}
	got, err := p.protectedAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		filepath.Join(w, ".git"), filepath.Join(w, ".warden"), filepath.Join(w, ".agents"),
		sub, // the target of the .agents link
		filepath.Join(sub, ".git"), elsewhere,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("protectedAll() = %v, missing %s", got, want)
		}
	}
	if !slices.IsSorted(got) {
		t.Errorf("not sorted: %v", got)
	}
	if got, _ := (Policy{Mode: ReadOnly, Workdir: w}).protectedAll(); got != nil {
		t.Errorf("read-only: %v", got)
	}
}

func TestResolvePath(t *testing.T) {
	d, _ := filepath.EvalSymlinks(t.TempDir())
	mkdir(t, d, "a", "b")
	writeFile(t, filepath.Join(d, "file"), "")
	symlink(t, "a/b", filepath.Join(d, "rel"))
	symlink(t, filepath.Join(d, "a"), filepath.Join(d, "abs"))
	symlink(t, "../../a/nothing", filepath.Join(d, "a", "b", "dangling"))
	symlink(t, "loop2", filepath.Join(d, "loop1"))
	symlink(t, "loop1", filepath.Join(d, "loop2"))
	for in, want := range map[string]string{
		d + "/rel/x":            d + "/a/b/x",
		d + "/abs/b/../b":       d + "/a/b",
		d + "/rel/../x":         d + "/a/x", // .. after a link is taken from the link's target
		d + "/a/b/dangling":     d + "/a/nothing",
		d + "/missing/../x/y":   d + "/x/y",
		d + "/file/x":           d + "/file/x",
		d + "/./a//b/":          d + "/a/b",
		"/":                     "/",
		d + "/abs/b/dangling/z": d + "/a/nothing/z",
	} {
		if got, err := resolvePath(in); err != nil || got != want {
			t.Errorf("resolvePath(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := resolvePath(d + "/loop1/x"); err == nil {
		t.Error("a link loop resolved")
	}
	if _, err := resolvePath("relative"); err == nil {
		t.Error("a relative path resolved")
	}
}

func TestG2_Denied(t *testing.T) {
	for _, c := range []struct {
		output string
		err    error
		kind   string
	}{
		{"sh: 1: cannot create /etc/x: Permission denied\n", nil, KindWrite},
		{"touch: cannot touch '.git/config': Read-only file system", nil, KindWrite},
		{"rm: cannot remove 'x': Operation not permitted", nil, KindWrite},
		{"PermissionError: [Errno 13] Permission denied: '/etc/x'", nil, KindWrite},
		{"", &os.PathError{Op: "open", Path: "/etc/x", Err: syscall.EACCES}, KindWrite},
		{"", &os.PathError{Op: "open", Path: "/x/.git/config", Err: syscall.EROFS}, KindWrite},
		{"curl: (6) Could not resolve host: example.com", nil, KindNetwork},
		{"curl: (7) Failed to connect to 10.0.0.1 port 80: Network is unreachable", nil, KindNetwork},
		{"dial tcp 127.0.0.1:8080: connect: connection refused", nil, KindNetwork},
		{"ssh: Could not resolve hostname github.com: Temporary failure in name resolution", nil, KindNetwork},
		{"dial tcp 1.2.3.4:443: connect: permission denied", nil, KindNetwork}, // Landlock TCP rules
		{"", syscall.ENETUNREACH, KindNetwork},
		{"wget: unable to resolve host address ‘example.com’", nil, KindNetwork},
		{";; connection timed out; no servers could be reached", nil, KindNetwork},
		{"Error: getaddrinfo EAI_AGAIN registry.npmjs.org", nil, KindNetwork},
		{"bash: kill: (1) - Operation not permitted", nil, KindPrivilege},
		{"kill: sending signal to 4242 failed: Operation not permitted", nil, KindPrivilege},
		{"RTNETLINK answers: Operation not permitted", nil, KindPrivilege},
		{"cat: /proc/1/environ: Permission denied", nil, KindRead},
		{"chmod: changing permissions of '/etc/x': Read-only file system", nil, KindMetadata},
		{"touch: setting times of '/etc/x': Read-only file system", nil, KindMetadata},
		{"setfattr: /etc/x: Read-only file system", nil, KindMetadata},
		{"dial unix /var/run/docker.sock: socket: permission denied", nil, KindNetwork},
		{"Traceback (most recent call last):\n  s = socket.socket(socket.AF_UNIX)\nPermissionError: [Errno 13] Permission denied", nil, KindNetwork},
		{"ok\nall good\n", nil, ""},
		{"warden: sandbox: not in a new user namespace", nil, ""},
		{"", errors.New("exit status 1"), ""},
	} {
		kind, ok := deniedKind(c.output, c.err)
		if kind != c.kind || ok != (c.kind != "") {
			t.Errorf("deniedKind(%q, %v) = %q, %v; want %q", c.output, c.err, kind, ok, c.kind)
		}
	}
	net := "curl: (6) Could not resolve host: example.com"
	if _, ok := (Policy{Mode: WorkspaceWrite, NetworkAccess: true}).deniedKind(net, nil); ok {
		t.Error("network kind with the network on")
	}
	if _, ok := (Policy{Mode: FullAccess}).deniedKind("Permission denied", nil); ok {
		t.Error("write kind in full-access mode")
	}
}

func TestG2_BlockedNamesThePath(t *testing.T) {
	w, _ := filepath.EvalSymlinks(t.TempDir())
	mkdir(t, w, ".git")
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	for output, want := range map[string]Block{
		"sh: 1: cannot create /etc/x: Permission denied":              {Kind: KindWrite, Path: "/etc/x", Resolved: "/etc/x"},
		"touch: cannot touch '.git/config': Read-only file system":    {Kind: KindWrite, Path: filepath.Join(w, ".git", "config"), Resolved: filepath.Join(w, ".git", "config"), Protected: true},
		"PermissionError: [Errno 13] Permission denied: '/usr/lib/z'": {Kind: KindWrite, Path: "/usr/lib/z", Resolved: "/usr/lib/z"},
		"mkdir: cannot create directory ‘/opt/q’: Permission denied":  {Kind: KindWrite, Path: "/opt/q", Resolved: "/opt/q"},
		"cp: cannot create regular file 'ok.txt': Permission denied":  {Kind: KindWrite}, // writable here: not the culprit
		"curl: (6) Could not resolve host: example.com":               {Kind: KindNetwork, DNS: true},
	} {
		got, ok := p.Blocked(output, nil)
		if !ok || got != want {
			t.Errorf("Blocked(%q) = %+v, %v; want %+v", output, got, ok, want)
		}
	}
	got, _ := p.Blocked("", &os.PathError{Op: "open", Path: "/srv/data", Err: syscall.EACCES})
	if got.Path != "/srv/data" {
		t.Errorf("Blocked(PathError) = %+v", got)
	}
	if s := p.Explain(Block{Kind: KindWrite, Path: "/etc/x"}); s != "write outside the writable roots: /etc/x" {
		t.Errorf("Explain = %q", s)
	}
}

// CanWrite refuses protected names at any depth, existing or not, and
// warden's own state wherever it lies.
func TestG1_CanWriteRefusesNestedAndState(t *testing.T) {
	w, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(w, "state")
	t.Setenv(wardenhome.EnvHome, home)
	p := Policy{Mode: WorkspaceWrite, Workdir: w}
	for path, want := range map[string]bool{
		filepath.Join(w, "sub", "file"):                        true,
		filepath.Join(w, "sub", ".git", "hooks", "pre-commit"): false,
		filepath.Join(w, "a", "b", ".agents", "x"):             false,
		filepath.Join(w, "sub", ".warden"):                     false,
		filepath.Join(w, "sub", ".gitignore"):                  true,
		filepath.Join(home, "config.toml"):                     false,
		home:                                                   false,
	} {
		if got := p.CanWrite(path); got != want {
			t.Errorf("CanWrite(%s) = %v, want %v", path, got, want)
		}
	}
	if !slices.Contains(statePaths(), home) {
		t.Errorf("statePaths() = %v, lacks %s", statePaths(), home)
	}
}

// The attack: an error message that names no file of this machine (an SSH
// login refused, a URL, a user@host) read as a blocked write or read. The
// effect checked: the hint names no path the message did not name as a
// file — Path stays empty — and an SSH refusal is not the sandbox's.
func TestG2_BlockedNeverInventsAPath(t *testing.T) {
	w, _ := filepath.EvalSymlinks(t.TempDir())
	mkdir(t, w, "sub")
	p := Policy{Mode: ReadOnly, Workdir: w}
	for _, output := range []string{
		"git@github.com: Permission denied (publickey).",
		"fatal: Could not read from remote repository.\nuser@example.com: Permission denied (publickey,password).",
		"error: https://registry.example/pkg: Permission denied",
		"cat: /no/such/dir/secret: Permission denied",
		"Error: Permission denied",
		"tool: --output: Permission denied",
	} {
		got, ok := p.Blocked(output, nil)
		if ok && got.Path != "" {
			t.Errorf("Blocked(%q) invented the path %q", output, got.Path)
		}
	}
	if _, ok := p.Blocked("git@github.com: Permission denied (publickey).", nil); ok {
		t.Error("an SSH login refused by the remote server reads as blocked by the sandbox")
	}
	// A real path still is named.
	if got, _ := p.Blocked("touch: cannot touch 'sub/new.txt': Read-only file system", nil); got.Path != filepath.Join(w, "sub", "new.txt") {
		t.Errorf("a real path is not named: %+v", got)
	}
}
