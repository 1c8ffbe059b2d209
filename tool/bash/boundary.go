package bash

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/fspath"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// The values of the sandbox_permissions argument: useDefault, and
// action.RequireEscalated.
const useDefault = "use_default"

// governed runs a command under the tool's rules and sandbox (SPEC G1, G2,
// G14):
//
//   - a command the exec rules forbid is refused;
//   - a command the rules send for approval (prompt, dangerous, too complex
//     to analyse), or that asks for escalated permissions, becomes a
//     boundary request; approved, it runs — outside the sandbox when it
//     asked for escalated permissions, else inside it;
//   - a command the sandbox blocked (a write outside the writable roots, a
//     network request) becomes a boundary request for exactly that
//     permission; approved, the command runs again with it.
//
// Routine commands inside the boundary ask nobody.
func (t *shellTool) governed(ctx context.Context, a args) (string, error) {
	cmdline := *a.Cmd
	escalated := a.SandboxPermissions == action.RequireEscalated
	if t.inside && (t.sandbox == nil || t.sandbox.Mode == sandbox.FullAccess) {
		// Kept inside with no boundary to keep to: fail closed.
		return "", &tool.Error{Type: tool.ErrPermission, Message: "this shell runs only inside a sandbox, and none is configured"}
	}
	if t.sandbox == nil && t.rules == nil && !escalated {
		return t.exec(ctx, cmdline, nil, false)
	}
	mode := ""
	if t.sandbox != nil {
		mode = string(t.sandbox.Mode)
	}
	judged := rules.Evaluate(t.rules, cmdline)
	if judged.Decision == rules.Forbidden {
		return "", &tool.Error{Type: tool.ErrPermission, Message: "forbidden by the exec rules: " + forbiddenReason(judged)}
	}
	policy := t.sandbox
	if judged.Decision == rules.Prompt || escalated {
		req := &boundary.Request{
			Permission: boundary.Exec, Command: cmdline, Escalated: escalated,
			Justification: a.Justification, Sandbox: mode, Reason: promptReason(judged, escalated),
		}
		if err := t.ask(ctx, req); err != nil {
			return "", err
		}
		if escalated {
			full := sandbox.Policy{Mode: sandbox.FullAccess, Workdir: t.dir, NetworkAccess: true}
			policy = &full
		}
	}
	out, err := t.exec(ctx, cmdline, policy, escalated)
	if policy == nil || policy.Mode == sandbox.FullAccess {
		return out, err
	}
	blocked, ok := policy.Blocked(out, err)
	if !ok {
		return out, err
	}
	wider, req := widen(*policy, blocked)
	req.Command, req.Sandbox = cmdline, mode
	if aerr := t.ask(ctx, req); aerr != nil {
		te := aerr.(*tool.Error)
		return appendNote(out, fmt.Sprintf("[blocked by the sandbox (%s): %s; %s]", mode, policy.Explain(blocked), te.Message)), nil
	}
	// Widened to full access, the retry runs outside the sandbox: an
	// escalation like require_escalated.
	return t.exec(ctx, cmdline, &wider, wider.Mode == sandbox.FullAccess)
}

// ask asks for a boundary request and returns an approval error unless it
// was approved. A tool kept inside (Options.Inside) asks nobody: the
// request is refused here, before any approver of ctx sees it.
func (t *shellTool) ask(ctx context.Context, req *boundary.Request) error {
	if t.inside {
		return &tool.Error{Type: tool.ErrPermission, Message: "this shell cannot cross the sandbox boundary: nobody is asked to approve its requests (" + req.Reason + ")"}
	}
	dec, err := boundary.Ask(ctx, req)
	if err != nil {
		return &tool.Error{Type: tool.ErrApproval, Message: "the request to cross the sandbox boundary failed, so it is denied: " + dec.Explanation}
	}
	if !dec.Approved {
		msg := "not approved"
		if dec.Explanation != "" {
			msg += ": " + dec.Explanation
		}
		return &tool.Error{Type: tool.ErrApproval, Message: msg}
	}
	return nil
}

// widen returns p with the one permission a blocked action needs, and the
// request asking for it. A blocked write or change of metadata is judged
// and granted at the path the kernel reaches (symbolic links and ".."
// resolved): an existing file or directory becomes a writable root itself;
// for a path still to be created, the nearest existing directory does. The
// request names the resolved path and, when it differs, the root granted,
// so the approval covers exactly what the retry gets. In read-only mode the
// granted directory becomes the only writable root, besides the temporary
// directories. A write into a protected path or warden's state, to a path
// the output does not name, or to one that cannot be resolved, and reads
// and operations that need privileges, need full access: those requests
// are escalated (Request.Escalated), since the retry runs outside the
// sandbox; the network, the network.
func widen(p sandbox.Policy, b sandbox.Block) (sandbox.Policy, *boundary.Request) {
	req := &boundary.Request{Reason: "the sandbox blocked " + p.Explain(b)}
	wider := p
	wider.WritableRoots = append([]string(nil), p.WritableRoots...)
	switch b.Kind {
	case sandbox.KindNetwork:
		req.Permission = boundary.Network
		wider.NetworkAccess = true
		return wider, req
	case sandbox.KindRead, sandbox.KindPrivilege:
		req.Permission, req.Escalated = boundary.Exec, true
		req.Reason += "; approval runs this command outside the sandbox"
		wider.Mode = sandbox.FullAccess
		return wider, req
	}
	req.Permission = boundary.Write
	target, grant, dir, err := grantFor(b.Path)
	paths := func(root string) []string {
		if target == root {
			return []string{root}
		}
		return []string{target, root}
	}
	switch {
	case b.Path == "":
		req.Reason += "; the path is unknown, so approval lets this command write anywhere"
		wider.Mode, req.Escalated = sandbox.FullAccess, true
	case b.Protected || err != nil:
		req.Paths = []string{b.Path}
		if target != "" {
			req.Paths = []string{target}
		}
		req.Reason += "; approval lets this command write outside the sandbox"
		wider.Mode, req.Escalated = sandbox.FullAccess, true
	case p.Mode == sandbox.ReadOnly:
		if !dir {
			grant = filepath.Dir(grant)
		}
		req.Paths = paths(grant)
		req.Reason += "; approval makes " + grant + " writable for this command"
		wider.Mode, wider.Workdir, wider.WritableRoots = sandbox.WorkspaceWrite, grant, nil
	default:
		req.Paths = paths(grant)
		req.Reason += "; approval makes " + grant + " writable for this command"
		wider.WritableRoots = append(wider.WritableRoots, grant)
	}
	return wider, req
}

// grantFor resolves the blocked path p as the kernel will and returns what
// to make writable: the resolved path when it exists, else the nearest
// existing directory above it; dir reports whether that is a directory.
// target is the resolved path itself.
func grantFor(p string) (target, grant string, dir bool, err error) {
	if p == "" {
		return "", "", false, nil
	}
	target, exists, err := fspath.Resolve(p, nil)
	real := target
	if err != nil {
		return "", "", false, fmt.Errorf("resolve %s: %w", p, err)
	}
	for !exists && real != "/" {
		real = filepath.Dir(real)
		_, err := os.Stat(real)
		exists = err == nil
	}
	fi, err := os.Stat(real)
	if err != nil {
		return target, real, false, fmt.Errorf("resolve %s: %w", p, err)
	}
	return target, real, fi.IsDir(), nil
}

func forbiddenReason(r rules.Result) string {
	var parts []string
	for _, m := range r.Matches {
		if m.Rule.Decision == rules.Forbidden {
			why := m.Rule.String()
			if m.Rule.Justification != "" {
				why += " (" + m.Rule.Justification + ")"
			}
			parts = append(parts, why)
		}
	}
	if len(parts) == 0 {
		return r.Report()
	}
	return strings.Join(parts, "; ")
}

func promptReason(r rules.Result, escalated bool) string {
	var parts []string
	if escalated {
		parts = append(parts, "the command asks to run outside the sandbox")
	}
	for _, m := range r.Matches {
		if m.Rule.Decision == rules.Prompt {
			why := "rule " + m.Rule.String() + " asks for approval"
			if m.Rule.Justification != "" {
				why += " (" + m.Rule.Justification + ")"
			}
			parts = append(parts, why)
		}
	}
	for _, d := range r.Dangerous {
		parts = append(parts, "dangerous: "+d)
	}
	if r.Opaque {
		parts = append(parts, "too complex to analyse: "+strings.Join(r.Reasons, "; "))
	}
	if len(parts) == 0 {
		return "the exec rules ask for approval"
	}
	return strings.Join(parts, "; ")
}
