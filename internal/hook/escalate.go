package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/tool"
)

// escalation is what a shell call asks for beyond warden's sandbox
// (Spec.Escalate): the boundary requests put to the boundary decider, and,
// once each is approved, how the call runs: outside the sandbox (full), or
// confined with the extra `warden exec` flags that grant exactly what was
// asked (flags).
type escalation struct {
	requests []*boundary.Request
	full     bool
	flags    []string
}

// permissions is Gemini CLI's additional_permissions, read strictly.
type permissions struct {
	Network    *bool `json:"network"`
	FileSystem *struct {
		Read  []string `json:"read"`
		Write []string `json:"write"`
	} `json:"fileSystem"`
}

// Permissions reads value, given to a shell tool's additional_permissions
// (Gemini CLI's, Codex's), strictly, as warden reads it when deciding the
// call (SPEC X4): the network asked for, the paths to read and to write. A
// member or shape warden does not know is an error.
func Permissions(value json.RawMessage) (network bool, read, write []string, err error) {
	var p permissions
	if err := strictObject(value, &p); err != nil {
		return false, nil, nil, err
	}
	if p.FileSystem != nil {
		read, write = p.FileSystem.Read, p.FileSystem.Write
	}
	return p.Network != nil && *p.Network, read, write, nil
}

// escalationOf reads what call (a shell call of cmd) asks for beyond the
// sandbox; nil when it asks nothing. A field of a shape warden does not
// know is an error: the call is denied, never run as if it asked nothing.
func (d *decision) escalationOf(call tool.Call, t tool.Tool, cmd string) (*escalation, error) {
	ht, ok := t.(*hostTool)
	if !ok || ht.spec.Escalate == "" {
		return nil, nil
	}
	field := ht.spec.Escalate
	args := map[string]json.RawMessage{}
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return nil, fmt.Errorf("tool_input: %w", err)
	}
	raw := bytes.TrimSpace(args[field])
	switch string(raw) {
	case "", "null", "false":
		return nil, nil
	case "true":
		return &escalation{full: true, requests: []*boundary.Request{{Permission: boundary.Exec, Command: cmd, Escalated: true, Sandbox: d.c.Sandbox,
			Reason: "the command asks to run outside warden's sandbox (" + field + ")"}}}, nil
	}
	network, read, write, err := Permissions(json.RawMessage(raw))
	if err != nil {
		return nil, fmt.Errorf("tool_input of %s: %s: %w", call.Function, field, err)
	}
	if len(read) > 0 {
		// The sandbox widens reads only by leaving it.
		return &escalation{full: true, requests: []*boundary.Request{{Permission: boundary.Exec, Command: cmd, Escalated: true, Sandbox: d.c.Sandbox, Paths: read,
			Reason: "the command asks to read " + strings.Join(read, ", ") + " (" + field + "); approval runs it outside warden's sandbox"}}}, nil
	}
	e := &escalation{}
	for _, w := range write {
		root, err := writableRoot(ht.abs(w))
		if err != nil {
			return nil, fmt.Errorf("tool_input of %s: %s: %w", call.Function, field, err)
		}
		e.flags = append(e.flags, "--writable-root", root)
		e.requests = append(e.requests, &boundary.Request{Permission: boundary.Write, Command: cmd, Paths: []string{root}, Sandbox: d.c.Sandbox,
			Reason: "the command asks to write " + w + " (" + field + "); approval makes " + root + " writable for this command"})
	}
	if network {
		e.flags = append(e.flags, "--network")
		e.requests = append(e.requests, &boundary.Request{Permission: boundary.Network, Command: cmd, Sandbox: d.c.Sandbox,
			Reason: "the command asks for the network (" + field + ")"})
	}
	if len(e.requests) == 0 {
		return nil, nil
	}
	return e, nil
}

// writableRoot is the directory a write to p needs, as the kernel reaches
// it (symbolic links resolved): p when it is a directory, else the
// directory holding it, which must exist.
func writableRoot(p string) (string, error) {
	if strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		p = filepath.Join(home, p[2:])
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q: want an absolute path", p)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		if fi, err := os.Stat(real); err == nil && fi.IsDir() {
			return real, nil
		}
		p = real
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", fmt.Errorf("%q: %w", p, err)
	}
	return dir, nil
}

// goCache is the Go build cache of the shell calls confined in
// workspace-write mode, so that `go build` and `go test` work there: the
// person's own cache (~/.cache/go-build) is outside the workspace, and a
// confined command must not write what builds outside the sandbox read
// later, so confined commands get one of their own,
// ~/.cache/warden/go-build, as an extra writable root, and GOCACHE naming
// it. Nil where there is none to give (another mode, no cache directory).
func goCache(mode string) (flags, env []string) {
	if mode != "workspace-write" {
		return nil, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return nil, nil
	}
	dir = filepath.Join(dir, "warden", "go-build")
	if os.MkdirAll(dir, 0o700) != nil {
		return nil, nil
	}
	return []string{"--writable-root", dir}, []string{"env", "GOCACHE=" + dir}
}
