package sandbox

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
)

// Kinds of blocked actions, as Denied reports them: what a command would
// need an escalation for.
const (
	// KindWrite is a write outside the writable roots or into a protected
	// path.
	KindWrite = "write"
	// KindNetwork is a use of the network while it is off.
	KindNetwork = "network"
)

// networkSigns are messages of commands that found the network off: no
// route (the sandbox's network namespace has only a loopback interface),
// name resolution failing, and connections refused or not permitted.
var networkSigns = []string{
	"network is unreachable",
	"no route to host",
	"temporary failure in name resolution",
	"could not resolve host",
	"name or service not known",
	"no address associated with hostname",
	"name resolution",
	"nodename nor servname",
	"getaddrinfo",
	"connection refused",
	"failed to connect",
	"unable to connect",
	"could not connect",
}

// writeSigns are messages of commands whose write was refused: Landlock
// answers EACCES, a protected path's read-only mount EROFS, and some
// tools report EPERM.
var writeSigns = []string{
	"permission denied",
	"read-only file system",
	"operation not permitted",
	"eacces",
	"erofs",
}

// connectWords mark a permission error as one about a connection (Landlock
// TCP rules answer connect(2) with EACCES).
var connectWords = []string{"connect", "socket", "network", "http", "tcp", "udp"}

// Denied reports whether a command's output and error look like the
// sandbox blocked it, and what it would need: KindNetwork for a network
// failure, KindWrite for a refused write. err may be the error of the
// command (an *exec.ExitError only carries the status: the output decides)
// or of a tool writing from this process (EACCES, EROFS and EPERM count as
// writes; ENETUNREACH, EHOSTUNREACH and ECONNREFUSED as network). It only
// reads text, so it can report what another cause produced: callers should
// ask it only about commands that ran sandboxed and failed; Policy.Denied
// also leaves out what the policy allows.
func Denied(output string, err error) (kind string, ok bool) {
	switch {
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ECONNREFUSED):
		return KindNetwork, true
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EPERM):
		return KindWrite, true
	}
	if err != nil {
		output += "\n" + err.Error()
	}
	write := false
	for _, line := range strings.Split(strings.ToLower(output), "\n") {
		if line == "" || strings.HasPrefix(line, "warden: sandbox:") {
			continue // the helper's own setup failure
		}
		if containsAny(line, networkSigns) {
			return KindNetwork, true
		}
		if containsAny(line, writeSigns) {
			if containsAny(line, connectWords) && !strings.Contains(line, "read-only file system") {
				return KindNetwork, true
			}
			write = true
		}
	}
	if write {
		return KindWrite, true
	}
	return "", false
}

// Denied is the package's Denied restricted to what the policy blocks: no
// network kind when the network is on, no write kind in full-access mode.
func (p Policy) Denied(output string, err error) (kind string, ok bool) {
	if p.Mode == FullAccess {
		return "", false
	}
	kind, ok = Denied(output, err)
	if ok && kind == KindNetwork && p.NetworkAccess {
		return "", false
	}
	return kind, ok
}

// Block is an action the sandbox blocked, as Policy.Blocked reads it from
// a command's output.
type Block struct {
	// Kind is KindWrite or KindNetwork.
	Kind string
	// Path is, for a write, the absolute path that could not be written
	// when the output names one the policy does not let commands write;
	// else "".
	Path string
	// Protected reports that Path is a protected path (or lies in one):
	// no writable root makes it writable, only full-access mode does.
	Protected bool
}

// Blocked is Policy.Denied with, for writes, the path the output names
// (relative paths are taken relative to Workdir): the last path on a line
// reporting a refused write that CanWrite refuses too.
func (p Policy) Blocked(output string, err error) (Block, bool) {
	kind, ok := p.Denied(output, err)
	if !ok {
		return Block{}, false
	}
	b := Block{Kind: kind}
	if kind != KindWrite {
		return b, true
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		output = pe.Path + ": " + pe.Err.Error() + "\n" + output
	}
	for _, line := range strings.Split(output, "\n") {
		if !containsAny(strings.ToLower(line), writeSigns) {
			continue
		}
		// The refused path stands nearest the error: "bash: line 1:
		// /x/f: Permission denied" names the shell first.
		toks := pathTokens(line)
		for i := len(toks) - 1; i >= 0; i-- {
			tok := toks[i]
			abs, err := p.abs(tok)
			if err != nil || p.CanWrite(abs) {
				continue
			}
			b.Path = abs
			b.Protected = p.isProtected(abs)
			return b, true
		}
	}
	return b, true
}

// pathTokens returns the words of line that may be paths: those with a
// slash, and quoted ones.
func pathTokens(line string) []string {
	var out []string
	for _, w := range strings.Fields(line) {
		quoted := strings.IndexAny(w, "'\"`‘“") == 0
		w = strings.Trim(w, "'\"`‘’“”:;,()[]{}<>")
		if w != "" && (strings.Contains(w, "/") || quoted) {
			out = append(out, w)
		}
	}
	return out
}

// isProtected reports whether the absolute path is, or lies in, a
// protected path, with symbolic links followed.
func (p Policy) isProtected(path string) bool {
	real, err := resolvePath(path)
	if err != nil {
		return false
	}
	protected, err := p.ProtectedPaths()
	if err != nil {
		return false
	}
	for _, pr := range protected {
		if within(pr, real) {
			return true
		}
	}
	return false
}

// Explain describes a blocked action for people, e.g. "write outside the
// writable roots: /etc/hosts", "write to a protected path: /src/.git/config",
// "network access (the network is off)".
func (p Policy) Explain(b Block) string {
	switch b.Kind {
	case KindNetwork:
		return "network access (the network is off)"
	case KindWrite:
		switch {
		case p.Mode == ReadOnly && b.Path != "":
			return "write in read-only mode: " + b.Path
		case p.Mode == ReadOnly:
			return "write in read-only mode"
		case b.Protected:
			return "write to a protected path: " + b.Path
		case b.Path != "":
			return "write outside the writable roots: " + b.Path
		}
		return "write outside the writable roots or into a protected path (" + strings.Join(ProtectedNames, ", ") + ")"
	}
	return b.Kind
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
