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
// programs.yaml, embedded as generated tables and checked on first use
// (judge/knowledge.go), says how each known program is judged (a judge
// registered by name, or the
// effects of its subcommands), which facts hold of it (it runs the
// project, installs, interprets, talks to other hosts, attacks…) and holds
// the named word lists the judges read (verbs, configuration key words,
// sensitive tool words, servers). A Knowledge value carries it to every
// judge; users extend or override it from `[first_pass] programs` in their
// configuration, the managed configuration last (LoadKnowledge).
//
// This package assembles the first pass; its parts are packages of their
// own, found by name. judge holds what every judge works with — the
// verdict, the state of judging a shell script (walking its commands, the
// paths they touch, the data flowing between them and the earlier steps
// of a run), the programs knowledge — and the registries the judges join
// by name. The judges are program (the programs a shell command runs:
// developer tools, file operations, network, system, infrastructure, text
// tools, unknown programs), fileedit (file edits) and tool (MCP and
// function tool calls, fetches); importing this package registers them.
// What the judges ask that needs no judging state lives in packages below
// them: secret (what holds a secret: paths, text,
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
// A program the tables do not know (program/unknown.go) is judged by what its words
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
// Across the steps of a run (judge/trajectory.go), the earlier shell steps in
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
	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/triage/judge"
	_ "github.com/wardenhq/warden/internal/triage/program"
	_ "github.com/wardenhq/warden/internal/triage/tool"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/internal/wardenhome"
	"github.com/wardenhq/warden/rules"

	// The judges register themselves with package judge by name: of
	// programs, of file edits, of MCP and function tool calls and
	// fetches.
	_ "github.com/wardenhq/warden/internal/triage/fileedit"
)

//go:generate go run ./gen -in programs.yaml -out judge/programs_gen.go

// Verdict is the outcome of Judge.
type Verdict = judge.Verdict

// Knowledge is what the first pass knows about programs (judge.Knowledge):
// the embedded programs file, extended by the configured ones.
type Knowledge = judge.Knowledge

// LoadKnowledge builds what the first pass knows from the embedded
// programs file and those the configuration names (judge.LoadKnowledge).
func LoadKnowledge(src wardenhome.ConfigSources) (*Knowledge, error) { return judge.LoadKnowledge(src) }

// Judge classifies the action a and decides it (see the package
// documentation). set holds the exec rules in force (nil for none): a
// command a forbidden rule matches is denied, one a prompt rule matches is
// passed on, and an allow rule makes a command routine unless it falls into
// one of the four classes of harm. Judge never fails: what it cannot read
// it passes on.
func Judge(a action.Action, set *rules.Set) judge.Verdict { return JudgeIn(a, "", nil, set) }

// JudgeIn is Judge with the conversation that led to the action as weak
// evidence: the user's request and the turns after it (tool turns are
// untrusted). It can make an action pass on that Judge alone would allow
// (one repeating instructions found only in tool output), never the
// reverse.
func JudgeIn(a action.Action, request string, transcript []vocab.Turn, set *rules.Set) judge.Verdict {
	return (*judge.Knowledge)(nil).JudgeIn(a, request, transcript, set)
}
