// Package askhint says, in a coding agent's own words, how the model asks
// for what warden's sandbox blocked in a shell call warden confined for
// that host (`warden exec --hint-host`): apart from package hook, which
// links no sandbox, so that warden-hook does not either.
package askhint

import (
	"encoding/json"
	"strings"

	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/sandbox"
)

// AskHint says, in the words of the host named host, how the model asks
// for what warden's sandbox blocked (b, under p) in a shell call warden
// confined for that host: the host's own escalation field of its shell
// tool (Spec.Escalate), which warden reads as a boundary request (SPEC
// X4), not `warden exec` flags, which the model driving the host cannot
// pass; where no value of the field grants the blocked action, it says so.
// ok is false where the host has no such field: `warden exec`'s own hint
// then stands.
func AskHint(host string, p sandbox.Policy, b sandbox.Block) (hint string, ok bool) {
	name, field, found := hook.EscalatingShell(host)
	if !found {
		return "", false
	}
	var value string
	switch field {
	case "dangerouslyDisableSandbox":
		value = "true"
	case "additional_permissions":
		if value, ok = permissionsFor(p, b); !ok {
			return "no " + field + " of " + name + " grants it under warden's sandbox (" + string(p.Mode) + ")", true
		}
	default:
		return "", false
	}
	return "to ask for it, call " + name + " again with the same command and " + `"` + field + `": ` + value +
		" (warden decides the request: approved, the command runs with what it asked for; denied, it does not run)", true
}

// permissionsFor is the additional_permissions value (escalate.go's
// permissions) that asks for what b needs, as JSON: the network, a read
// of the path, or a write of the directory `warden exec` would make
// writable (sandbox.Policy.Allow). ok is false for what no value grants:
// a protected path, a privileged operation, a write of no named path.
func permissionsFor(p sandbox.Policy, b sandbox.Block) (string, bool) {
	var v any
	switch {
	case b.Kind == sandbox.KindNetwork:
		v = map[string]any{"network": true}
	case b.Kind == sandbox.KindRead && b.Resolved != "":
		v = map[string]any{"fileSystem": map[string]any{"read": []string{b.Resolved}}}
	case b.Kind == sandbox.KindWrite || b.Kind == sandbox.KindMetadata:
		dir, found := strings.CutPrefix(p.Allow(b), "--writable-root ")
		if !found || b.Protected {
			return "", false
		}
		v = map[string]any{"fileSystem": map[string]any{"write": []string{dir}}}
	default:
		return "", false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(raw), true
}
