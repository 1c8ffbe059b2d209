// Package task reads task files: what a run asks of an agent, with which
// tools, limits, policies and sub-agents.
package task

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/approvalsreviewer"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/filepos"
	"github.com/wardenhq/warden/internal/policyfile"
	"github.com/wardenhq/warden/internal/toolbox"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/sandbox"
)

// Task is a parsed task file.
type Task struct {
	// Path is the file the task was read from; Dir its directory.
	Path string
	Dir  string

	Name   string
	System string
	// Input is the user message.
	Input string
	// Workdir is the working directory, absolute; empty means a fresh
	// temporary directory.
	Workdir string
	// Tools are built-in tool names.
	Tools []string
	// MaxOutput is the max_output key; nil when not set.
	MaxOutput *int
	Limits    agent.Limits
	// Approval and Review are the task-level policies; nil when not set.
	Approval *Policy
	Review   *Policy
	// Agents are the sub-agents, in file order.
	Agents []SubAgent
	// Model is the model spec the task names (an extension of the file
	// format); a relative scripted: path is resolved against Dir.
	Model string
	// Sandbox is the sandbox: section; nil when not set (commands then run
	// without a sandbox unless a flag sets one).
	Sandbox *SandboxConfig
	// Rules are exec rules files (Codex .rules or YAML), absolute.
	Rules []string
	// ApprovalsReviewer says who decides requests to cross the sandbox
	// boundary (SPEC G3): ["user"] (a person; the default when empty),
	// ["auto_review"] (the first pass, then the reviewer agent), or a list
	// of approvers asked in order, the first decision that is not escalate
	// winning (SPEC A3): "first_pass" (the first pass, passing on what is
	// not clear; "rules", its old name, is accepted with a warning), "auto_review" (the reviewer agent alone), "human" or "user"
	// (a person), or any other registered approver (SPEC P3).
	ApprovalsReviewer []string
	// PinPolicy is the pin_policy key: the run's policies (the operator's,
	// else the task's) apply to every agent, replacing the agents' own.
	PinPolicy bool
	// MaxConcurrentCalls and MaxCallsPerMessage are the
	// max_concurrent_calls and max_calls_per_message keys (SPEC L1); 0
	// when not set.
	MaxConcurrentCalls int
	MaxCallsPerMessage int

	// at is where each top-level key's value is in the file, for errors
	// found when the run is prepared (a model file that does not load, a
	// sandbox that cannot be enforced); nil for a task rebuilt from a
	// transcript.
	at map[string]policy.Pos
}

// ParseApprovalsReviewer reads an approvals_reviewer value as given on the
// command line: one name, or a list of names separated by commas (with or
// without surrounding brackets). "" is ["user"]. Every name must be user,
// auto_review, first_pass, human or a registered approver.
func ParseApprovalsReviewer(s string) ([]string, error) { return approvalsreviewer.Parse(s) }

// Warnings returns what in the task, with opts, is accepted but should be
// written another way: the old names of approvers (the first pass as
// "rules", whose name is now "first_pass") in approvals_reviewer and in
// the approval policies of the task and its agents, each at its place.
func (t *Task) Warnings(opts Options) []string {
	var out []string
	if opts.ApprovalsReviewer != "" {
		who, _ := ParseApprovalsReviewer(opts.ApprovalsReviewer)
		for _, w := range approvalsreviewer.Warnings(who) {
			out = append(out, "--approvals-reviewer: "+w)
		}
	} else {
		at := t.Path
		if pos, ok := t.at["approvals_reviewer"]; ok {
			at = pos.String()
		}
		for _, w := range approvalsreviewer.Warnings(t.ApprovalsReviewer) {
			out = append(out, at+": approvals_reviewer: "+w)
		}
	}
	if now, ok := approval.Renamed(opts.Approval); ok {
		out = append(out, "--approval: "+approvalsreviewer.RenameWarning(opts.Approval, now))
	}
	policies := []*Policy{t.Approval}
	for _, a := range t.Agents {
		policies = append(policies, a.Approval)
	}
	for _, p := range policies {
		if p == nil {
			continue
		}
		for _, e := range p.Entries {
			if now, ok := approval.Renamed(e.Name); ok {
				out = append(out, e.Pos.String()+": "+approvalsreviewer.RenameWarning(e.Name, now))
			}
		}
	}
	return out
}

// checkApprovalsReviewers checks a list of approvals reviewers; an empty
// list is ["user"].
func checkApprovalsReviewers(names []string) ([]string, error) { return approvalsreviewer.Check(names) }

// SubAgent is an entry of the agents: map.
type SubAgent struct {
	Name        string
	Description string
	System      string
	Tools       []string
	Approval    *Policy
	Review      *Policy
	Pos         policy.Pos
}

// Policy is a policy set in a task file: its entries, where they came from.
type Policy struct {
	Entries []policy.Entry
	// Source is the file path or registered name the policy was given as,
	// or "inline".
	Source string
}

// Size limits of task files (issue 10 item 8): a task file is read only
// up to MaxFile bytes, and its input: (the person's request, copied into
// the transcript and every model request) is at most MaxInput bytes.
const (
	MaxFile  = 4 << 20
	MaxInput = 1 << 20
)

// Load reads and validates the task file at path. A file larger than
// MaxFile is an error that says its size and the limit.
func Load(path string) (*Task, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFile {
		n := int64(len(data))
		if fi, err := f.Stat(); err == nil {
			n = fi.Size()
		}
		return nil, &policy.Error{Pos: policy.Pos{File: path, Line: 1, Col: 1},
			Msg: fmt.Sprintf("the task file is %s; the limit is %s (input: at most %s)", size(int(n)), size(MaxFile), size(MaxInput))}
	}
	return Parse(data, path)
}

// size renders n bytes readably: "512 bytes", "1 MiB", "200.5 MiB".
func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return trimZero(float64(n)/(1<<10)) + " KiB"
	case n < 1<<30:
		return trimZero(float64(n)/(1<<20)) + " MiB"
	}
	return trimZero(float64(n)/(1<<30)) + " GiB"
}

func trimZero(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}

// Parse parses a task file named file. Errors say file:line:col.
func Parse(data []byte, file string) (*Task, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	t := &Task{Path: file, Dir: filepath.Dir(abs), at: map[string]policy.Pos{}}
	doc, err := filepos.ParseYAML(file, data)
	if err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &policy.Error{Pos: policy.Pos{File: file, Line: 1, Col: 1}, Msg: "a task file is a mapping with name: and input:"}
	}
	root := doc.Content[0]
	p := parser{file: file, dir: t.Dir, handoffs: new([]*yaml.Node)}
	var inputSet bool
	seen := map[string]*yaml.Node{}
	// Every key is read, and every problem reported (issue 10 item 5:
	// `warden check` lists them all).
	var errs []error
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if err := p.unique(seen, k); err != nil {
			errs = append(errs, err)
			continue
		}
		t.at[k.Value] = filepos.NodePos(file, v)
		switch k.Value {
		case "name":
			t.Name, err = p.str(v, "name")
		case "system":
			t.System, err = p.str(v, "system")
		case "input":
			t.Input, err = p.str(v, "input")
			if err == nil && len(t.Input) > MaxInput {
				err = filepos.Errorf(file, v, "input is %s; the limit is %s", size(len(t.Input)), size(MaxInput))
			}
			inputSet = true
		case "model":
			t.Model, err = p.str(v, "model")
			if err == nil {
				t.Model = resolveModel(t.Model, t.Dir)
			}
		case "workdir":
			var w string
			w, err = p.str(v, "workdir")
			if err == nil {
				if !filepath.IsAbs(w) {
					w = filepath.Join(t.Dir, w)
				}
				t.Workdir = w
				if st, serr := os.Stat(w); serr != nil || !st.IsDir() {
					err = filepos.Errorf(file, v, "workdir %s is not a directory", w)
				}
			}
		case "tools":
			t.Tools, err = p.tools(v)
		case "max_output":
			var n int
			n, err = p.nonNegInt(v, "max_output")
			t.MaxOutput = &n
		case "limits":
			t.Limits, err = p.limits(v)
		case "approval":
			t.Approval, err = p.policy(v, policyfile.Approval)
		case "review":
			t.Review, err = p.policy(v, policyfile.Review)
		case "agents":
			t.Agents, err = p.agents(v)
		case "sandbox":
			t.Sandbox, err = p.sandbox(v)
		case "rules":
			t.Rules, err = p.paths(v, "rules")
		case "approvals_reviewer":
			if t.ApprovalsReviewer, err = p.names(v, "approvals_reviewer"); err == nil {
				if _, perr := checkApprovalsReviewers(t.ApprovalsReviewer); perr != nil {
					err = &policy.Error{Pos: filepos.NodePos(file, v), Err: perr}
				}
			}
		case "pin_policy":
			t.PinPolicy, err = p.boolean(v, "pin_policy")
		case "max_concurrent_calls":
			t.MaxConcurrentCalls, err = p.posInt(v, "max_concurrent_calls")
		case "max_calls_per_message":
			t.MaxCallsPerMessage, err = p.posInt(v, "max_calls_per_message")
		default:
			err = filepos.Errorf(file, k, "unknown key %q (keys: name, system, input, model, workdir, tools, max_output, limits, approval, review, agents, sandbox, rules, approvals_reviewer, pin_policy, max_concurrent_calls, max_calls_per_message)", k.Value)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if !inputSet {
		errs = append(errs, filepos.Errorf(file, root, "task has no input:"))
	}
	if t.Name == "" {
		t.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if err := t.checkHandoffs(*p.handoffs); err != nil {
		errs = append(errs, err)
	}
	switch len(errs) {
	case 0:
		return t, nil
	case 1:
		return nil, errs[0]
	}
	return nil, errors.Join(errs...)
}

// atKey returns err at the position of the task's key, unless err already
// names a position of its own (a model or rules file's file:line:col) or
// the task has no such key.
func (t *Task) atKey(key string, err error) error {
	pos, ok := t.at[key]
	if err == nil || !ok || positioned().MatchString(err.Error()) {
		return err
	}
	return &policy.Error{Pos: pos, Err: err}
}

// positioned matches an error message that starts with file:line:col.
var positioned = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\S+:\d+:\d+: `) })

// checkHandoffs allows transfer_to_<agent> in tools lists only for declared
// agents. nodes are the transfer_to_ entries of the tools lists.
func (t *Task) checkHandoffs(nodes []*yaml.Node) error {
	known := map[string]bool{}
	for _, a := range t.Agents {
		known[a.Name] = true
	}
	for _, n := range nodes {
		if name, ok := strings.CutPrefix(n.Value, eventkind.HandoffPrefix); ok && !known[name] {
			return filepos.Errorf(t.Path, n, "tool %s: no agent %q is declared under agents:", n.Value, name)
		}
	}
	return nil
}

// resolveModel resolves a relative scripted:PATH against dir.
func resolveModel(spec, dir string) string {
	if p, ok := strings.CutPrefix(spec, "scripted:"); ok && !filepath.IsAbs(p) {
		return "scripted:" + filepath.Join(dir, p)
	}
	return spec
}

type parser struct {
	file string
	dir  string
	// handoffs collects the transfer_to_ entries of tools lists, checked
	// once every agent is known.
	handoffs *[]*yaml.Node
}

// unique reports a key given twice in one mapping, as the YAML decoder does
// for maps and structs but not for a yaml.Node.
func (p parser) unique(seen map[string]*yaml.Node, k *yaml.Node) error {
	if prev, ok := seen[k.Value]; ok {
		return filepos.Errorf(p.file, k, "mapping key %q already defined at line %d", k.Value, prev.Line)
	}
	seen[k.Value] = k
	return nil
}

// fields calls fn on each key and value of the mapping n in order, after
// checking that the key is not given twice; it stops at the first error.
func (p parser) fields(n *yaml.Node, fn func(k, v *yaml.Node) error) error {
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := p.unique(seen, k); err != nil {
			return err
		}
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func (p parser) str(v *yaml.Node, key string) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return "", filepos.Errorf(p.file, v, "%s must be a string", key)
	}
	return v.Value, nil
}

// names reads a name or a list of names.
func (p parser) names(v *yaml.Node, key string) ([]string, error) {
	if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
		return []string{v.Value}, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, filepos.Errorf(p.file, v, "%s must be a name or a list of names", key)
	}
	var out []string
	for _, n := range v.Content {
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Value == "" {
			return nil, filepos.Errorf(p.file, n, "%s: each entry must be a name", key)
		}
		out = append(out, n.Value)
	}
	return out, nil
}

func (p parser) nonNegInt(v *yaml.Node, key string) (int, error) {
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || n < 0 {
		return 0, filepos.Errorf(p.file, v, "%s must be a whole number ≥ 0", key)
	}
	return n, nil
}

func (p parser) posInt(v *yaml.Node, key string) (int, error) {
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || n < 1 {
		return 0, filepos.Errorf(p.file, v, "%s must be a whole number ≥ 1", key)
	}
	return n, nil
}

func (p parser) boolean(v *yaml.Node, key string) (bool, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		return false, filepos.Errorf(p.file, v, "%s must be true or false", key)
	}
	return v.Value == "true" || v.Value == "True" || v.Value == "TRUE", nil
}

func (p parser) tools(v *yaml.Node) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, filepos.Errorf(p.file, v, "tools must be a list of tool names")
	}
	names := []string{}
	for _, n := range v.Content {
		if n.Kind != yaml.ScalarNode {
			return nil, filepos.Errorf(p.file, n, "tools: each tool must be a name")
		}
		if strings.HasPrefix(n.Value, eventkind.HandoffPrefix) {
			*p.handoffs = append(*p.handoffs, n)
		} else if !isTool(n.Value) {
			return nil, filepos.Errorf(p.file, n, "unknown tool %q (built-in tools: %s)", n.Value, strings.Join(toolbox.Names(), ", "))
		}
		names = append(names, n.Value)
	}
	return names, nil
}

func isTool(name string) bool {
	for _, n := range toolbox.Names() {
		if n == name {
			return true
		}
	}
	return false
}

func (p parser) limits(v *yaml.Node) (agent.Limits, error) {
	var l agent.Limits
	if v.Kind != yaml.MappingNode {
		return l, filepos.Errorf(p.file, v, "limits must be a mapping with turns: and tokens:")
	}
	err := p.fields(v, func(k, val *yaml.Node) (err error) {
		switch k.Value {
		case "turns":
			l.Turns, err = p.nonNegInt(val, "limits.turns")
		case "tokens":
			l.Tokens, err = p.nonNegInt(val, "limits.tokens")
		default:
			err = filepos.Errorf(p.file, k, "unknown limit %q (limits: turns, tokens)", k.Value)
		}
		return err
	})
	return l, err
}

// policy reads a policy value: a file path relative to the task file, a
// registered name, or an inline list of entries.
func (p parser) policy(v *yaml.Node, kind policyfile.Kind) (*Policy, error) {
	switch v.Kind {
	case yaml.SequenceNode:
		entries, err := policyfile.ParseEntries(v, p.file)
		if err != nil {
			return nil, err
		}
		if err := checkNames(entries, kind); err != nil {
			return nil, err
		}
		return &Policy{Entries: entries, Source: "inline"}, nil
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return &Policy{Entries: []policy.Entry{}, Source: "inline"}, nil
		}
		entries, err := resolvePolicy(v.Value, p.dir, kind)
		if err != nil {
			var pe *policy.Error
			if errors.As(err, &pe) {
				return nil, err
			}
			return nil, &policy.Error{Pos: filepos.NodePos(p.file, v), Err: err}
		}
		return &Policy{Entries: entries, Source: v.Value}, nil
	}
	return nil, filepos.Errorf(p.file, v, "a policy is a file path, a registered name or a list of entries")
}

func (p parser) agents(v *yaml.Node) ([]SubAgent, error) {
	if v.Kind != yaml.MappingNode {
		return nil, filepos.Errorf(p.file, v, "agents must map agent names to {description, system, tools, approval, review}")
	}
	var out []SubAgent
	err := p.fields(v, func(k, val *yaml.Node) error {
		if k.Value == "" || k.Value == eventkind.MainAgent || strings.ContainsAny(k.Value, " \t\n/") {
			return filepos.Errorf(p.file, k, "invalid agent name %q", k.Value)
		}
		a := SubAgent{Name: k.Value, Pos: filepos.NodePos(p.file, k)}
		if val.Kind != yaml.MappingNode {
			return filepos.Errorf(p.file, val, "agent %s must be a mapping", k.Value)
		}
		err := p.fields(val, func(ak, av *yaml.Node) (err error) {
			switch ak.Value {
			case "description":
				a.Description, err = p.str(av, "description")
			case "system":
				a.System, err = p.str(av, "system")
			case "tools":
				a.Tools, err = p.tools(av)
				for _, n := range av.Content {
					if err == nil && strings.HasPrefix(n.Value, eventkind.HandoffPrefix) {
						err = filepos.Errorf(p.file, n, "tool %s: sub-agents cannot hand off; only the main agent has transfer_to_ tools", n.Value)
					}
				}
			case "approval":
				a.Approval, err = p.policy(av, policyfile.Approval)
			case "review":
				a.Review, err = p.policy(av, policyfile.Review)
			default:
				err = filepos.Errorf(p.file, ak, "unknown key %q in agent %s (keys: description, system, tools, approval, review)", ak.Value, k.Value)
			}
			return err
		})
		out = append(out, a)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// resolvePolicy resolves a policy given as a string (SPEC P4): a file path
// (relative to dir) if such a file exists, else a registered name applied to
// all tools. Names in a file are checked against the registry.
func resolvePolicy(spec, dir string, kind policyfile.Kind) ([]policy.Entry, error) {
	registered, names := approval.Registered, approval.Names()
	if kind == policyfile.Review {
		registered, names = review.Registered, review.Names()
	}
	entries, err := policyfile.Resolve(spec, dir, kind, registered, names)
	if err != nil {
		return nil, err
	}
	if err := checkNames(entries, kind); err != nil {
		return nil, err
	}
	return entries, nil
}

// checkNames reports the first entry whose name is not registered, at its
// position, listing the registered names.
func checkNames(entries []policy.Entry, kind policyfile.Kind) error {
	for _, e := range entries {
		var ok bool
		var names []string
		what := "approver"
		if kind == policyfile.Approval {
			ok, names = approval.Registered(e.Name), approval.Names()
		} else {
			ok, names, what = review.Registered(e.Name), review.Names(), "reviewer"
		}
		if !ok {
			return &policy.Error{Pos: e.Pos, Msg: fmt.Sprintf("unknown %s %q (registered: %s)", what, e.Name, strings.Join(names, ", "))}
		}
	}
	return nil
}

// sandbox reads the sandbox: section {mode, writable_roots, network_access}.
func (p parser) sandbox(v *yaml.Node) (*SandboxConfig, error) {
	if v.Kind != yaml.MappingNode {
		return nil, filepos.Errorf(p.file, v, "sandbox must be a mapping with mode:, writable_roots:, network_access:")
	}
	c := &SandboxConfig{}
	err := p.fields(v, func(k, val *yaml.Node) (err error) {
		switch k.Value {
		case "mode":
			if c.Mode, err = p.str(val, "sandbox.mode"); err == nil {
				if _, perr := sandbox.ParseMode(c.Mode); perr != nil {
					err = &policy.Error{Pos: filepos.NodePos(p.file, val), Err: perr}
				}
			}
		case "writable_roots":
			c.WritableRoots, err = p.paths(val, "sandbox.writable_roots")
		case "network_access":
			if val.Kind != yaml.ScalarNode || (val.Value != "true" && val.Value != "false") {
				err = filepos.Errorf(p.file, val, "sandbox.network_access must be true or false")
			}
			c.NetworkAccess = val.Value == "true"
		default:
			err = filepos.Errorf(p.file, k, "unknown key %q in sandbox (keys: mode, writable_roots, network_access)", k.Value)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// paths reads a list of paths, made absolute against the task's directory.
func (p parser) paths(v *yaml.Node, key string) ([]string, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, filepos.Errorf(p.file, v, "%s must be a list of paths", key)
	}
	out := []string{}
	for _, n := range v.Content {
		if n.Kind != yaml.ScalarNode || n.Value == "" {
			return nil, filepos.Errorf(p.file, n, "%s: each entry must be a path", key)
		}
		path := n.Value
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.dir, path)
		}
		out = append(out, path)
	}
	return out, nil
}
