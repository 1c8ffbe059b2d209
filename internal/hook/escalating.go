package hook

import "sort"

// escalatingShell is the host's shell tool that has an escalation field,
// by name; the first by name where there are several.
func (h *Host) escalatingShell() (string, Spec, bool) {
	names := make([]string, 0, len(h.Tools))
	for n, s := range h.Tools {
		if s.Kind == Shell && s.Escalate != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "", Spec{}, false
	}
	sort.Strings(names)
	return names[0], h.Tools[names[0]], true
}

// EscalatingShell returns the shell tool of the host named host that has
// an escalation field (Spec.Escalate: the field by which the model asks
// for more than warden's sandbox allows, SPEC X4), and that field; ok is
// false where the host has none.
func EscalatingShell(host string) (tool, field string, ok bool) {
	h, found := hosts[host]
	if !found {
		return "", "", false
	}
	tool, spec, ok := h.escalatingShell()
	return tool, spec.Escalate, ok
}
