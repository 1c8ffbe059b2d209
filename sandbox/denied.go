package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Kinds of blocked actions, as Policy.Blocked reports them: what a command would
// need an escalation for.
const (
	// KindWrite is a write (creating, changing, removing or renaming a
	// file) outside the writable roots or into a protected path.
	KindWrite = "write"
	// KindMetadata is a change of a file's metadata (mode, owner, times,
	// extended attributes) outside the writable roots.
	KindMetadata = "metadata"
	// KindRead is a read refused for want of privileges: sandboxed
	// commands have no capabilities, so they cannot read what only root
	// may, nor other processes' private /proc files.
	KindRead = "read"
	// KindNetwork is a use of the network while it is off: connections,
	// name resolution (DNS), UNIX sockets.
	KindNetwork = "network"
	// KindPrivilege is a process or privileged operation: signals to
	// processes outside the sandbox, network configuration, mounts,
	// changing users, and the like.
	KindPrivilege = "privilege"
)

// dnsSigns are messages of a failed name resolution.
var dnsSigns = []string{
	"temporary failure in name resolution",
	"could not resolve host",
	"could not resolve hostname",
	"name or service not known",
	"no address associated with hostname",
	"name resolution",
	"nodename nor servname",
	"getaddrinfo",
	"no such host",
	"server misbehaving",
	"resolving",
	": lookup ",
	"unable to resolve",
	"failed to resolve",
	"could not resolve",
	"no servers could be reached",
	"eai_again",
}

// networkSigns are messages of commands that found the network off: no
// route (the sandbox's network namespace has only a loopback interface),
// and connections refused or not permitted.
var networkSigns = []string{
	"network is unreachable",
	"no route to host",
	"connection refused",
	"failed to connect",
	"unable to connect",
	"could not connect",
}

// permSigns are messages of a refused operation: EACCES (Landlock, file
// permissions, seccomp), EROFS (the read-only view and protected paths)
// and EPERM.
var permSigns = []string{
	"permission denied",
	"read-only file system",
	"operation not permitted",
	"eacces",
	"erofs",
	"eperm",
}

// remoteRefusals are permission errors a remote server answered (an SSH
// login refused): the network worked and the sandbox did not block them.
var remoteRefusals = []string{"permission denied (publickey", "permission denied (password", "permission denied, please try again", "permission denied (keyboard-interactive"}

// connectWords mark a permission error as one about a connection (Landlock
// TCP rules answer connect(2) with EACCES, the seccomp filter socket(2) of
// a UNIX socket).
var connectWords = []string{"connect", "socket", "network", "http", "tcp", "udp", "dial unix", "unix:"}

// privilegeWords mark a permission error as one about processes or
// privileges rather than files.
var privilegeWords = []string{
	"kill", "rtnetlink", "netlink", "ip: ", "iptables", "nft", "mount", "sysctl", "setuid", "setgid",
	"setgroups", "capabilit", "ptrace", "renice", "setpriority", "ioprio", "sched_", "chroot", "unshare",
	"nsenter", "sudo", "su: ", "modprobe", "insmod", "reboot", "swapon", "hostname", "settimeofday",
	"date: cannot set", "adjtime", "ulimit", "setrlimit", "prlimit",
}

// metadataWords mark a permission error as a change of metadata.
var metadataWords = []string{
	"chmod", "chown", "chgrp", "changing permissions", "changing ownership", "changing group",
	"setting times", "utime", "setxattr", "setfattr", "xattr", "chattr", "touch: setting",
}

// writeWords mark a permission error as a write.
var writeWords = []string{
	"cannot create", "can't create", "cannot touch", "cannot remove", "cannot move", "cannot make",
	"cannot overwrite", "cannot link", "cannot rename", "for writing", "unable to create", "unable to write",
	"could not create", "couldn't create", "failed to create", "cannot write", "can't write", "write",
	"mkdir", "rename", "unlink", "rmdir", "creat", "truncate", "cannot unlink", "cannot delete",
}

// readWords mark a permission error as a read.
var readWords = []string{
	"cannot open", "can't open", "cannot access", "cannot read", "can't read", "reading", "read ",
	"opendir", "cannot stat", "failed to open", "could not open", "unable to open", "open ",
	"cat: ", "head: ", "tail: ", "less: ", "more: ", "grep: ", "wc: ", "sort: ", "diff: ", "tar: ",
	"sum: ", "od: ", "xxd: ", "strings: ", "file: ", "ls: ", "find: ", "du: ",
}

// classify returns the kind of a permission error line (lower case).
func classify(line string) string {
	switch {
	case strings.Contains(line, "read-only file system") || strings.Contains(line, "erofs"):
		if containsAny(line, metadataWords) {
			return KindMetadata
		}
		return KindWrite // a read never fails with EROFS
	case containsAny(line, connectWords):
		return KindNetwork
	case containsAny(line, metadataWords):
		return KindMetadata
	case containsAny(line, privilegeWords):
		return KindPrivilege
	case strings.Contains(line, "/proc/") || strings.Contains(line, "/sys/"):
		if containsAny(line, writeWords) {
			return KindPrivilege // kernel settings, other processes
		}
		return KindRead
	case containsAny(line, writeWords):
		return KindWrite
	case containsAny(line, readWords):
		return KindRead
	}
	return KindWrite
}

// deniedKind reports whether a command's output and error look like the
// sandbox blocked it, and what it would need: KindNetwork for a network
// failure (DNS included), KindWrite for a refused write, KindMetadata for a
// refused change of metadata, KindRead for a read refused for want of
// privileges, KindPrivilege for a process or privileged operation. err may
// be the error of the command (an *exec.ExitError only carries the status:
// the output decides) or of a tool working from this process (EROFS counts
// as a write, EACCES and EPERM from the operation of an *os.PathError;
// ENETUNREACH, EHOSTUNREACH and ECONNREFUSED as network). It only reads
// text, so it can report what another cause produced: callers should ask
// it only about commands that ran sandboxed and failed; Policy.deniedKind
// also leaves out what the policy allows.
func deniedKind(output string, err error) (kind string, ok bool) {
	b, ok := denied(output, err)
	return b.Kind, ok
}

// denied is deniedKind with the line that decided, and whether the failure
// was a name resolution.
func denied(output string, err error) (b Block, ok bool) {
	var pe *fs.PathError
	switch {
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ECONNREFUSED):
		return Block{Kind: KindNetwork}, true
	case errors.Is(err, syscall.EROFS):
		return Block{Kind: KindWrite}, true
	case errors.As(err, &pe) && (errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)):
		if pe.Op == "open" || pe.Op == "read" || pe.Op == "stat" {
			// os.OpenFile does not say for what; writing tools use
			// their own op names.
			return Block{Kind: KindWrite}, true
		}
		return Block{Kind: classify(strings.ToLower(pe.Op + " " + pe.Path + ": " + pe.Err.Error()))}, true
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return Block{Kind: KindWrite}, true
	}
	if err != nil {
		output += "\n" + err.Error()
	}
	var first *Block
	lines := strings.Split(strings.ToLower(output), "\n")
	for i, line := range lines {
		if line == "" || strings.HasPrefix(line, "warden: sandbox:") {
			continue // the helper's own setup failure
		}
		if containsAny(line, dnsSigns) {
			return Block{Kind: KindNetwork, DNS: true}, true
		}
		if containsAny(line, networkSigns) {
			return Block{Kind: KindNetwork}, true
		}
		if containsAny(line, permSigns) && first == nil && !containsAny(line, remoteRefusals) {
			first = &Block{Kind: classify(line)}
			if first.Kind == KindWrite && !containsAny(line, writeWords) && !strings.Contains(line, "read-only file system") {
				// No cue on the line itself ("PermissionError: [Errno
				// 13] Permission denied"): the lines above it, such
				// as a traceback, may name the socket.
				for _, above := range lines[max(0, i-3):i] {
					if containsAny(above, connectWords) {
						first.Kind = KindNetwork
					}
				}
			}
			if first.Kind == KindNetwork {
				return *first, true
			}
		}
	}
	if first != nil {
		return *first, true
	}
	return Block{}, false
}

// deniedKind is the package's deniedKind restricted to what the policy blocks: no
// network kind when the network is on, no write kind in full-access mode.
func (p Policy) deniedKind(output string, err error) (kind string, ok bool) {
	b, ok := p.denied(output, err)
	return b.Kind, ok
}

func (p Policy) denied(output string, err error) (Block, bool) {
	if p.Mode == FullAccess {
		return Block{}, false
	}
	b, ok := denied(output, err)
	if ok && b.Kind == KindNetwork && p.NetworkAccess {
		return Block{}, false
	}
	return b, ok
}

// Block is an action the sandbox blocked, as Policy.Blocked reads it from
// a command's output.
type Block struct {
	// Kind is KindWrite, KindMetadata, KindRead, KindNetwork or
	// KindPrivilege.
	Kind string
	// Path is, for a write, a change of metadata or a read, the absolute
	// path as the output names it, when it names one the policy does not
	// let commands write; else "".
	Path string
	// Resolved is Path with symbolic links resolved as the kernel follows
	// them: the file really concerned, the one an approval must name.
	Resolved string
	// Protected reports that Resolved is a protected path or warden's
	// state (or lies in one): no writable root makes it writable, only
	// full-access mode does.
	Protected bool
	// DNS reports, for the network, that a name resolution failed.
	DNS bool
}

// Blocked is what Policy.deniedKind recognises with, for writes, changes of metadata and reads,
// the path the output names (relative paths are taken relative to
// Workdir), as named and resolved: the last path on a line reporting a
// refused operation that, for writes and metadata, CanWrite refuses too.
func (p Policy) Blocked(output string, err error) (Block, bool) {
	b, ok := p.denied(output, err)
	if !ok {
		return Block{}, false
	}
	switch b.Kind {
	case KindWrite, KindMetadata, KindRead:
	default:
		return b, true
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		output = pe.Path + ": " + pe.Err.Error() + "\n" + output
	}
	for _, line := range strings.Split(output, "\n") {
		if !containsAny(strings.ToLower(line), permSigns) {
			continue
		}
		// The refused path stands nearest the error: "bash: line 1:
		// /x/f: Permission denied" names the shell first.
		toks := pathTokens(line)
		for i := len(toks) - 1; i >= 0; i-- {
			tok := toks[i]
			abs, err := p.abs(tok)
			if err != nil || !onDisk(tok, abs, b.Kind, line) || (b.Kind != KindRead && p.CanWrite(abs)) {
				continue
			}
			b.Path = abs
			if b.Resolved, err = resolvePath(abs); err != nil {
				b.Resolved = abs
			}
			if _, err := os.Lstat(b.Resolved); err == nil && b.Kind == KindWrite && strings.Contains(strings.ToLower(line), "cannot touch") {
				b.Kind = KindMetadata // touch on an existing file sets its times
			}
			b.Protected = p.isProtected(abs)
			return b, true
		}
	}
	return b, true
}

// onDisk reports whether tok, a word of the error message line, names a
// file that abs (tok made absolute) finds: one that exists or, but for a
// read, whose directory exists — and then, for a bare word, only when the
// line says it was being created or changed. A word that is no path of
// this machine (a user@host, a URL, an option, "Error") is never made one,
// so a hint never invents a path from an error message.
func onDisk(tok, abs, kind, line string) bool {
	if strings.Contains(tok, "://") || strings.HasPrefix(tok, "-") || strings.Contains(tok, "\x00") {
		return false
	}
	if at := strings.Index(tok, "@"); at > 0 && !strings.Contains(tok[:at], "/") {
		return false // user@host
	}
	if _, err := os.Lstat(abs); err == nil {
		return true
	}
	if kind == KindRead {
		return false
	}
	if !strings.Contains(tok, "/") && !containsAny(strings.ToLower(line), append(writeWords, metadataWords...)) {
		return false
	}
	fi, err := os.Stat(filepath.Dir(abs))
	return err == nil && fi.IsDir()
}

// pathTokens returns the words of line that may be paths: those with a
// slash, quoted ones, and the word just before the error message ("sh: 1:
// cannot create new.txt: Read-only file system").
func pathTokens(line string) []string {
	var out []string
	lower := strings.ToLower(line)
	beforeErr := ""
	for _, sign := range permSigns {
		if i := strings.Index(lower, ": "+sign); i > 0 {
			f := strings.Fields(line[:i])
			if len(f) > 0 {
				beforeErr = f[len(f)-1]
			}
			break
		}
	}
	for _, w := range strings.Fields(line) {
		quoted := strings.IndexAny(w, "'\"`‘“") == 0
		bare := strings.TrimRight(w, ":")
		w = strings.Trim(w, "'\"`‘’“”:;,()[]{}<>")
		if w != "" && (strings.Contains(w, "/") || quoted || (bare == beforeErr && !strings.HasSuffix(bare, ":") && w != "1")) {
			out = append(out, w)
		}
	}
	return out
}

// isProtected reports whether the absolute path is, or lies in, a
// protected path or warden's state, with symbolic links followed.
func (p Policy) isProtected(path string) bool {
	real, err := resolvePath(path)
	if err != nil {
		return false
	}
	protected, err := p.protectedAll()
	if err != nil {
		return false
	}
	for _, pr := range append(protected, statePaths()...) {
		if within(pr, real) {
			return true
		}
	}
	return false
}

// isState reports whether the first non-empty of paths lies in warden's
// own state.
func isState(paths ...string) bool {
	for _, p := range paths {
		if p == "" {
			continue
		}
		for _, sp := range statePaths() {
			if within(sp, p) {
				return true
			}
		}
		return false
	}
	return false
}

// Explain describes a blocked action for people, e.g. "write outside the
// writable roots: /etc/hosts", "write to a protected path:
// /src/.git/config", "name resolution (DNS): the network is off". A path
// that resolves elsewhere is given both ways.
func (p Policy) Explain(b Block) string {
	path := b.Path
	if b.Resolved != "" && b.Resolved != b.Path {
		path += " (resolves to " + b.Resolved + ")"
	}
	with := func(s string) string {
		if path == "" {
			return s
		}
		return s + ": " + path
	}
	switch b.Kind {
	case KindNetwork:
		if b.DNS {
			return "name resolution (DNS): the network is off"
		}
		return "network access (the network is off; UNIX sockets too)"
	case KindPrivilege:
		return "a process or privileged operation (sandboxed commands have no privileges and cannot signal processes outside the sandbox)"
	case KindRead:
		if b.Protected && isState(b.Resolved, b.Path) {
			return with("a read of warden's own state (hidden from sandboxed commands)")
		}
		return with("a read that needs privileges (sandboxed commands have no capabilities)")
	case KindMetadata, KindWrite:
		what := "write"
		if b.Kind == KindMetadata {
			what = "change of metadata (mode, owner, times, attributes)"
		}
		switch {
		case b.Protected:
			return with(what + " to a protected path")
		case p.Mode == ReadOnly:
			return with(what + " in read-only mode")
		case path != "":
			return with(what + " outside the writable roots")
		}
		return what + " outside the writable roots or into a protected path (" + strings.Join(ProtectedNames, ", ") + ")"
	}
	return b.Kind
}

// Allow returns the narrowest change of policy that would have allowed a
// blocked action, in warden's flags: "--network", "--writable-root DIR"
// (the existing directory the write really goes to, symbolic links
// resolved), "--sandbox workspace-write [--writable-root DIR]" from
// read-only mode, or "--sandbox full-access" where nothing narrower does
// (protected paths, warden's state, reads and operations that need
// privileges, a path the output does not name).
func (p Policy) Allow(b Block) string {
	switch b.Kind {
	case KindNetwork:
		return "--network"
	case KindPrivilege, KindRead:
		return "--sandbox full-access"
	}
	if b.Protected || b.Resolved == "" {
		return "--sandbox full-access"
	}
	dir := existingDir(filepath.Dir(b.Resolved))
	if p.Mode == ReadOnly {
		ws := p
		ws.Mode = WorkspaceWrite
		if ws.CanWrite(b.Resolved) {
			return "--sandbox workspace-write"
		}
		return "--sandbox workspace-write --writable-root " + dir
	}
	return "--writable-root " + dir
}

// existingDir returns dir, or its nearest ancestor that exists, resolved.
func existingDir(dir string) string {
	for {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return real
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
