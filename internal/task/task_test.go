package task_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/eventtest"
	"github.com/wardenhq/warden/internal/filetest"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/internal/toolbox"
	_ "github.com/wardenhq/warden/model/scripted"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
	_ "github.com/wardenhq/warden/tool/bash"
	_ "github.com/wardenhq/warden/tool/editor"
)

// Names registered by these tests, so that task files can use them.
const (
	gateApprover  = "task-test-gate"
	auditReviewer = "task-test-audit"
)

// init registers the tests' names, and keeps the state of tests that run
// tasks without setting WARDEN_HOME — transcripts and the key that
// authenticates overrides — out of the real home directory. (An init function, not TestMain, so that other files of
// the package may have their own TestMain.)
func init() {
	if os.Getenv("WARDEN_HOME") == "" {
		_ = os.Setenv("WARDEN_HOME", filepath.Join(os.TempDir(), "warden-test-home"))
	}
	approval.Register(gateApprover, func(map[string]any) (approval.Approver, error) {
		return approval.Auto(approval.Approve, "gate"), nil
	})
	review.Register(auditReviewer, func(map[string]any) (review.Reviewer, error) {
		return review.Auto(review.Continue, "audit"), nil
	})
}

// write writes content to dir/name, making directories, and returns the path.
func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	return filetest.Write(t, dir, name, content)
}

// load writes a task file named name into dir and loads it.
func load(t *testing.T, dir, name, src string) (*task.Task, error) {
	t.Helper()
	return task.Load(write(t, dir, name, src))
}

// mustLoad is load for task files that must be valid.
func mustLoad(t *testing.T, dir, name, src string) *task.Task {
	t.Helper()
	tk, err := load(t, dir, name, src)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return tk
}

// entriesJSON renders entries as they appear in a transcript, positions
// left out, so that tests compare what a policy says.
func entriesJSON(t *testing.T, entries []policy.Entry) string {
	t.Helper()
	if entries == nil {
		return "null"
	}
	data, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The example task of docs/tasks.md, every key given.
func TestTaskFile_EveryKey(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "project"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "approval.yaml", "approvers:\n  - name: auto\n    tools: \"bash(cmd='rm\"\n    decision: reject\n  - name: auto\n")
	tk := mustLoad(t, dir, "fix.yaml", `name: fix-tests
system: You are a careful engineer.
input: Make the tests pass.
workdir: project
model: scripted:turns.yaml
tools: [bash, text_editor, transfer_to_tester]
max_output: 16384
limits: {turns: 30, tokens: 200000}
approval: approval.yaml
review: auto
agents:
  tester:
    description: Runs the tests and reports failures.
    system: You run tests.
    tools: [bash]
    approval: [{name: auto, tools: "bash(cmd='go test"}]
    review: []
  writer:
    description: Writes code.
    tools: [text_editor]
`)
	if tk.Name != "fix-tests" || tk.System != "You are a careful engineer." || tk.Input != "Make the tests pass." {
		t.Errorf("name, system, input = %q, %q, %q", tk.Name, tk.System, tk.Input)
	}
	if tk.Dir != dir || tk.Path != filepath.Join(dir, "fix.yaml") {
		t.Errorf("path %q dir %q", tk.Path, tk.Dir)
	}
	if want := filepath.Join(dir, "project"); tk.Workdir != want {
		t.Errorf("workdir = %q, want %q", tk.Workdir, want)
	}
	if want := "scripted:" + filepath.Join(dir, "turns.yaml"); tk.Model != want {
		t.Errorf("model = %q, want %q", tk.Model, want)
	}
	if want := []string{"bash", "text_editor", "transfer_to_tester"}; !reflect.DeepEqual(tk.Tools, want) {
		t.Errorf("tools = %q, want %q", tk.Tools, want)
	}
	if tk.MaxOutput == nil || *tk.MaxOutput != 16384 {
		t.Errorf("max_output = %v", tk.MaxOutput)
	}
	if tk.Limits != (agent.Limits{Turns: 30, Tokens: 200000}) {
		t.Errorf("limits = %+v", tk.Limits)
	}
	if tk.Approval == nil || tk.Approval.Source != "approval.yaml" {
		t.Fatalf("approval = %+v", tk.Approval)
	}
	if got, want := entriesJSON(t, tk.Approval.Entries), `[{"name":"auto","tools":["bash(cmd='rm"],"decision":"reject"},{"name":"auto","tools":["*"]}]`; got != want {
		t.Errorf("approval entries = %s, want %s", got, want)
	}
	if tk.Review == nil || tk.Review.Source != "auto" || entriesJSON(t, tk.Review.Entries) != `[{"name":"auto","tools":["*"]}]` {
		t.Errorf("review = %+v", tk.Review)
	}
	if len(tk.Agents) != 2 {
		t.Fatalf("agents = %+v", tk.Agents)
	}
	tester, writer := tk.Agents[0], tk.Agents[1]
	if tester.Name != "tester" || tester.Description != "Runs the tests and reports failures." || tester.System != "You run tests." ||
		!reflect.DeepEqual(tester.Tools, []string{"bash"}) {
		t.Errorf("tester = %+v", tester)
	}
	if tester.Pos != (policy.Pos{File: tk.Path, Line: 12, Col: 3}) {
		t.Errorf("tester at %v, want %s:12:3", tester.Pos, tk.Path)
	}
	if tester.Approval == nil || tester.Approval.Source != "inline" ||
		entriesJSON(t, tester.Approval.Entries) != `[{"name":"auto","tools":["bash(cmd='go test"]}]` {
		t.Errorf("tester approval = %+v", tester.Approval)
	}
	if tester.Review == nil || tester.Review.Entries == nil || len(tester.Review.Entries) != 0 {
		t.Errorf("tester review = %+v, want explicitly empty", tester.Review)
	}
	if writer.Name != "writer" || writer.System != "" || writer.Approval != nil || writer.Review != nil ||
		!reflect.DeepEqual(writer.Tools, []string{"text_editor"}) {
		t.Errorf("writer = %+v", writer)
	}
}

func TestTaskFile_NameDefaultsToFileName(t *testing.T) {
	tests := []struct{ file, src, want string }{
		{"fix-tests.yaml", "input: go\n", "fix-tests"},
		{"nightly.task.yml", "input: go\n", "nightly.task"},
		{"plain", "input: go\n", "plain"},
		{"empty-name.yaml", "name: ''\ninput: go\n", "empty-name"},
		{"file.yaml", "name: given\ninput: go\n", "given"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			if tk := mustLoad(t, t.TempDir(), tt.file, tt.src); tk.Name != tt.want {
				t.Errorf("name = %q, want %q", tk.Name, tt.want)
			}
		})
	}
}

func TestTaskFile_UnsetKeysAreZero(t *testing.T) {
	tk := mustLoad(t, t.TempDir(), "t.yaml", "input: go\n")
	if tk.System != "" || tk.Workdir != "" || tk.Model != "" || len(tk.Tools) != 0 || tk.MaxOutput != nil ||
		tk.Limits != (agent.Limits{}) || tk.Approval != nil || tk.Review != nil || len(tk.Agents) != 0 {
		t.Errorf("task = %+v", tk)
	}
}

// Relative paths in a task file are relative to the file, not to the
// process's working directory.
func TestTaskFile_PathsAreRelativeToTheTaskFile(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"tasks/work", "project", "elsewhere"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, root, "tasks/policies/approve.yaml", "approvers:\n  - name: auto\n    tools: bash\n")
	write(t, root, "tasks/policies/review.yaml", "reviewers:\n  - name: auto\n    tools: text_editor\n")
	src := `input: go
workdir: %s
model: scripted:turns/%s.yaml
approval: policies/approve.yaml
review: policies/review.yaml
`
	write(t, root, "tasks/a.yaml", fmt.Sprintf(src, "work", "a"))
	write(t, root, "tasks/b.yaml", fmt.Sprintf(src, "../project", "b"))
	write(t, root, "tasks/c.yaml", fmt.Sprintf(src, filepath.Join(root, "elsewhere"), "c"))
	t.Chdir(filepath.Join(root, "elsewhere"))

	tests := []struct{ file, workdir, model string }{
		{"../tasks/a.yaml", filepath.Join(root, "tasks/work"), "scripted:" + filepath.Join(root, "tasks/turns/a.yaml")},
		{"../tasks/b.yaml", filepath.Join(root, "project"), "scripted:" + filepath.Join(root, "tasks/turns/b.yaml")},
		{filepath.Join(root, "tasks/c.yaml"), filepath.Join(root, "elsewhere"), "scripted:" + filepath.Join(root, "tasks/turns/c.yaml")},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			tk, err := task.Load(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if tk.Dir != filepath.Join(root, "tasks") {
				t.Errorf("dir = %q", tk.Dir)
			}
			if tk.Workdir != tt.workdir {
				t.Errorf("workdir = %q, want %q", tk.Workdir, tt.workdir)
			}
			if tk.Model != tt.model {
				t.Errorf("model = %q, want %q", tk.Model, tt.model)
			}
			if got := entriesJSON(t, tk.Approval.Entries); got != `[{"name":"auto","tools":["bash"]}]` {
				t.Errorf("approval = %s", got)
			}
			if got := entriesJSON(t, tk.Review.Entries); got != `[{"name":"auto","tools":["text_editor"]}]` {
				t.Errorf("review = %s", got)
			}
			// Entries read from a policy file say where they were written.
			if pos := tk.Approval.Entries[0].Pos; pos != (policy.Pos{File: filepath.Join(root, "tasks/policies/approve.yaml"), Line: 2, Col: 5}) {
				t.Errorf("approval entry at %v", pos)
			}
		})
	}
}

func TestTaskFile_Model(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ model, want string }{
		{"scripted:turns.yaml", "scripted:" + filepath.Join(dir, "turns.yaml")},
		{"scripted:../shared/turns.yaml", "scripted:" + filepath.Join(filepath.Dir(dir), "shared/turns.yaml")},
		{"scripted:/abs/turns.yaml", "scripted:/abs/turns.yaml"},
		{"openai/gpt-4o", "openai/gpt-4o"},
		{"anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4-5"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			tk := mustLoad(t, dir, "t.yaml", "input: go\nmodel: "+tt.model+"\n")
			if tk.Model != tt.want {
				t.Errorf("model = %q, want %q", tk.Model, tt.want)
			}
		})
	}
}

func TestTaskFile_MaxOutputAndLimits(t *testing.T) {
	tests := []struct {
		src    string
		max    *int
		limits agent.Limits
	}{
		{"max_output: 0\n", ptr(0), agent.Limits{}},
		{"max_output: 100\n", ptr(100), agent.Limits{}},
		{"limits: {turns: 5}\n", nil, agent.Limits{Turns: 5}},
		{"limits:\n  tokens: 1000\n  turns: 0\n", nil, agent.Limits{Tokens: 1000}},
		{"limits: {}\n", nil, agent.Limits{}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			tk := mustLoad(t, t.TempDir(), "t.yaml", "input: go\n"+tt.src)
			if (tk.MaxOutput == nil) != (tt.max == nil) || (tk.MaxOutput != nil && *tk.MaxOutput != *tt.max) {
				t.Errorf("max_output = %v, want %v", deref(tk.MaxOutput), deref(tt.max))
			}
			if tk.Limits != tt.limits {
				t.Errorf("limits = %+v, want %+v", tk.Limits, tt.limits)
			}
		})
	}
}

func ptr(n int) *int { return &n }

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// A policy is a file relative to the task file, a registered name, or an
// inline list; an explicitly empty list or null is an empty policy, which is
// not the same as no policy at all (SPEC P4, P6).
func TestTaskFile_PolicyForms(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "policies/approval.yaml", "approvers:\n  - name: "+gateApprover+"\n    tools: bash\n")
	write(t, dir, "policies/review.yaml", "reviewers:\n  - name: "+auditReviewer+"\n    tool: bash\n    args: {cmd: 'git *'}\n")
	// A file wins over a registered name of the same name (SPEC P4).
	write(t, dir, "auto", "approvers:\n  - name: auto\n    tools: python\n    decision: reject\n")

	tests := []struct {
		name     string
		approval string // the value of approval: ("" leaves the key out)
		review   string
		wantA    string // entries as JSON; "nil" for no policy
		srcA     string
		wantR    string
		srcR     string
	}{
		{
			name:     "file",
			approval: "policies/approval.yaml", review: "policies/review.yaml",
			wantA: `[{"name":"task-test-gate","tools":["bash"]}]`, srcA: "policies/approval.yaml",
			wantR: `[{"name":"task-test-audit","tool":"bash","args":{"cmd":"git *"}}]`, srcR: "policies/review.yaml",
		},
		{
			name:     "registered name",
			approval: gateApprover, review: auditReviewer,
			wantA: `[{"name":"task-test-gate","tools":["*"]}]`, srcA: gateApprover,
			wantR: `[{"name":"task-test-audit","tools":["*"]}]`, srcR: auditReviewer,
		},
		{
			name:     "a file named like a registered approver",
			approval: "auto",
			wantA:    `[{"name":"auto","tools":["python"],"decision":"reject"}]`, srcA: "auto",
			wantR: "nil",
		},
		{
			name:     "inline list",
			approval: "\n  - name: auto\n    tools: [bash, text_editor]\n    decision: escalate\n  - name: " + gateApprover,
			review:   "[{name: auto, tools: bash, chain: audit, params: {decision: terminate}}]",
			wantA:    `[{"name":"auto","tools":["bash","text_editor"],"decision":"escalate"},{"name":"task-test-gate","tools":["*"]}]`, srcA: "inline",
			wantR: `[{"name":"auto","tools":["bash"],"chain":"audit","decision":"terminate"}]`, srcR: "inline",
		},
		{
			name:     "explicitly empty list",
			approval: "[]", review: "[]",
			wantA: `[]`, srcA: "inline",
			wantR: `[]`, srcR: "inline",
		},
		{
			name:     "explicit null",
			approval: "null", review: "~",
			wantA: `[]`, srcA: "inline",
			wantR: `[]`, srcR: "inline",
		},
		{
			name:  "not set",
			wantA: "nil", wantR: "nil",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "input: go\n"
			if tt.approval != "" {
				src += "approval: " + tt.approval + "\n"
			}
			if tt.review != "" {
				src += "review: " + tt.review + "\n"
			}
			tk := mustLoad(t, dir, "t.yaml", src)
			check := func(what string, p *task.Policy, want, source string) {
				t.Helper()
				if want == "nil" {
					if p != nil {
						t.Errorf("%s = %+v, want not set", what, p)
					}
					return
				}
				if p == nil {
					t.Fatalf("%s not set", what)
				}
				if p.Entries == nil {
					t.Errorf("%s entries are nil, want a non-nil list", what)
				}
				if got := entriesJSON(t, p.Entries); got != want {
					t.Errorf("%s entries = %s, want %s", what, got, want)
				}
				if p.Source != source {
					t.Errorf("%s source = %q, want %q", what, p.Source, source)
				}
			}
			check("approval", tk.Approval, tt.wantA, tt.srcA)
			check("review", tk.Review, tt.wantR, tt.srcR)

			// Compiled: not set stays nil (inherit); empty is a policy
			// with no entries (none).
			ap, err := tk.Approval.ApprovalPolicy()
			if err != nil {
				t.Fatal(err)
			}
			rp, err := tk.Review.ReviewPolicy()
			if err != nil {
				t.Fatal(err)
			}
			if (ap == nil) != (tt.wantA == "nil") || (rp == nil) != (tt.wantR == "nil") {
				t.Errorf("compiled approval %v, review %v", ap, rp)
			}
			if tt.wantA == "[]" && ap.Len() != 0 {
				t.Errorf("empty approval compiled to %d rules", ap.Len())
			}
		})
	}
}

// Entries written inline say where in the task file they are.
func TestTaskFile_InlineEntriesKeepTheirPosition(t *testing.T) {
	tk := mustLoad(t, t.TempDir(), "t.yaml", "input: go\napproval:\n  - name: auto\n    tools: bash\n  - {name: auto}\n")
	want := []policy.Pos{{File: tk.Path, Line: 3, Col: 5}, {File: tk.Path, Line: 5, Col: 5}}
	for i, e := range tk.Approval.Entries {
		if e.Pos != want[i] {
			t.Errorf("entry %d at %v, want %v", i, e.Pos, want[i])
		}
	}
}

// transfer_to_<agent> is a tool only of the main agent, and only for agents
// declared under agents:, wherever in the file they are declared.
func TestTaskFile_HandoffsOnlyForDeclaredAgents(t *testing.T) {
	dir := t.TempDir()
	tk := mustLoad(t, dir, "t.yaml", `input: go
tools: [transfer_to_tester, bash, transfer_to_fixer]
agents:
  tester:
    tools: [bash]
  fixer:
    tools: [text_editor]
`)
	if !reflect.DeepEqual(tk.Tools, []string{"transfer_to_tester", "bash", "transfer_to_fixer"}) {
		t.Errorf("tools = %v", tk.Tools)
	}
}

// The main agent gets the task's tools and a hand-off to every declared
// agent; each sub-agent gets its tools and its own policies.
func TestTask_AgentBuildsToolsHandoffsAndAgentPolicies(t *testing.T) {
	dir := t.TempDir()
	tk := mustLoad(t, dir, "t.yaml", `input: go
system: Lead.
tools: [bash, transfer_to_tester]
approval: [{name: auto}]
agents:
  tester:
    description: Runs the tests.
    system: You run tests.
    tools: [bash]
    approval: [{name: auto, tools: "bash(cmd='go test"}]
    review: []
  writer:
    tools: [text_editor, bash]
`)
	main, err := tk.Agent(toolbox.Env{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if main.Name != eventkind.MainAgent || main.System != "Lead." {
		t.Errorf("main = %q %q", main.Name, main.System)
	}
	if got := toolNames(main.Tools); !reflect.DeepEqual(got, []string{"bash"}) {
		t.Errorf("main tools = %q, want [bash] (hand-offs are added for agents)", got)
	}
	// Task-level policies belong to the run, not to the agent (SPEC P4).
	if main.Approval != nil || main.Review != nil {
		t.Error("the task's policies were set on the main agent")
	}
	if len(main.Handoffs) != 2 {
		t.Fatalf("hand-offs = %d", len(main.Handoffs))
	}
	tester, writer := main.Handoffs[0], main.Handoffs[1]
	if tester.Name != "tester" || tester.Description != "Runs the tests." || tester.System != "You run tests." {
		t.Errorf("tester = %q %q %q", tester.Name, tester.Description, tester.System)
	}
	if got := toolNames(tester.Tools); !reflect.DeepEqual(got, []string{"bash"}) {
		t.Errorf("tester tools = %q", got)
	}
	if got := entriesJSON(t, tester.Approval.Entries()); got != `[{"name":"auto","tools":["bash(cmd='go test"]}]` {
		t.Errorf("tester approval = %s", got)
	}
	// review: [] replaces the policy in force with none (SPEC P6).
	if tester.Review == nil || tester.Review.Len() != 0 {
		t.Errorf("tester review = %v, want an empty policy", tester.Review)
	}
	// Not set inherits (SPEC P5).
	if writer.Approval != nil || writer.Review != nil {
		t.Error("writer has policies of its own")
	}
	if got := toolNames(writer.Tools); !reflect.DeepEqual(got, []string{"text_editor", "bash"}) {
		t.Errorf("writer tools = %q", got)
	}
}

func toolNames(tools []tool.Tool) []string {
	names := []string{}
	for _, t := range tools {
		names = append(names, t.Info().Name)
	}
	return names
}

// wantError checks that err is a *policy.Error at file:line:col whose
// message starts with msg, and that it prints as "file:line:col: msg...".
func wantError(t *testing.T, err error, file string, line, col int, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s:%d:%d: %s", file, line, col, msg)
	}
	var pe *policy.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %q (%T) is not a *policy.Error", err, err)
	}
	if pe.Pos != (policy.Pos{File: file, Line: line, Col: col}) {
		t.Errorf("error at %v, want %s:%d:%d (%v)", pe.Pos, file, line, col, err)
	}
	if want := pe.Pos.String() + ": " + msg; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %q\nwant prefix %q", err, want)
	}
}

func TestTaskFile_ErrorsSayWhere(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "review.yaml", "# who reviews\nreviewers:\n  - name: auto\n")
	write(t, dir, "approval.yaml", "approvers:\n  - name: auto\n")
	write(t, dir, "unknown.yaml", "approvers:\n  - name: auto\n    tools: bash\n  - name: nosuch\n")
	write(t, dir, "notes.txt", "not a directory\n")
	taskFile := filepath.Join(dir, "task.yaml")

	tests := []struct {
		name      string
		src       string
		file      string // where the error is; the task file when empty
		line, col int
		msg       string
	}{
		{"empty file", "", "", 1, 1, "a task file is a mapping with name: and input:"},
		{"not a mapping", "- input: go\n", "", 1, 1, "a task file is a mapping with name: and input:"},
		// yaml.v3 counts the lines of its parser's errors from 0.
		{"syntax: unclosed flow list", "input: go\n\ntools: [bash\nname: x\n", "", 3, 1, "did not find expected ',' or ']'"},
		{"syntax: bad indentation", "input: go\ntools: [bash]\n name: x\n", "", 3, 1, "did not find expected key"},
		{"syntax: mapping after a list", "- a\ninput: go\n", "", 2, 1, "did not find expected '-' indicator"},
		{"syntax: unclosed quote", "input: go\nsystem: \"abc\n", "", 2, 1, "found unexpected end of stream"},
		{"unknown key", "name: x\ninput: go\nmodle: openai/gpt-4o\n", "", 3, 1, `unknown key "modle" (keys: name, system, input,`},
		{"unknown key after comments", "# a task\n\ninput: go\n\n  # more\nworkdirr: .\n", "", 6, 1, `unknown key "workdirr"`},
		{"key given twice", "input: go\nname: a\ninput: again\n", "", 3, 1, `mapping key "input" already defined at line 1`},
		{"input missing", "name: x\nsystem: s\n", "", 1, 1, "task has no input:"},
		{"input missing after comments", "# no input here\n\nname: x\n", "", 3, 1, "task has no input:"},
		{"input not a string", "input: [a, b]\n", "", 1, 8, "input must be a string"},
		{"input null", "name: x\ninput: null\n", "", 2, 8, "input must be a string"},
		{"name not a string", "name: {a: b}\ninput: go\n", "", 1, 7, "name must be a string"},
		{"model not a string", "input: go\nmodel: [a]\n", "", 2, 8, "model must be a string"},
		{"workdir missing", "input: go\nworkdir: nope\n", "", 2, 10, "workdir " + filepath.Join(dir, "nope") + " is not a directory"},
		{"workdir a file", "input: go\nworkdir: notes.txt\n", "", 2, 10, "workdir " + filepath.Join(dir, "notes.txt") + " is not a directory"},
		{"tools not a list", "input: go\ntools: bash\n", "", 2, 8, "tools must be a list of tool names"},
		{"tool not a name", "input: go\ntools: [bash, {x: y}]\n", "", 2, 15, "tools: each tool must be a name"},
		{"unknown tool", "input: go\ntools:\n  - bash\n  - python\n", "", 4, 5, `unknown tool "python" (built-in tools: bash, text_editor`},
		{"max_output negative", "input: go\nmax_output: -1\n", "", 2, 13, "max_output must be a whole number ≥ 0"},
		{"max_output not a number", "input: go\nmax_output: lots\n", "", 2, 13, "max_output must be a whole number ≥ 0"},
		{"limits not a mapping", "input: go\nlimits: 30\n", "", 2, 9, "limits must be a mapping with turns: and tokens:"},
		{"limits negative", "input: go\nlimits: {turns: -1}\n", "", 2, 17, "limits.turns must be a whole number ≥ 0"},
		{"limits fraction", "input: go\nlimits:\n  turns: 3\n  tokens: 1.5\n", "", 4, 11, "limits.tokens must be a whole number ≥ 0"},
		{"limits unknown", "input: go\nlimits:\n  turns: 3\n  time: 60\n", "", 4, 3, `unknown limit "time" (limits: turns, tokens)`},
		{"limits twice", "input: go\nlimits: {turns: 3, turns: 4}\n", "", 2, 20, `mapping key "turns" already defined at line 2`},
		{"unknown approver inline", "input: go\napproval:\n  - name: auto\n    tools: bash\n  - name: nosuch\n    tools: python\n", "", 5, 5, `unknown approver "nosuch" (registered: auto,`},
		{"unknown reviewer inline flow", "input: go\nreview: [{name: auto}, {name: nosuch}]\n", "", 2, 24, `unknown reviewer "nosuch" (registered: auto,`},
		{"approver name for review", "input: go\nreview: [{name: " + gateApprover + "}]\n", "", 2, 10, `unknown reviewer "` + gateApprover + `"`},
		{"inline entry without name", "input: go\napproval:\n  - tools: bash\n", "", 3, 5, "entry has no name:"},
		{"inline entry with both forms", "input: go\napproval:\n  - name: auto\n    tools: bash\n    tool: bash\n", "", 4, 12, "give tools: or tool:/args:, not both"},
		{"policy a mapping", "input: go\napproval: {name: auto}\n", "", 2, 11, "a policy is a file path, a registered name or a list of entries"},
		{"neither file nor name", "input: go\napproval: strict.yaml\n", "", 2, 11, `"strict.yaml" is neither a policy file nor a registered approver name (registered: auto,`},
		{"reviewers file as approval", "input: go\napproval: review.yaml\n", filepath.Join(dir, "review.yaml"), 1, 1, "is a reviewers file, want approvers:"},
		{"approvers file as review", "input: go\nreview: approval.yaml\n", filepath.Join(dir, "approval.yaml"), 1, 1, "is a approvers file, want reviewers:"},
		{"unknown approver in a policy file", "input: go\napproval: unknown.yaml\n", filepath.Join(dir, "unknown.yaml"), 4, 5, `unknown approver "nosuch"`},
		{"agents not a mapping", "input: go\nagents: [tester]\n", "", 2, 9, "agents must map agent names to {description, system, tools, approval, review}"},
		{"agent named main", "input: go\nagents:\n  main:\n    system: s\n", "", 3, 3, `invalid agent name "main"`},
		{"agent name with a space", "input: go\nagents:\n  test er: {}\n", "", 3, 3, `invalid agent name "test er"`},
		{"agent not a mapping", "input: go\nagents:\n  tester: run the tests\n", "", 3, 11, "agent tester must be a mapping"},
		{"agent unknown key", "input: go\nagents:\n  tester:\n    tools: [bash]\n    model: openai/gpt-4o\n", "", 5, 5, `unknown key "model" in agent tester (keys: description, system, tools, approval, review)`},
		{"agent declared twice", "input: go\nagents:\n  tester: {}\n  fixer: {}\n  tester: {}\n", "", 5, 3, `mapping key "tester" already defined at line 3`},
		{"agent key twice", "input: go\nagents:\n  tester:\n    system: a\n    system: b\n", "", 5, 5, `mapping key "system" already defined at line 4`},
		{"agent unknown tool", "input: go\nagents:\n  tester:\n    tools: [bash, pytest]\n", "", 4, 19, `unknown tool "pytest"`},
		{"agent unknown approver", "input: go\nagents:\n  tester:\n    approval: [{name: auto}, {name: nosuch}]\n", "", 4, 30, `unknown approver "nosuch"`},
		{"agent description not a string", "input: go\nagents:\n  tester:\n    description: [a]\n", "", 4, 18, "description must be a string"},
		{"hand-off to an undeclared agent", "input: go\ntools: [bash, transfer_to_tester]\n", "", 2, 15, `tool transfer_to_tester: no agent "tester" is declared under agents:`},
		{"hand-off from an agent to an undeclared agent", "input: go\nagents:\n  tester:\n    tools:\n      - transfer_to_fixer\n", "", 5, 9, `tool transfer_to_fixer: sub-agents cannot hand off`},
		{"hand-off to an undeclared agent", "input: go\ntools:\n  - bash\n  - transfer_to_fixer\n", "", 4, 5, `tool transfer_to_fixer: no agent "fixer" is declared under agents:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk, err := task.Parse([]byte(tt.src), taskFile)
			if err == nil {
				t.Fatalf("parsed: %+v", tk)
			}
			file := tt.file
			if file == "" {
				file = taskFile
			}
			wantError(t, err, file, tt.line, tt.col, tt.msg)
		})
	}
}

// Load reports a missing file as the filesystem's error, and positions its
// parse errors in the file it read.
func TestTaskFile_LoadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := task.Load(filepath.Join(dir, "missing.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error = %v, want one wrapping os.ErrNotExist", err)
	}
	_, err = load(t, dir, "bad.yaml", "input: go\ntools: [python]\n")
	wantError(t, err, filepath.Join(dir, "bad.yaml"), 2, 9, `unknown tool "python"`)
}

// Compile errors of a policy in a task file keep the entry's position.
func TestTask_PolicyParametersCheckedWhenCompiled(t *testing.T) {
	tk := mustLoad(t, t.TempDir(), "t.yaml", "input: go\napproval:\n  - name: auto\n    decision: maybe\n")
	_, err := tk.Approval.ApprovalPolicy()
	wantError(t, err, tk.Path, 3, 5, `approver auto: decision "maybe"`)
}

// --- Prepare ---------------------------------------------------------------

// A scripted model that runs one bash command, then answers.
const echoScript = `- content: Saying hello.
  tool_calls:
    - id: c1
      function: bash
      arguments: {cmd: echo hello}
- content: Done.
`

// prepare loads src as dir/task.yaml, with echoScript as its model and dir/work
// as its working directory, and prepares it with opts. The transcript goes
// to dir/transcript.jsonl unless opts says otherwise.
func prepare(t *testing.T, dir, src string, opts task.Options) (*task.Prepared, error) {
	t.Helper()
	write(t, dir, "turns.yaml", echoScript)
	if err := os.MkdirAll(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	tk := mustLoad(t, dir, "task.yaml", "model: scripted:turns.yaml\nworkdir: work\ntools: [bash]\n"+src)
	if opts.Transcript == "" {
		opts.Transcript = filepath.Join(dir, "transcript.jsonl")
	}
	return tk.Prepare(opts)
}

func mustPrepare(t *testing.T, dir, src string, opts task.Options) *task.Prepared {
	t.Helper()
	p, err := prepare(t, dir, src, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestP4_RunPolicyReplacesTaskPolicy(t *testing.T) {
	const taskPolicies = `input: Say hello.
approval:
  - name: auto
    tools: bash
    decision: reject
    explanation: the task forbids bash
review: [{name: auto, decision: terminate, explanation: the task stops everything}]
`
	t.Run("task policy applies when the run sets none", func(t *testing.T) {
		var c eventtest.Sink
		p := mustPrepare(t, t.TempDir(), taskPolicies, task.Options{Sink: &c})
		res := p.Execute(context.Background())
		if res.Status != event.StatusCompleted {
			t.Fatalf("status %s (%v)", res.Status, res.Err)
		}
		tools := c.Tools()
		if len(tools) != 1 || tools[0].Error == nil || tools[0].Error.Type != "approval" || tools[0].Error.Message != "the task forbids bash" {
			t.Fatalf("tool events = %+v, want the call rejected by the task policy", tools)
		}
		if len(c.Reviews()) != 0 {
			t.Errorf("a rejected call was reviewed: %+v", c.Reviews())
		}
	})

	dir := t.TempDir()
	runApproval := write(t, dir, "run-approval.yaml", "approvers:\n  - name: "+gateApprover+"\n    tools: bash\n")
	runReview := write(t, dir, "run-review.yaml", "reviewers:\n  - name: "+auditReviewer+"\n")
	tests := []struct {
		name               string
		approval, review   string
		wantA, wantR       string
		approver, reviewer string
	}{
		{"registered names", "auto", "auto",
			`[{"name":"auto","tools":["*"]}]`, `[{"name":"auto","tools":["*"]}]`, "auto", "auto"},
		{"files", runApproval, runReview,
			`[{"name":"task-test-gate","tools":["bash"]}]`, `[{"name":"task-test-audit","tools":["*"]}]`, gateApprover, auditReviewer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c eventtest.Sink
			p := mustPrepare(t, t.TempDir(), taskPolicies, task.Options{Approval: tt.approval, Review: tt.review, Sink: &c})
			// Wholesale: the run's entries only, nothing of the task's.
			if got := entriesJSON(t, p.Run.Approval.Entries()); got != tt.wantA {
				t.Errorf("run approval = %s, want %s", got, tt.wantA)
			}
			if got := entriesJSON(t, p.Run.Review.Entries()); got != tt.wantR {
				t.Errorf("run review = %s, want %s", got, tt.wantR)
			}
			res := p.Execute(context.Background())
			if res.Status != event.StatusCompleted {
				t.Fatalf("status %s (limit %v, err %v), want completed", res.Status, res.Limit, res.Err)
			}
			approvals, tools, reviews := c.Approvals(), c.Tools(), c.Reviews()
			if len(approvals) != 1 || approvals[0].Approver != tt.approver || approvals[0].Decision != "approve" {
				t.Errorf("approval events = %+v", approvals)
			}
			if len(tools) != 1 || tools[0].Failed || tools[0].Result != "hello\n" {
				t.Errorf("tool events = %+v", tools)
			}
			if len(reviews) != 1 || reviews[0].Reviewer != tt.reviewer || reviews[0].Decision != "continue" {
				t.Errorf("review events = %+v", reviews)
			}
			start, ok := c.All()[0].Data.(event.RunStart)
			if !ok || entriesJSON(t, start.Approval) != tt.wantA || entriesJSON(t, start.Review) != tt.wantR {
				t.Errorf("run_start = %+v", c.All()[0].Data)
			}
		})
	}

	t.Run("an agent's own policy still replaces the run's", func(t *testing.T) {
		p := mustPrepare(t, t.TempDir(), taskPolicies+"agents:\n  tester:\n    approval: []\n", task.Options{Approval: "auto"})
		defer p.Close()
		if n := p.Agent.Handoffs[0].Approval; n == nil || n.Len() != 0 {
			t.Errorf("tester approval = %v, want its own empty policy", n)
		}
		if got := entriesJSON(t, p.Run.Approval.Entries()); got != `[{"name":"auto","tools":["*"]}]` {
			t.Errorf("run approval = %s", got)
		}
	})

	t.Run("an unknown run policy is a configuration error", func(t *testing.T) {
		dir := t.TempDir()
		transcript := filepath.Join(dir, "runs", "t.jsonl")
		_, err := prepare(t, dir, taskPolicies, task.Options{Approval: "nosuch", Transcript: transcript})
		if err == nil || !strings.HasPrefix(err.Error(), `--approval: "nosuch" is neither a policy file nor a registered approver name`) {
			t.Fatalf("error = %v", err)
		}
		_, err = prepare(t, dir, taskPolicies, task.Options{Review: runApproval, Transcript: transcript})
		if err == nil || !strings.HasPrefix(err.Error(), "--review: "+runApproval+":1:1: is a approvers file, want reviewers:") {
			t.Fatalf("error = %v", err)
		}
		if _, err := os.Stat(transcript); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a transcript was created for a run that cannot start: %v", err)
		}
	})
}

// An explicitly empty task policy is in force and means none; a run-level
// policy still replaces it.
func TestP6_EmptyTaskPolicyMeansNone(t *testing.T) {
	var c eventtest.Sink
	p := mustPrepare(t, t.TempDir(), "input: go\napproval: []\nreview: null\n", task.Options{Sink: &c})
	if p.Run.Approval == nil || p.Run.Approval.Len() != 0 || p.Run.Review == nil || p.Run.Review.Len() != 0 {
		t.Fatalf("run policies = %v, %v; want empty, not nil", p.Run.Approval, p.Run.Review)
	}
	res := p.Execute(context.Background())
	if res.Status != event.StatusCompleted {
		t.Fatalf("status %s (%v)", res.Status, res.Err)
	}
	if tools := c.Tools(); len(tools) != 1 || tools[0].Result != "hello\n" || len(c.Approvals()) != 0 || len(c.Reviews()) != 0 {
		t.Errorf("events: approvals %+v tools %+v reviews %+v", c.Approvals(), tools, c.Reviews())
	}
	start := c.All()[0].Data.(event.RunStart)
	if entriesJSON(t, start.Approval) != "[]" || entriesJSON(t, start.Review) != "[]" {
		t.Errorf("run_start policies = %s, %s; want [] and []", entriesJSON(t, start.Approval), entriesJSON(t, start.Review))
	}
}

func TestL3_MaxOutputSettingsReachTheRun(t *testing.T) {
	tests := []struct {
		name string
		task string // max_output line of the task, if any
		opt  *int
		want int
	}{
		{"default", "", nil, 0},
		{"task", "max_output: 100\n", nil, 100},
		{"task zero", "max_output: 0\n", nil, agent.NoTruncation},
		{"run zero replaces task", "max_output: 100\n", ptr(0), agent.NoTruncation},
		{"run replaces task zero", "max_output: 0\n", ptr(50), 50},
		{"run", "", ptr(7), 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustPrepare(t, t.TempDir(), "input: go\n"+tt.task, task.Options{MaxOutput: tt.opt})
			defer p.Close()
			if p.Run.MaxOutput != tt.want {
				t.Errorf("run max output = %d, want %d", p.Run.MaxOutput, tt.want)
			}
		})
	}
}

// max_output 0 reaches the model untruncated, however long the output.
func TestL3_MaxOutputZeroMeansNoTruncation(t *testing.T) {
	const n = 3 * agent.DefaultMaxOutput
	script := "- tool_calls:\n    - function: bash\n      arguments: {cmd: \"head -c " + strconv.Itoa(n) + " /dev/zero | tr '\\\\0' x\"}\n- content: Done.\n"
	for _, tt := range []struct {
		name      string
		max       *int
		wantLen   int
		truncated *[2]int
	}{
		{"zero", ptr(0), n, nil},
		{"unset", nil, -1, &[2]int{n, agent.DefaultMaxOutput}},
		{"small", ptr(1000), -1, &[2]int{n, 1000}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tk := mustLoad(t, dir, "task.yaml", "input: go\ntools: [bash]\nmodel: scripted:turns.yaml\nworkdir: .\n")
			write(t, dir, "turns.yaml", script)
			var c eventtest.Sink
			p, err := tk.Prepare(task.Options{MaxOutput: tt.max, Sink: &c, Transcript: filepath.Join(dir, "t.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			if res := p.Execute(context.Background()); res.Status != event.StatusCompleted {
				t.Fatalf("status %s (%v)", res.Status, res.Err)
			}
			tools := c.Tools()
			if len(tools) != 1 || tools[0].Failed {
				t.Fatalf("tool events = %+v", tools)
			}
			got := tools[0]
			if !reflect.DeepEqual(got.Truncated, tt.truncated) {
				t.Errorf("truncated = %v, want %v", got.Truncated, tt.truncated)
			}
			if tt.wantLen >= 0 && (len(got.Result) != tt.wantLen || strings.Trim(got.Result, "x") != "") {
				t.Errorf("result is %d bytes, want %d x's", len(got.Result), tt.wantLen)
			}
			if tt.truncated != nil && !strings.Contains(got.Result, "bytes truncated") {
				t.Errorf("truncated result has no notice: %.100q", got.Result)
			}
		})
	}
}

func TestPrepare_TranscriptCreatedAtOptionsPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "deep", "er", "run.jsonl")
	var c eventtest.Sink
	p := mustPrepare(t, dir, "name: hello\ninput: Say hello.\n", task.Options{Transcript: path, Sink: &c})
	if p.TranscriptPath != path {
		t.Errorf("transcript path = %q, want %q", p.TranscriptPath, path)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 0 {
		t.Fatalf("after Prepare: stat %v, %v; want an empty file", st, err)
	}
	res := p.Execute(context.Background())
	if res.Status != event.StatusCompleted {
		t.Fatalf("status %s (%v)", res.Status, res.Err)
	}
	var kinds []string
	for _, e := range eventtest.ReadFile(t, path) {
		kinds = append(kinds, e.Kind())
		if e.RunID != p.Run.ID || e.Agent != eventkind.MainAgent {
			t.Errorf("event %s: run %q agent %q, want run %q agent main", e.Kind(), e.RunID, e.Agent, p.Run.ID)
		}
	}
	want := []string{eventkind.RunStart, eventkind.TurnStart, eventkind.Model, eventkind.Tool, eventkind.Model, eventkind.RunEnd}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("transcript = %v, want %v", kinds, want)
	}
	if len(c.All()) != len(want) {
		t.Errorf("the sink saw %d events, the transcript %d", len(c.All()), len(want))
	}
	start := c.All()[0].Data.(event.RunStart)
	if start.Task != "hello" || start.Model != "scripted:"+filepath.Join(dir, "turns.yaml") || start.Approval != nil || start.Review != nil {
		t.Errorf("run_start = %+v", start)
	}
	if end := c.All()[len(c.All())-1].Data.(event.RunEnd); end.Status != event.StatusCompleted || end.Limit != nil {
		t.Errorf("run_end = %+v", end)
	}
}

func TestPrepare_TranscriptDefaultsToWardenHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("WARDEN_HOME", home)
	dir := t.TempDir()
	write(t, dir, "turns.yaml", echoScript)
	tk := mustLoad(t, dir, "task.yaml", "input: go\nmodel: scripted:turns.yaml\nworkdir: .\n")
	p, err := tk.Prepare(task.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if want := filepath.Join(home, "runs", p.Run.ID+".jsonl"); p.TranscriptPath != want {
		t.Errorf("transcript path = %q, want %q", p.TranscriptPath, want)
	}
	if _, err := os.Stat(p.TranscriptPath); err != nil {
		t.Error(err)
	}
}

func TestPrepare_ModelFromRunOrTask(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "turns.yaml", echoScript)
	write(t, dir, "other.yaml", "- content: Other.\n")
	transcript := filepath.Join(dir, "t.jsonl")

	t.Run("run model replaces the task's", func(t *testing.T) {
		tk := mustLoad(t, dir, "task.yaml", "input: go\nmodel: nosuch/model\nworkdir: .\n")
		p, err := tk.Prepare(task.Options{Model: "scripted:" + filepath.Join(dir, "other.yaml"), Transcript: transcript})
		if err != nil {
			t.Fatal(err)
		}
		res := p.Execute(context.Background())
		if res.Status != event.StatusCompleted || res.Messages[len(res.Messages)-1].Content != "Other." {
			t.Errorf("status %s, messages %+v", res.Status, res.Messages)
		}
	})
	t.Run("no model", func(t *testing.T) {
		tk := mustLoad(t, dir, "task.yaml", "input: go\nworkdir: .\n")
		_, err := tk.Prepare(task.Options{Transcript: transcript})
		if err == nil || !strings.Contains(err.Error(), "no model") {
			t.Errorf("error = %v, want one that says there is no model", err)
		}
	})
	t.Run("unknown provider", func(t *testing.T) {
		tk := mustLoad(t, dir, "task.yaml", "input: go\nmodel: nosuch/model\nworkdir: .\n")
		_, err := tk.Prepare(task.Options{Transcript: transcript})
		if err == nil || !strings.Contains(err.Error(), `unknown provider "nosuch"`) {
			t.Errorf("error = %v", err)
		}
	})
}

// Without workdir:, a run works in a fresh temporary directory.
func TestPrepare_FreshWorkdirWhenUnset(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "turns.yaml", "- tool_calls:\n    - function: bash\n      arguments: {cmd: pwd}\n")
	tk := mustLoad(t, dir, "fresh task.yaml", "input: go\nmodel: scripted:turns.yaml\ntools: [bash]\n")
	var c eventtest.Sink
	p, err := tk.Prepare(task.Options{Transcript: filepath.Join(dir, "t.jsonl"), Sink: &c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(p.Workdir) })
	if p.Workdir == "" || p.Workdir == dir || !strings.HasPrefix(filepath.Base(p.Workdir), "warden-freshtask-") {
		t.Errorf("workdir = %q", p.Workdir)
	}
	if st, err := os.Stat(p.Workdir); err != nil || !st.IsDir() {
		t.Fatalf("workdir: %v", err)
	}
	p.Execute(context.Background())
	tools := c.Tools()
	if len(tools) != 1 {
		t.Fatalf("tool events = %+v", tools)
	}
	ran, err := filepath.EvalSymlinks(strings.TrimSpace(tools[0].Result))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(p.Workdir); ran != want {
		t.Errorf("bash ran in %q, want %q", ran, want)
	}
}

func TestG1_TaskSandboxAndRules(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "team.rules", `prefix_rule(pattern = ["git", "push"], decision = "prompt")`)
	tk := mustLoad(t, dir, "t.yaml", `input: go
tools: [bash]
sandbox: {mode: read-only, writable_roots: [cache], network_access: true}
rules: [team.rules]
`)
	if tk.Sandbox == nil || tk.Sandbox.Mode != "read-only" || !tk.Sandbox.NetworkAccess ||
		len(tk.Sandbox.WritableRoots) != 1 || tk.Sandbox.WritableRoots[0] != filepath.Join(tk.Dir, "cache") {
		t.Errorf("sandbox = %+v", tk.Sandbox)
	}
	if len(tk.Rules) != 1 || tk.Rules[0] != filepath.Join(tk.Dir, "team.rules") {
		t.Errorf("rules = %v", tk.Rules)
	}
	tk.Model = "scripted:" + write(t, dir, "m.yaml", "- content: done\n")
	p, err := tk.Prepare(task.Options{Transcript: filepath.Join(dir, "t.jsonl"), Sandbox: "workspace-write"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Boundary.Len() != 1 || p.Boundary.Entries()[0].Name != "human" {
		t.Errorf("boundary policy = %+v", p.Boundary.Entries())
	}

	for _, bad := range []struct{ src, want string }{
		{"input: go\nsandbox: {mode: yolo}\n", "t.yaml:2:17: unknown sandbox mode \"yolo\""},
		{"input: go\nsandbox: {net: true}\n", "t.yaml:2:11: unknown key \"net\" in sandbox"},
		{"input: go\nsandbox: {network_access: maybe}\n", "t.yaml:2:27: sandbox.network_access must be true or false"},
		{"input: go\nrules: team.rules\n", "t.yaml:2:8: rules must be a list of paths"},
	} {
		_, err := load(t, dir, "t.yaml", bad.src)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.src, err, bad.want)
		}
	}
	tk = mustLoad(t, dir, "t.yaml", "input: go\nrules: [missing.rules]\n")
	tk.Model = "scripted:" + filepath.Join(dir, "m.yaml")
	if _, err := tk.Prepare(task.Options{Transcript: filepath.Join(dir, "t2.jsonl")}); err == nil || !strings.Contains(err.Error(), "missing.rules") {
		t.Errorf("missing rules file: %v", err)
	}
}

// FuzzParse checks that Parse never panics and that every error it returns
// says where: "file:line:col: message" in the task file, or in a policy file
// the task names, or else is the filesystem's own error.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"input: go\n",
		"name: x\nsystem: s\ninput: go\nworkdir: .\nmodel: scripted:turns.yaml\ntools: [bash, text_editor]\nmax_output: 0\nlimits: {turns: 3, tokens: 100}\n",
		"input: go\napproval: approval.yaml\nreview: review.yaml\n",
		"input: go\napproval: auto\nreview: [{name: auto, tools: bash, decision: terminate}]\n",
		"input: go\napproval: []\nreview: null\n",
		"input: go\ntools: [transfer_to_a]\nagents:\n  a:\n    description: d\n    system: s\n    tools: [bash, transfer_to_b]\n    approval: [{name: auto}]\n    review: auto\n  b: {}\n",
		"input: go\nagents:\n  main: {}\n",
		"input: go\nlimits: {turns: -1}\n",
		"input: go\ntools: [bash\n",
		"- input: go\n",
		"input: &a go\nsystem: *a\n",
		"{\"input\": \"go\", \"tools\": [\"bash\"]}",
		"",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	for name, content := range map[string]string{
		"approval.yaml": "approvers:\n  - name: auto\n    tools: bash\n",
		"review.yaml":   "reviewers:\n  - name: nosuch\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	file := filepath.Join(dir, "fuzz.yaml")
	at := regexp.MustCompile(`^(.+?):(\d+):(\d+): `)

	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := task.Parse(data, file)
		if err != nil {
			var pe *policy.Error
			if !errors.As(err, &pe) {
				var pathErr *fs.PathError
				if !errors.As(err, &pathErr) {
					t.Fatalf("error %q (%T) says neither where nor which file", err, err)
				}
				return
			}
			if pe.Pos.Line < 1 || pe.Pos.Col < 1 {
				t.Errorf("error at line %d col %d: %v", pe.Pos.Line, pe.Pos.Col, err)
			}
			prefix := pe.Pos.File + ":" + strconv.Itoa(pe.Pos.Line) + ":" + strconv.Itoa(pe.Pos.Col) + ": "
			if !strings.HasPrefix(err.Error(), prefix) || !at.MatchString(err.Error()) {
				t.Errorf("error %q does not start with %q", err, prefix)
			}
			if pe.Pos.File != file {
				// Only a policy file the task names may be blamed instead.
				if st, serr := os.Stat(pe.Pos.File); serr != nil || st.IsDir() {
					t.Errorf("error blames %s, which is neither the task file nor a policy file: %v", pe.Pos.File, err)
				}
			}
			return
		}

		// What parses is valid.
		if tk.Name == "" {
			t.Error("task without a name")
		}
		if tk.Dir != dir {
			t.Errorf("dir = %q, want %q", tk.Dir, dir)
		}
		if tk.Workdir != "" {
			if st, err := os.Stat(tk.Workdir); err != nil || !st.IsDir() {
				t.Errorf("workdir %q is not a directory", tk.Workdir)
			}
		}
		if tk.MaxOutput != nil && *tk.MaxOutput < 0 || tk.Limits.Turns < 0 || tk.Limits.Tokens < 0 {
			t.Errorf("negative max_output or limits: %v %+v", tk.MaxOutput, tk.Limits)
		}
		agents := map[string]bool{}
		for _, a := range tk.Agents {
			if a.Name == "" || a.Name == eventkind.MainAgent || agents[a.Name] {
				t.Errorf("agent name %q accepted", a.Name)
			}
			agents[a.Name] = true
		}
		checkTools := func(names []string) {
			for _, n := range names {
				if to, ok := strings.CutPrefix(n, eventkind.HandoffPrefix); ok {
					if !agents[to] {
						t.Errorf("hand-off %s to an undeclared agent accepted", n)
					}
				} else if _, err := toolbox.New(n, toolbox.Env{Dir: dir}); err != nil {
					t.Errorf("tool %q accepted: %v", n, err)
				}
			}
		}
		checkPolicies := func(a, r *task.Policy) {
			for _, e := range entriesOf(a) {
				if !approval.Registered(e.Name) {
					t.Errorf("unknown approver %q accepted", e.Name)
				}
			}
			for _, e := range entriesOf(r) {
				if !review.Registered(e.Name) {
					t.Errorf("unknown reviewer %q accepted", e.Name)
				}
			}
		}
		checkTools(tk.Tools)
		checkPolicies(tk.Approval, tk.Review)
		for _, a := range tk.Agents {
			checkTools(a.Tools)
			checkPolicies(a.Approval, a.Review)
		}
	})
}

func entriesOf(p *task.Policy) []policy.Entry {
	if p == nil {
		return nil
	}
	return p.Entries
}
