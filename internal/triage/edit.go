package triage

import (
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// judgeFileEdit judges a write to files (a text_editor write outside the
// writable roots, or into a protected path).
func judgeFileEdit(v *verdict, a *action.Action, set *rules.Set) {
	s := newSh(v, set, a.Cwd)
	s.readOnly = a.Sandbox == "read-only"
	paths := a.Paths
	if a.Path != "" {
		paths = append([]string{a.Path}, paths...)
	}
	if len(paths) == 0 {
		v.add(finding{vocab.Escalate, vocab.Routine, medium, "a file edit without a path"})
		return
	}
	if s.home == "" {
		s.home = homeOf(paths[0])
	}
	text := a.NewText
	if text == "" {
		text = a.Patch
	}
	c := &cmd{name: "edit", text: "edit " + strings.Join(paths, ", "), cwd: s.cwd}
	added, old := text, a.OldText
	if a.NewText == "" && a.Patch != "" {
		// A patch: what it adds, against what it removes.
		added, old = patchSides(a.Patch)
	}
	if r := removesProtection(added, old); r != "" {
		s.esc(vocab.SecurityWeakening, high, "`"+c.text+"` writes `"+r+"`, which removes a protection")
	}
	for _, p := range paths {
		pl := s.where(p, s.cwd)
		if ok, what := startupFile(pl.abs); ok {
			s.persist(c, pl, what, text)
			continue
		}
		s.write(c, pl, text)
	}
}

// judgeNetwork judges a network request the sandbox blocked: the command
// that made it, and data the URL carries.
func judgeNetwork(v *verdict, a *action.Action, set *rules.Set) {
	if a.URL != "" {
		s := newSh(v, set, a.Cwd)
		c := &cmd{name: "network", text: a.URL, cwd: s.cwd}
		s.mcpURL(c, a.URL)
	}
	if len(a.Command) > 0 {
		judgeShell(v, a, set)
		return
	}
	host := a.Host
	if host == "" && a.URL != "" {
		host, _ = urlHost(a.URL)
	}
	if host != "" && localHost(host) {
		v.add(finding{vocab.Allow, vocab.Routine, low, "reaches a local service"})
		return
	}
	v.add(finding{vocab.Escalate, vocab.Exfiltration, medium, "reaches " + orName(host, "the network") + " from a tool other than a command"})
}

// patchSides returns the lines a patch adds and those it removes.
func patchSides(patch string) (added, removed string) {
	var a, r strings.Builder
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			a.WriteString(l[1:])
			a.WriteByte('\n')
		case strings.HasPrefix(l, "-"):
			r.WriteString(l[1:])
			r.WriteByte('\n')
		}
	}
	return a.String(), r.String()
}
