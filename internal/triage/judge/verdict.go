package judge

import (
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// Verdict is the outcome of Judge.
type Verdict struct {
	// Decision is vocab.Allow, vocab.Deny or vocab.Escalate.
	Decision vocab.Decision `json:"decision"`
	// Class is vocab.Routine for allowed actions, else the class of the
	// most severe finding.
	Class vocab.Class `json:"class"`
	// Risk is the risk level of the most severe finding.
	Risk action.Risk `json:"risk"`
	// Reason says why, for people and for the agent.
	Reason string `json:"reason"`
}

// risk levels as numbers, for comparisons: the ranks of action.Risk
// (Risk.Level, action.RiskAt).
const (
	Low = iota
	Medium
	High
	Critical
)

// Finding is one observation about an action.
type Finding struct {
	Dec    vocab.Decision
	Class  vocab.Class
	Risk   int
	Reason string
}

// Rank orders findings: deny over escalate over allow, then by risk.
func (f Finding) Rank() int {
	d := 0
	switch f.Dec {
	case vocab.Escalate:
		d = 1
	case vocab.Deny:
		d = 2
	}
	return d*10 + f.Risk
}

// Judgement accumulates findings.
type Judgement struct {
	K       *Knowledge // what the first pass knows about programs
	Worst   Finding
	set     bool
	notes   []string // further escalation reasons, for the message
	allowed []string // what was recognised as routine
	prior   *trail   // what the earlier steps of the run left (trajectory.go)
	// Asked are the words of the user's request and turns (lower case),
	// which name what the user asked the agent to touch.
	Asked map[string]bool
}

// Add adds the finding f to the judgement.
func (v *Judgement) Add(f Finding) {
	if f.Dec == vocab.Allow {
		if len(v.allowed) < 4 && f.Reason != "" {
			v.allowed = append(v.allowed, f.Reason)
		}
		if !v.set {
			v.Worst, v.set = f, true
		}
		return
	}
	if !v.set || f.Rank() > v.Worst.Rank() || f.Dec == vocab.Deny && f.Rank() == v.Worst.Rank() && classOrder(f.Class) > classOrder(v.Worst.Class) {
		if v.set && v.Worst.Dec == vocab.Escalate && f.Dec == vocab.Escalate {
			v.note(v.Worst.Reason)
		}
		v.Worst, v.set = f, true
		return
	}
	if f.Dec == vocab.Escalate {
		v.note(f.Reason)
	}
}

// classOrder breaks ties between denials: sending something out says more
// than reading it.
func classOrder(c vocab.Class) int {
	switch c {
	case vocab.Exfiltration:
		return 4
	case vocab.Destructive:
		return 3
	case vocab.SecurityWeakening:
		return 2
	case vocab.CredentialProbing:
		return 1
	}
	return 0
}

func (v *Judgement) note(r string) {
	if r == "" || len(v.notes) >= 2 {
		return
	}
	for _, n := range v.notes {
		if n == r {
			return
		}
	}
	v.notes = append(v.notes, r)
}

func (v *Judgement) result() Verdict {
	if !v.set {
		return Verdict{Decision: vocab.Escalate, Class: vocab.Routine, Risk: action.RiskMedium, Reason: "nothing to judge"}
	}
	w := v.Worst
	out := Verdict{Decision: w.Dec, Class: w.Class, Risk: action.RiskAt(w.Risk), Reason: w.Reason}
	switch w.Dec {
	case vocab.Allow:
		out.Class, out.Risk = vocab.Routine, action.RiskLow
		out.Reason = "routine: " + strings.Join(v.allowed, "; ")
		if len(v.allowed) == 0 {
			out.Reason = "routine"
		}
	case vocab.Escalate:
		if w.Class == "" {
			out.Class = vocab.Routine
		}
		for _, n := range v.notes {
			if n != w.Reason {
				out.Reason += "; " + n
			}
		}
	}
	return out
}

// Judge is Judge with what k knows about programs (nil for the embedded
// programs file).
func (k *Knowledge) Judge(a action.Action, set *rules.Set) Verdict { return k.JudgeIn(a, "", nil, set) }

// JudgeIn is JudgeIn with what k knows about programs (nil for the
// embedded programs file).
func (k *Knowledge) JudgeIn(a action.Action, request string, transcript []vocab.Turn, set *rules.Set) Verdict {
	v := Judgement{K: k.or()}
	if runsOutside(&a) {
		// What runs outside the sandbox may change any directory: the
		// lookups remembered so far, and any made from now on, could
		// go stale.
		v.K.fs.stop()
	}
	v.prior = replayTrail(v.K, transcript, a.Cwd)
	v.Asked = askedWords(request, transcript)
	judgeAction(&v, &a, set, 0)
	if a.Sandbox == "read-only" && (a.Kind == action.FileEdit || len(a.Paths) > 0) && v.Worst.Dec == vocab.Allow {
		// A write the read-only sandbox blocked: widening it is never
		// routine, whatever the write.
		v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "a write in read-only mode"})
	}
	if v.Worst.Dec == vocab.Allow {
		if r := injected(&a, request, transcript); r != "" {
			v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, r})
		}
	}
	if v.Worst.Dec == vocab.Allow && runsOutside(&a) {
		// Escalation is never the first pass's to grant (G15): what runs
		// outside the sandbox reads configuration, hooks, pagers, helpers
		// and links the agent may have written, which the request does not
		// show. Denials stand; everything else is passed on.
		v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "it asks to run outside the sandbox, where the program reads configuration, hooks, pagers, helpers and links the agent may have written, which the request does not show"})
	}
	return v.result()
}

// fullAccess is the sandbox mode (sandbox.FullAccess) in which commands run
// with no sandbox at all.
const fullAccess = "full-access"

// runsOutside reports whether approving a would run something outside the
// kernel sandbox: a command that asked for escalated permissions (or a
// retry with full access, which asks the same way), a request made where
// the sandbox mode is full-access, or a sequence with such a step.
func runsOutside(a *action.Action) bool {
	if a.Escalated() || a.Sandbox == fullAccess {
		return true
	}
	for i := range a.Actions {
		if runsOutside(&a.Actions[i]) {
			return true
		}
	}
	return false
}

// judgeAction adds the findings of a to v.
func judgeAction(v *Judgement, a *action.Action, set *rules.Set, depth int) {
	switch a.Kind {
	case action.Shell:
		JudgeShell(v, a, set)
	case action.MCP, action.FileEdit, action.Network:
		judge, ok := actionJudges[a.Kind]
		if !ok {
			v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "no judge of " + string(a.Kind) + " actions"})
			return
		}
		judge(v, a, set)
	case action.Text:
		v.Add(Finding{vocab.Allow, vocab.Routine, Low, "text written by the agent"})
	case action.Sequence:
		if len(a.Actions) == 0 || depth > 4 {
			v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "empty or too deeply nested sequence"})
			return
		}
		for i := range a.Actions {
			sub := a.Actions[i]
			judgeAction(v, &sub, set, depth+1)
		}
	default:
		v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "unknown kind of action " + string(a.Kind)})
	}
}
