package task_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/agent"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/internal/toolbox"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
)

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
			if a.Name == "" || a.Name == agent.MainAgent || agents[a.Name] {
				t.Errorf("agent name %q accepted", a.Name)
			}
			agents[a.Name] = true
		}
		checkTools := func(names []string) {
			for _, n := range names {
				if to, ok := strings.CutPrefix(n, agent.HandoffPrefix); ok {
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
