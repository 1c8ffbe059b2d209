package judge

import (
	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// Judge classifies the action a and decides it (see package triage) with
// what k knows about programs (nil for the embedded programs file); set
// holds the exec rules in force (nil for none). It never fails: what it
// cannot read it passes on.
func (k *Knowledge) Judge(a action.Action, set *rules.Set) Verdict { return k.JudgeIn(a, "", nil, set) }

// JudgeIn is Judge with the conversation that led to the action as weak
// evidence: the user's request and the turns after it (tool turns are
// untrusted). It can make an action pass on that Judge alone would allow,
// never the reverse.
func (k *Knowledge) JudgeIn(a action.Action, request string, transcript []vocab.Turn, set *rules.Set) Verdict {
	r := getRoom()
	r.a = a
	out := k.judgeIn(r, request, transcript, set)
	putRoom(r)
	return out
}

// judgeIn is JudgeIn with the action and its judgement in the room r.
func (k *Knowledge) judgeIn(r *room, request string, transcript []vocab.Turn, set *rules.Set) Verdict {
	a, v := &r.a, &r.v
	*v = Judgement{K: k.or(), fresh: !confined(a), room: r, allowed: r.allowed[:0], notes: r.notes[:0]}
	if runsOutside(a) {
		// What runs outside the sandbox may change any directory: the
		// lookups remembered so far, and any made from now on, could
		// go stale.
		v.K.fs.stop()
	}
	v.prior = replayTrail(v.K, transcript, a.Cwd, v.fresh)
	v.Asked = askedWords(request, transcript)
	judgeAction(v, a, set, 0)
	if a.Sandbox == "read-only" && (a.Kind == action.FileEdit || len(a.Paths) > 0) && v.Worst.Dec == vocab.Allow {
		// A write the read-only sandbox blocked: widening it is never
		// routine, whatever the write.
		v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, "a write in read-only mode"})
	}
	if v.Worst.Dec == vocab.Allow {
		if r := injected(a, request, transcript); r != "" {
			v.Add(Finding{vocab.Escalate, vocab.Routine, Medium, r})
		}
	}
	if v.Worst.Dec == vocab.Allow && runsOutside(a) {
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

// confined reports whether what a asks is only commands the sandbox
// confines: shell commands (or sequences of them) that ask for no path the
// sandbox blocked, in a sandbox that is not full access, and not for
// escalation. Only their judgements read the remembered lookups
// (lookups.go): a path judged there through a stale answer is still
// confined by the kernel, and a write it blocks comes back as a.Paths,
// judged afresh. Everything else — a blocked write to widen the sandbox
// for, a file edit, an MCP call (its server is not in the sandbox), a
// fetch — asks the file system afresh.
func confined(a *action.Action) bool {
	switch a.Kind {
	case action.Shell:
		return len(a.Paths) == 0 && !runsOutside(a)
	case action.Sequence:
		for i := range a.Actions {
			if !confined(&a.Actions[i]) {
				return false
			}
		}
		return true
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
