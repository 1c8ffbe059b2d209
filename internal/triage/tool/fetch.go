package tool

import (
	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/triage/network"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// judgeNetwork judges a network request the sandbox blocked: the command
// that made it, and data the URL carries.
func judgeNetwork(v *judge.Judgement, a *action.Action, set *rules.Set) {
	if a.URL != "" {
		s := judge.NewScript(v, set, a.Cwd)
		c := &judge.Command{Name: "network", Text: a.URL, Cwd: s.Cwd}
		s.McpURL(c, a.URL)
	}
	if len(a.Command) > 0 {
		judge.JudgeShell(v, a, set)
		return
	}
	host := a.Host
	if host == "" && a.URL != "" {
		host, _ = network.URLHost(a.URL)
	}
	if host != "" && network.Local(host) {
		v.Add(judge.Finding{Dec: vocab.Allow, Class: vocab.Routine, Risk: judge.Low, Reason: "reaches a local service"})
		return
	}
	v.Add(judge.Finding{Dec: vocab.Escalate, Class: vocab.Exfiltration, Risk: judge.Medium, Reason: "reaches " + judge.OrName(host, "the network") + " from a tool other than a command"})
}
