package judge

import (
	"strings"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/vocab"
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
	return f.Dec.Strictness()*10 + f.Risk
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
	// fresh says to ask the file system afresh, not the remembered
	// lookups (lookups.go): the action is more than a command the sandbox
	// confines.
	fresh bool
	// room is where the action's first script, its commands and their
	// words are made (room.go); nil for none.
	room *room
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
