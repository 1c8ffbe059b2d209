package policyfile

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/filepos"
	"github.com/wardenhq/warden/internal/shell/shelltest"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

func call(fn, args string) *tool.Call {
	c := tool.NewCall("c1", fn, args)
	return &c
}

func bashCall(script string) string {
	b, _ := json.Marshal(map[string]string{"cmd": script})
	return string(b)
}

// An approval policy as written for Inspect AI.
const inspectApproval = `approvers:
  - name: human
    tools: ["web_browser_click", "web_browser_type*"]

  - name: auto
    tools: "*"
`

func TestP1_InspectFileLoadsUnchanged(t *testing.T) {
	f, err := Parse([]byte(inspectApproval), "approval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != Approval || len(f.Entries) != 2 {
		t.Fatalf("got kind %s with %d entries", f.Kind, len(f.Entries))
	}
	if e := f.Entries[0]; e.Name != "human" || len(e.Tools) != 2 || e.Pos.Line != 2 || e.Pos.Col != 5 {
		t.Errorf("entry 0 = %+v", e)
	}
	if e := f.Entries[1]; e.Name != "auto" || e.Tools[0] != "*" {
		t.Errorf("entry 1 = %+v", e)
	}
}

func TestP1_ExtraKeysAreParameters(t *testing.T) {
	src := `reviewers:
  - name: human
    tools: bash
    choices: [continue, terminate, escalate]
    params:
      timeout: 30
  - name: auto
    tool: bash
    args: {cmd: "git *"}
    chain: audit
`
	f, err := Parse([]byte(src), "review.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := f.Entries[0]
	if got := e.Params["choices"]; len(got.([]any)) != 3 {
		t.Errorf("choices = %v", got)
	}
	if e.Params["timeout"] != 30 {
		t.Errorf("timeout = %v", e.Params["timeout"])
	}
	s := f.Entries[1]
	if !s.Structured() || s.Tool != "bash" || s.Args["cmd"] != "git *" || s.Chain != "audit" {
		t.Errorf("structured entry = %+v", s)
	}
	data, _ := json.Marshal(f.Entries)
	want := `[{"name":"human","tools":["bash"],"choices":["continue","terminate","escalate"],"timeout":30},{"name":"auto","tool":"bash","args":{"cmd":"git *"},"chain":"audit"}]`
	if string(data) != want {
		t.Errorf("entries JSON =\n%s\nwant\n%s", data, want)
	}
}

func TestP1_JSONAccepted(t *testing.T) {
	f, err := Parse([]byte(`{"approvers": [{"name": "auto", "tools": "bash"}]}`), "a.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 1 || f.Entries[0].Tools[0] != "bash" {
		t.Errorf("entries = %+v", f.Entries)
	}
}

func TestP1_ErrorsSayWhere(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"unknown top key", "approverz:\n  - name: auto\n", "p.yaml:1:1: unknown key \"approverz\""},
		{"entry without name", "approvers:\n  - tools: bash\n", "p.yaml:2:5: entry has no name:"},
		{"tools not a string", "approvers:\n  - name: auto\n    tools: {a: b}\n", "p.yaml:3:12: tools must be"},
		{"both forms", "approvers:\n  - name: auto\n    tools: bash\n    tool: bash\n", "p.yaml:3:12: give tools: or tool:/args:"},
		{"syntax", "approvers:\n  - name: [\n", "p.yaml:3:1: did not find"},
		{"empty", "", "p.yaml:1:1: empty policy file"},
		{"not a list", "reviewers: 3\n", "p.yaml:1:12: want a list"},
		{"duplicate key", "approvers:\n  - name: auto\n    tools: bash\n    tools: python\n", "p.yaml:4:5: key \"tools\" already given at line 3"},
		{"empty pattern", "approvers:\n  - name: auto\n    tools: \"\"\n", "p.yaml:3:12: tools: no pattern given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src), "p.yaml")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestP6_EmptyListIsExplicitlyEmpty(t *testing.T) {
	for _, src := range []string{"approvers: []\n", "approvers:\n"} {
		f, err := Parse([]byte(src), "p.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if f.Entries == nil || len(f.Entries) != 0 {
			t.Errorf("%q: entries = %#v, want empty non-nil", src, f.Entries)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(inspectApproval))
	f.Add([]byte("reviewers:\n  - name: auto\n    tool: b*\n    args: {x: '[a-'}\n"))
	f.Add([]byte(`{"approvers":[{"name":"x","tools":["a(b='c", "*"]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml:") {
				t.Errorf("error without position: %v", err)
			}
			return
		}
		for _, e := range file.Entries {
			if e.Name == "" {
				t.Error("entry without a name was accepted")
			}
			if _, err := e.Matcher(); err != nil {
				t.Errorf("accepted entry does not compile: %v", err)
			}
		}
	})
}

// Issue 10 item 8: the first byte that is not UTF-8 is reported at its
// line and column (in characters), not at 1:1.
func TestNewcomer8_NonUTF8Position(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        string
		line, col int
	}{
		{"first byte", "\xffapprovers: []\n", 1, 1},
		{"third line", "approvers:\n  - name: auto\n    tools: \"x\xe9\"\n", 3, 14},
		{"after multibyte characters", "# héllo wörld\nreviewers: [\xc3]\n", 2, 13},
		{"truncated sequence at the end", "approvers: []\n# \xe2\x82", 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, err := range []error{filepos.CheckUTF8("p.yaml", []byte(tc.in)), func() error { _, err := Parse([]byte(tc.in), "p.yaml"); return err }()} {
				var pe *filepos.Error
				if !errors.As(err, &pe) || pe.Pos.Line != tc.line || pe.Pos.Col != tc.col {
					t.Errorf("%v, want p.yaml:%d:%d", err, tc.line, tc.col)
				}
			}
		})
	}
	for _, ok := range []string{"", "approvers: []\n", "# héllo\n", "\xef\xbb\xbfapprovers: []\n", "\xff\xfea\x00"} {
		if err := filepos.CheckUTF8("p.yaml", []byte(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// TestG16_QuickstartPatternRefusesWhatBashReadsDifferently: the
// quickstart's own approver (commands: [ls, cat]) approves none of the
// scripts bash reads differently from the parser (`A=1<CR>ls rm -rf
// victim` is rm to bash), and a call approved would run: the victim must
// survive whatever the approvers approve.
func TestG16_QuickstartPatternRefusesWhatBashReadsDifferently(t *testing.T) {
	data, err := os.ReadFile("../../examples/quickstart/approval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data, "approval.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var approvers []policy.Matcher
	for _, e := range f.Entries {
		if d, _ := e.Params["decision"].(string); d != "" && d != "approve" {
			continue
		}
		m, err := e.Matcher()
		if err != nil {
			t.Fatal(err)
		}
		approvers = append(approvers, m)
	}
	if len(approvers) == 0 {
		t.Fatal("the quickstart has no approving entry")
	}
	for _, a := range shelltest.Attacks {
		dir := t.TempDir()
		v := shelltest.Victim(t, dir)
		for _, m := range approvers {
			if m.Match(policy.NewTarget(call("bash", bashCall(a)), nil)) {
				t.Errorf("the quickstart approves %q", a)
				shelltest.Run(t, dir, a)
			}
		}
		if !shelltest.Exists(v) {
			t.Errorf("%q deleted the victim", a)
		}
	}
	// What the parser and bash agree on is still approved.
	for _, ok := range []string{"ls -la", "cat notes.txt; ls", "ls 'a b'"} {
		matched := false
		for _, m := range approvers {
			matched = matched || m.Match(policy.NewTarget(call("bash", bashCall(ok)), nil))
		}
		if !matched {
			t.Errorf("the quickstart does not approve %q", ok)
		}
	}
}

func TestP8_PolicyFile(t *testing.T) {
	src := "approvers:\n" +
		"  - name: auto\n" +
		"    tool: bash\n" +
		"    args:\n" +
		"      cmd: {commands: [ls, \"git status\"]}\n"
	f, err := Parse([]byte(src), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := f.Entries[0]
	if !e.Structured() || len(e.Commands["cmd"]) != 2 || e.Args != nil {
		t.Fatalf("entry = %+v", e)
	}
	m, err := e.Matcher()
	if err != nil {
		t.Fatal(err)
	}
	if !m.Match(policy.NewTarget(call("bash", `{"cmd":"git status; ls"}`), nil)) {
		t.Error("want match")
	}
	if m.Match(policy.NewTarget(call("bash", `{"cmd":"ls; touch pwned"}`), nil)) {
		t.Error("chained command matched")
	}
	js, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"args":{"cmd":{"commands":["ls","git status"]}}`; !strings.Contains(string(js), want) {
		t.Errorf("JSON %s, want %s", js, want)
	}
}

func TestP8_PolicyCheckErrors(t *testing.T) {
	head := "approvers:\n  - name: auto\n    tool: bash\n    args:\n"
	tests := []struct {
		body, want string
	}{
		{"      cmd: {commands: []}\n", "a.yaml:5:23: args.cmd.commands must be a non-empty list"},
		{"      cmd: {commands: ls}\n", "a.yaml:5:23: args.cmd.commands must be a non-empty list"},
		{"      cmd: {commands: [ls, \"\"]}\n", "a.yaml:5:28: args.cmd.commands[1]: empty command prefix"},
		{"      cmd: {commands: [ls, 3]}\n", "a.yaml:5:28: args.cmd.commands[1] must be a string"},
		{"      cmd: {commands: [[ls]]}\n", "a.yaml:5:24: args.cmd.commands[0] must be a string"},
		{"      cmd: {commands: [\"'ls\"]}\n", "a.yaml:5:24: args.cmd.commands[0]: \"'ls\": unterminated"},
		{"      cmd: {command: [ls]}\n", "a.yaml:5:13: args.cmd: a mapping must be exactly {commands"},
		{"      cmd: {commands: [ls], x: 1}\n", "a.yaml:5:29: args.cmd: a mapping must be exactly"},
		{"      cmd: [ls]\n", "a.yaml:5:12: args.cmd must be a glob string or {commands"},
		{"      cmd: ls*\n      cmd: {commands: [ls]}\n", "a.yaml:6:7: args.cmd given twice"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(head+tt.body), "a.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want prefix %q", tt.body, err, tt.want)
		}
	}
}
