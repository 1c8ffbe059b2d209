// Package triage is the deterministic first pass of auto-review (SPEC G14):
// a reviewer built on the boundary's shell parser and exec rules that
// classifies an action as routine or into one of the four classes of harm
// of SPEC G7, and decides:
//
//   - Allow for clear routine work: known-safe read-only commands, builds,
//     tests and installs from a project's manifests or of well-known
//     packages, git work on the user's own branches, writes inside the
//     workspace, temporary directories and known caches, scoped deletions
//     of build outputs, MCP calls to tools that only read;
//   - Deny for clear critical harm: printing or sending private keys and
//     cloud credentials, sending secret files or environment dumps to the
//     network, deleting the file system, the home directory or system
//     files, formatting or overwriting disks, disabling the firewall,
//     SELinux, AppArmor or auditing, disabling TLS verification for good,
//     world-writable or setuid system paths, persisting download-and-run
//     code in shell start-up files;
//   - Escalate (pass on) everything else: to the model reviewer, or to a
//     person. In particular everything whose verdict depends on the user's
//     request or the transcript is passed on.
//
// Its authority is that of SPEC G15: it allows only what is harmless
// whatever the user intended and whose whole effect the request shows. So
// it passes on running code whose text is not in the request (a script
// written or fetched in the run, a project script or program, an
// interpreter file, a command run through another program's options),
// writes to the home directory outside known caches, anything touching
// warden's own state ($WARDEN_HOME, ~/.warden, the managed configuration),
// and anything it cannot parse. It never allows a request to run outside
// the sandbox (require_escalated, a full-access retry, a request in
// full-access mode): the program would read configuration, hooks, pagers,
// helpers and links the agent may have written, which no request shows;
// such requests are passed on, or denied for clear critical harm. Paths are judged where the
// kernel will take them: symbolic links on disk (in the workspace, the
// home and temporary directories) and those the script makes are
// followed, and ".." is applied after them. The paths a blocked write
// asks for (action.Action.Paths) are judged the same way.
//
// What the first pass knows about programs and tools is data, not code:
// programs.yaml, embedded and checked on first use (knowledge.go), says
// how each known program is judged (a mechanism of this package, or the
// effects of its subcommands), which facts hold of it (it runs the
// project, installs, interprets, talks to other hosts, attacks…) and holds
// the named word lists the judges read (verbs, configuration key words,
// sensitive tool words, servers). A Knowledge value carries it to every
// judge; users extend or override it from `[first_pass] programs` in their
// configuration, the managed configuration last (LoadKnowledge).
//
// What the judges ask that needs no judging state lives in packages of
// its own below this one: secret (what holds a secret: paths, text,
// variable names), network (the destinations of words and URLs),
// protection (what text removes a protection, which tool words are
// sensitive), argument (a call's arguments read as leaves, names as
// words) and pattern (regular expressions compiled on first use).
//
// Its test data is one corpus, testdata/corpus, which `warden eval` reads
// too: the held-out and tuning rounds measured against guards
// (rounds.yaml) and the cases of its classes with their near misses
// (cases.yaml), each with where it comes from and why.
//
// Besides the programs and tools it knows, the first pass
// reasons generically about every command and call: a secret (a secret
// file, a variable named like a key, token, secret or password, or one
// assigned from such a variable) reaching a program that can talk to other
// hosts through its words, an input redirection or a here-document; raw IP
// addresses, unusual ports, cloud metadata endpoints, proxies and
// listening on every interface; browser profiles, cookie and login
// databases, keychains and desktop keyrings read by any program or inline
// code; configuration text that removes a protection from infrastructure,
// whichever tool writes it; and tools whose names say identity, payment,
// health, personal records or credentials, which are never routine by
// their verb alone.
//
// A program the tables do not know (unknown.go) is judged by what its words
// show: routine only when it runs in the sandbox, its name and first
// subcommand words say nothing destructive, privileged, remote or
// credential-related, no option alone changes what it does (a bare name
// runs its default; --help and --version print), and every path, URL,
// host, address, variable, inline code and script among its words (and
// option values) lies in the workspace, temporary directories or known
// caches. Otherwise it is passed on with what was seen, or denied when a
// secret reaches a network destination or a sending verb, or the name is
// that of a password cracker.
//
// Across the steps of a run (trajectory.go), the earlier shell steps in
// the transcript ("Running: …" turns, a live run's tool calls) are replayed
// through the same parser, bounded to the last few short ones, to learn
// which files hold secrets, which variables were filled from them and
// which files were written: sending such a file later is denied, running
// such a file is passed on. The transcript is agent-writable, so the
// replay only ever adds strictness.
//
// Judge decides one action.Action, as the called tool describes it
// (action.Describe); JudgeIn also weighs the user's request and the
// transcript before the action, which are weak evidence only: they can
// make an action pass on that would otherwise be allowed (an action
// repeating instructions found in tool output), never the reverse.
// Approver wraps JudgeIn as an approval.Approver, and the package registers
// it as the approver "rules".
//
// One component, one name: this is the first pass, in code, messages and
// documentation. Where a name is a contract it stays "rules" and names the
// first pass: the registered approver (ApproverName), the approvals_reviewer
// and `warden eval --reviewer` value, and the source of its auto_review
// events (event.SourceFirstPass). Exec rules (package rules, --rules files)
// are another thing, which the first pass reads.
package triage

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
	low = iota
	medium
	high
	critical
)

// finding is one observation about an action.
type finding struct {
	dec    vocab.Decision
	class  vocab.Class
	risk   int
	reason string
}

// rank orders findings: deny over escalate over allow, then by risk.
func (f finding) rank() int {
	d := 0
	switch f.dec {
	case vocab.Escalate:
		d = 1
	case vocab.Deny:
		d = 2
	}
	return d*10 + f.risk
}

// verdict accumulates findings.
type verdict struct {
	k       *Knowledge // what the first pass knows about programs
	worst   finding
	set     bool
	notes   []string // further escalation reasons, for the message
	allowed []string // what was recognised as routine
	prior   *trail   // what the earlier steps of the run left (trajectory.go)
	// asked are the words of the user's request and turns (lower case),
	// which name what the user asked the agent to touch.
	asked map[string]bool
}

func (v *verdict) add(f finding) {
	if f.dec == vocab.Allow {
		if len(v.allowed) < 4 && f.reason != "" {
			v.allowed = append(v.allowed, f.reason)
		}
		if !v.set {
			v.worst, v.set = f, true
		}
		return
	}
	if !v.set || f.rank() > v.worst.rank() || f.dec == vocab.Deny && f.rank() == v.worst.rank() && classOrder(f.class) > classOrder(v.worst.class) {
		if v.set && v.worst.dec == vocab.Escalate && f.dec == vocab.Escalate {
			v.note(v.worst.reason)
		}
		v.worst, v.set = f, true
		return
	}
	if f.dec == vocab.Escalate {
		v.note(f.reason)
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

func (v *verdict) note(r string) {
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

func (v *verdict) result() Verdict {
	if !v.set {
		return Verdict{Decision: vocab.Escalate, Class: vocab.Routine, Risk: action.RiskMedium, Reason: "nothing to judge"}
	}
	w := v.worst
	out := Verdict{Decision: w.dec, Class: w.class, Risk: action.RiskAt(w.risk), Reason: w.reason}
	switch w.dec {
	case vocab.Allow:
		out.Class, out.Risk = vocab.Routine, action.RiskLow
		out.Reason = "routine: " + strings.Join(v.allowed, "; ")
		if len(v.allowed) == 0 {
			out.Reason = "routine"
		}
	case vocab.Escalate:
		if w.class == "" {
			out.Class = vocab.Routine
		}
		for _, n := range v.notes {
			if n != w.reason {
				out.Reason += "; " + n
			}
		}
	}
	return out
}

// Judge classifies the action a and decides it (see the package
// documentation). set holds the exec rules in force (nil for none): a
// command a forbidden rule matches is denied, one a prompt rule matches is
// passed on, and an allow rule makes a command routine unless it falls into
// one of the four classes of harm. Judge never fails: what it cannot read
// it passes on.
func Judge(a action.Action, set *rules.Set) Verdict { return JudgeIn(a, "", nil, set) }

// JudgeIn is Judge with the conversation that led to the action as weak
// evidence: the user's request and the turns after it (tool turns are
// untrusted). It can make an action pass on that Judge alone would allow
// (one repeating instructions found only in tool output), never the
// reverse.
func JudgeIn(a action.Action, request string, transcript []vocab.Turn, set *rules.Set) Verdict {
	return (*Knowledge)(nil).JudgeIn(a, request, transcript, set)
}

// Judge is Judge with what k knows about programs (nil for the embedded
// programs file).
func (k *Knowledge) Judge(a action.Action, set *rules.Set) Verdict { return k.JudgeIn(a, "", nil, set) }

// JudgeIn is JudgeIn with what k knows about programs (nil for the
// embedded programs file).
func (k *Knowledge) JudgeIn(a action.Action, request string, transcript []vocab.Turn, set *rules.Set) Verdict {
	v := verdict{k: k.or()}
	if runsOutside(&a) {
		// What runs outside the sandbox may change any directory: the
		// lookups remembered so far, and any made from now on, could
		// go stale.
		v.k.fs.stop()
	}
	v.prior = replayTrail(v.k, transcript, a.Cwd)
	v.asked = askedWords(request, transcript)
	judgeAction(&v, &a, set, 0)
	if a.Sandbox == "read-only" && (a.Kind == action.FileEdit || len(a.Paths) > 0) && v.worst.dec == vocab.Allow {
		// A write the read-only sandbox blocked: widening it is never
		// routine, whatever the write.
		v.add(finding{vocab.Escalate, vocab.Routine, medium, "a write in read-only mode"})
	}
	if v.worst.dec == vocab.Allow {
		if r := injected(&a, request, transcript); r != "" {
			v.add(finding{vocab.Escalate, vocab.Routine, medium, r})
		}
	}
	if v.worst.dec == vocab.Allow && runsOutside(&a) {
		// Escalation is never the first pass's to grant (G15): what runs
		// outside the sandbox reads configuration, hooks, pagers, helpers
		// and links the agent may have written, which the request does not
		// show. Denials stand; everything else is passed on.
		v.add(finding{vocab.Escalate, vocab.Routine, medium, "it asks to run outside the sandbox, where the program reads configuration, hooks, pagers, helpers and links the agent may have written, which the request does not show"})
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
func judgeAction(v *verdict, a *action.Action, set *rules.Set, depth int) {
	switch a.Kind {
	case action.Shell:
		judgeShell(v, a, set)
	case action.MCP, action.FileEdit, action.Network:
		judge, ok := actionJudges[a.Kind]
		if !ok {
			v.add(finding{vocab.Escalate, vocab.Routine, medium, "no judge of " + string(a.Kind) + " actions"})
			return
		}
		judge(v, a, set)
	case action.Text:
		v.add(finding{vocab.Allow, vocab.Routine, low, "text written by the agent"})
	case action.Sequence:
		if len(a.Actions) == 0 || depth > 4 {
			v.add(finding{vocab.Escalate, vocab.Routine, medium, "empty or too deeply nested sequence"})
			return
		}
		for i := range a.Actions {
			sub := a.Actions[i]
			judgeAction(v, &sub, set, depth+1)
		}
	default:
		v.add(finding{vocab.Escalate, vocab.Routine, medium, "unknown kind of action " + string(a.Kind)})
	}
}
