package rules_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/shell/shelltest"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/rules"
)

// load parses rules text as a file named name (its extension picks the
// format).
func load(t testing.TB, name, text string) *rules.Set {
	t.Helper()
	set, err := rules.Parse([]byte(text), name)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return set
}

// loadFile loads the rules file at path, failing the test when it cannot.
func loadFile(t testing.TB, path string) *rules.Set {
	t.Helper()
	set, err := rules.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func argv(s string) []string { return strings.Fields(s) }

func TestG14_Decisions(t *testing.T) {
	for d, name := range map[vocab.Decision]string{rules.Allow: "allow", rules.Prompt: "prompt", rules.Forbidden: "forbidden"} {
		if rules.Word(d) != name {
			t.Errorf("Word(%s) = %q", d, rules.Word(d))
		}
		got, err := rules.ParseDecision(name)
		if err != nil || got != d {
			t.Errorf("ParseDecision(%q) = %v, %v", name, got, err)
		}
		set, err := rules.ParseYAML([]byte("rules:\n  - pattern: [ls]\n    decision: "+name+"\n"), "d.yaml")
		if err != nil || set.Rules()[0].Decision != d {
			t.Errorf("YAML decision %q = %v, %v", name, set, err)
		}
	}
	// The rules' decisions are the judges' verdicts, in Codex's words.
	if rules.Allow != vocab.Allow || rules.Prompt != vocab.Escalate || rules.Forbidden != vocab.Deny {
		t.Error("the rules' decisions are not the shared verdicts")
	}
	if !(rules.Allow.Strictness() < rules.Prompt.Strictness() && rules.Prompt.Strictness() < rules.Forbidden.Strictness()) {
		t.Error("decisions not ordered by strictness")
	}
	for _, word := range []string{"deny", "escalate", ""} {
		if _, err := rules.ParseDecision(word); err == nil {
			t.Errorf("ParseDecision(%q) succeeded", word)
		}
	}
	if rules.ExitCode(rules.Allow) != 0 || rules.ExitCode(rules.Prompt) != 10 || rules.ExitCode(rules.Forbidden) != 11 {
		t.Error("exit codes are not 0/10/11")
	}
	// A rule that names no decision allows, as in Codex.
	var s rules.Set
	if err := s.Add(rules.Rule{Pattern: [][]string{{"ls"}}}); err != nil || s.Rules()[0].Decision != rules.Allow {
		t.Errorf("a rule without a decision: %v", err)
	}
}

func TestG14_PrefixMatch(t *testing.T) {
	r := rules.Rule{Pattern: [][]string{{"git"}, {"push", "fetch"}}}
	tests := []struct {
		argv string
		want bool
	}{
		{"git push", true},
		{"git push origin main", true},
		{"git fetch", true},
		{"/usr/bin/git push", true},
		{"./git push", true},
		{"git", false},
		{"git status", false},
		{"git --no-pager push", false},
		{"hg push", false},
		{"gitx push", false},
	}
	for _, tt := range tests {
		if got := r.Matches(argv(tt.argv)); got != tt.want {
			t.Errorf("%s.Matches(%q) = %v", r, tt.argv, got)
		}
	}
	// A pattern token that is a path matches only that path.
	p := rules.Rule{Pattern: [][]string{{"/usr/bin/git"}}}
	if !p.Matches(argv("/usr/bin/git status")) || p.Matches(argv("git status")) || p.Matches(argv("/tmp/git status")) {
		t.Error("a path token must match only that path")
	}
}

func TestG14_FirstTokenAlternatives(t *testing.T) {
	for name, text := range map[string]string{
		"alt.rules": `prefix_rule(pattern = [["git", "hg"], "status"], decision = "prompt")`,
		"alt.yaml":  "rules:\n  - pattern: [[git, hg], status]\n    decision: prompt\n",
	} {
		set := load(t, name, text)
		for _, c := range []string{"git status", "hg status -s", "/usr/bin/hg status"} {
			if d, rs := set.Check(argv(c)); d != rules.Prompt || len(rs) != 1 {
				t.Errorf("%s: Check(%q) = %s, %d rules", name, c, d, len(rs))
			}
		}
		for _, c := range []string{"svn status", "git diff", "status"} {
			if d, rs := set.Check(argv(c)); d != rules.Allow || len(rs) != 0 {
				t.Errorf("%s: Check(%q) = %s, %d rules", name, c, d, len(rs))
			}
		}
	}
}

func TestG14_DecisionDefaultsToAllow(t *testing.T) {
	set := load(t, "d.rules", `prefix_rule(pattern = ["ls"])`)
	if rs := set.Rules(); len(rs) != 1 || rs[0].Decision != rules.Allow {
		t.Errorf("rules %+v", rs)
	}
}

func TestG14_StrictestWins(t *testing.T) {
	set := load(t, "s.rules", `
prefix_rule(pattern = ["git"], decision = "allow")
prefix_rule(pattern = ["git", "push"], decision = "prompt")
prefix_rule(pattern = ["git", "push", "--force"], decision = "forbidden")
prefix_rule(pattern = ["ls"], decision = "allow")
`)
	tests := []struct {
		script string
		want   vocab.Decision
		rules  int
	}{
		{"git status", rules.Allow, 1},
		{"git push origin", rules.Prompt, 2},
		{"git push --force", rules.Forbidden, 3},
		// Across the commands of a script.
		{"ls && git status", rules.Allow, 2},
		{"ls && git push", rules.Prompt, 3},
		{"git push; ls | git push --force x", rules.Forbidden, 6},
		{"echo $(git push --force)", rules.Forbidden, 3},
		{"bash -c 'ls; git push --force'", rules.Forbidden, 4},
	}
	for _, tt := range tests {
		res := rules.Evaluate(set, tt.script)
		if res.Decision != tt.want || len(res.Matches) != tt.rules {
			t.Errorf("Evaluate(%q) = %s with %d matches, want %s with %d\n%s", tt.script, res.Decision, len(res.Matches), tt.want, tt.rules, res.Report())
		}
	}
	d, rs := set.Check(argv("git push --force"))
	if d != rules.Forbidden || len(rs) != 3 || rs[0].Decision != rules.Allow || rs[2].Decision != rules.Forbidden {
		t.Errorf("Check = %s %v", d, rs)
	}
}

// at matches the "file:line:col: " prefix of load errors.
var at = regexp.MustCompile(`^(.+?):(\d+):(\d+): `)

func loadErr(t *testing.T, name, text string) error {
	t.Helper()
	_, err := rules.Parse([]byte(text), name)
	if err == nil {
		t.Fatalf("Parse(%s) succeeded:\n%s", name, text)
	}
	var pe *policy.Error
	if !errors.As(err, &pe) || !at.MatchString(err.Error()) || !strings.HasPrefix(err.Error(), name+":") {
		t.Errorf("Parse(%s) error %q (%T) is not file:line:col: message", name, err, err)
	}
	return err
}

func TestG14_MatchExamplesCheckedAtLoad(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"m.rules", `
prefix_rule(pattern = ["git", "push"])
prefix_rule(
    pattern = ["gh", "pr", "view"],
    match = ["gh pr view 7888", "gh pr list"],
)`, `m.rules:3:1: prefix_rule: rule ["gh", "pr", "view"]: match example "gh pr list" does not match the rule`},
		{"n.rules", `prefix_rule(pattern = ["gh", "pr", "view"], not_match = [["gh", "pr", "view", "1"]])`,
			`n.rules:1:1: prefix_rule: rule ["gh", "pr", "view"]: not_match example "gh pr view 1" matches the rule`},
		{"m.yaml", "rules:\n  - pattern: [gh, pr, view]\n    match: [\"gh pr view 1\", [gh, pr, list]]\n",
			`m.yaml:2:5: rule ["gh", "pr", "view"]: match example "gh pr list" does not match the rule`},
		{"n.yaml", "rules:\n  - pattern: [gh, pr, view]\n  - pattern: [gh]\n    not_match: [\"gh pr\"]\n",
			`m.yaml:3:5: rule ["gh"]: not_match example "gh pr" matches the rule`},
	}
	for _, tt := range tests {
		err := loadErr(t, tt.name, tt.text)
		want := strings.Replace(tt.want, "m.yaml:3", "n.yaml:3", 1)
		if err.Error() != want {
			t.Errorf("Parse(%s) error\n got %q\nwant %q", tt.name, err, want)
		}
	}
}

func TestG14_LoadErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"a.rules", `prefix_rule(pattern = ["ls"], decision = "deny")`, `a.rules:1:1: prefix_rule: unknown decision "deny"`},
		{"a.rules", `prefix_rule(pattern = [])`, `a.rules:1:1: prefix_rule: pattern: empty pattern`},
		{"a.rules", `prefix_rule(pattern = ["ls", 1])`, `a.rules:1:1: prefix_rule: pattern: element 1: got int`},
		{"a.rules", `prefix_rule(pattern = ["ls", ["-l", None]])`, `a.rules:1:1: prefix_rule: pattern: element 1: token 1: got NoneType`},
		{"a.rules", `prefix_rule(pattern = ["ls", []])`, `a.rules:1:1: prefix_rule: pattern: element 1: empty list`},
		{"a.rules", `prefix_rule(pattern = "ls")`, `a.rules:1:1: prefix_rule: pattern: got string, want a list`},
		{"a.rules", `prefix_rule(decision = "allow")`, `a.rules:1:1: prefix_rule: missing argument for pattern`},
		{"a.rules", `prefix_rule(pattern = ["ls"], colour = "red")`, `a.rules:1:1: prefix_rule: unexpected keyword argument "colour"`},
		{"a.rules", `prefix_rule(pattern = ["ls"], match = "ls -l")`, `a.rules:1:1: prefix_rule ["ls"]: match: got string`},
		{"a.rules", `prefix_rule(pattern = ["ls"], match = ["ls 'x"])`, `a.rules:1:1: prefix_rule ["ls"]: match: example 0: "ls 'x": unterminated`},
		{"a.rules", `prefix_rule(pattern = ["ls"], justification = 3)`, `a.rules:1:1: prefix_rule: for parameter "justification": got int, want string`},
		{"a.rules", "\n\nprefix_rule(pattern = [\"ls\"]\n", `a.rules:4:1: got end of file`},
		{"a.rules", "\nprefix_ruel(pattern = [\"ls\"])", `a.rules:2:1: undefined: prefix_ruel`},
		{"a.rules", "x = 1\ny = x + \"a\"", `a.rules:2:7: unknown binary op: int + string`},
		{"a.rules", `load("other.rules", "x")`, `a.rules:1:1: cannot load other.rules`},
		{"a.rules", `host_executable(name = "git", paths = ["git"])`, `a.rules:1:1: host_executable: path "git" is not absolute`},
		{"a.rules", `host_executable(name = "git", paths = ["/bin/hg"])`, `a.rules:1:1: host_executable: path "/bin/hg" does not name "git"`},
		{"a.yaml", "rules:\n  - pattern: [ls]\n    decision: deny\n", `a.yaml:3:15: unknown decision "deny"`},
		{"a.yaml", "rules:\n  - pattern: []\n", `a.yaml:2:14: pattern: empty pattern`},
		{"a.yaml", "rules:\n  - pattern: [chmod, 755]\n", `a.yaml:2:22: want a string (quote it)`},
		{"a.yaml", "rules:\n  - pattern: [ls, [-l, [x]]]\n", `a.yaml:2:24: want a string`},
		{"a.yaml", "rules:\n  - decision: allow\n", `a.yaml:2:5: a rule needs a pattern:`},
		{"a.yaml", "rules:\n  - pattern: [ls]\n    colour: red\n", `a.yaml:3:5: unknown key "colour"`},
		{"a.yaml", "rules:\n  - pattern: [ls]\n    pattern: [cat]\n", `a.yaml:3:5: duplicate key "pattern"`},
		{"a.yaml", "rule:\n  - pattern: [ls]\n", `a.yaml:1:1: unknown key "rule"`},
		{"a.yaml", "- pattern: [ls]\n", `a.yaml:1:1: a rules file must be a mapping`},
		{"a.yaml", "rules: ls\n", `a.yaml:1:8: rules: must be a list`},
		{"a.yaml", "rules: [\n", `a.yaml:2:1: did not find expected node content`},
		{"a.yaml", "rules:\n  - pattern: [ls]\n    match: \"ls\"\n", `a.yaml:3:12: want a list of examples`},
		{"a.json", `{"rules": [{"pattern": ["ls"], "decision": 1}]}`, `a.json:1:44: want a string`},
		{"a.txt", `anything`, `a.txt: unknown rules file type ".txt"`},
	}
	for _, tt := range tests {
		_, err := rules.Parse([]byte(tt.text), tt.name)
		if err == nil {
			t.Errorf("Parse(%s, %q) succeeded", tt.name, tt.text)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%s, %q) error\n got %q\nwant %q…", tt.name, tt.text, err, tt.want)
		}
	}
}

func TestG14_EmptyFilesLoad(t *testing.T) {
	for name, text := range map[string]string{"e.rules": "# nothing\n", "e.yaml": "", "n.yaml": "rules:\n", "c.yaml": "# only a comment\n"} {
		if s := load(t, name, text); s.Len() != 0 {
			t.Errorf("%s: %d rules", name, s.Len())
		}
	}
}

func TestG14_StarlarkIsAProgram(t *testing.T) {
	// Codex rules files are Starlark: variables, loops and comprehensions
	// may build rules.
	set := load(t, "p.rules", `
READ_ONLY = ["status", "diff", "log"]
for sub in READ_ONLY:
    prefix_rule(pattern = ["git", sub])
prefix_rule(pattern = [[t for t in ("rm", "shred")]], decision = "forbidden")
print("printing is silent")
`)
	if set.Len() != 4 {
		t.Fatalf("%d rules", set.Len())
	}
	if d, _ := set.Check(argv("shred x")); d != rules.Forbidden {
		t.Errorf("shred: %s", d)
	}
	if got := set.Rules()[1].Source; got != "p.rules:4:5" {
		t.Errorf("source %q", got)
	}
}

func TestG14_StarlarkRunsBounded(t *testing.T) {
	_, err := rules.Parse([]byte("x = [i for i in range(100000000)]"), "big.rules")
	if err == nil || !strings.Contains(err.Error(), "too many steps") {
		t.Errorf("unbounded computation: %v", err)
	}
}

// strip returns the rules without their Source, to compare two formats.
func strip(set *rules.Set) []rules.Rule {
	var out []rules.Rule
	for _, r := range set.Rules() {
		c := *r
		c.Source = ""
		out = append(out, c)
	}
	return out
}

func TestG14_DefaultRulesLoadIdentically(t *testing.T) {
	star, yml := loadFile(t, "testdata/default.rules"), loadFile(t, "testdata/default.yaml")
	if star.Len() == 0 || !reflect.DeepEqual(strip(star), strip(yml)) {
		t.Errorf("default.rules and default.yaml differ:\n%+v\n%+v", strip(star), strip(yml))
	}
	if !reflect.DeepEqual(star.HostExecutable("git"), yml.HostExecutable("git")) || len(star.HostExecutable("git")) != 2 {
		t.Errorf("host executables differ: %q %q", star.HostExecutable("git"), yml.HostExecutable("git"))
	}
	for _, r := range star.Rules() {
		if !strings.HasPrefix(r.Source, "testdata/default.rules:") {
			t.Errorf("source %q", r.Source)
		}
	}
	// Both decide the same.
	for _, script := range []string{"git status", "git push", "go test ./...", "sudo rm -rf /", "curl x", "ls"} {
		a, b := rules.Evaluate(star, script), rules.Evaluate(yml, script)
		if a.Decision != b.Decision || len(a.Matches) != len(b.Matches) {
			t.Errorf("%q: %s vs %s", script, a.Decision, b.Decision)
		}
	}
}

func TestG14_LoadManyFilesAndDirectories(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.rules", `prefix_rule(pattern = ["git"], decision = "prompt")`)
	b := write("b.yaml", "rules:\n  - pattern: [git, push]\n    decision: forbidden\n")
	write("notes.txt", "not rules")
	set, err := rules.Load(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if d, rs := set.Check(argv("git push")); d != rules.Forbidden || len(rs) != 2 {
		t.Errorf("two files: %s %d", d, len(rs))
	}
	set, err = rules.Load(dir)
	if err != nil || set.Len() != 2 {
		t.Fatalf("directory: %v, %d rules", err, set.Len())
	}
	if set.Rules()[0].Source != a+":1:1" {
		t.Errorf("order by name: first rule from %s", set.Rules()[0].Source)
	}
	if _, err := rules.Load(filepath.Join(dir, "missing.rules")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := write("c.rules", "prefix_rule(pattern = [])")
	if _, err := rules.Load(dir); err == nil || !strings.HasPrefix(err.Error(), bad+":1:1: ") {
		t.Errorf("a bad file in a directory: %v", err)
	}
}

func TestG14_AddValidates(t *testing.T) {
	var set rules.Set // the zero value is usable
	if d, rs := set.Check(argv("rm -rf /")); d != rules.Allow || rs != nil {
		t.Errorf("empty set: %s %v", d, rs)
	}
	if err := set.Add(rules.Rule{}); err == nil {
		t.Error("empty pattern accepted")
	}
	if err := set.Add(rules.Rule{Pattern: [][]string{{"ls"}, {}}}); err == nil {
		t.Error("empty alternatives accepted")
	}
	if err := set.Add(rules.Rule{Pattern: [][]string{{"ls"}}, Decision: "maybe"}); err == nil {
		t.Error("invalid decision accepted")
	}
	err := set.Add(rules.Rule{Pattern: [][]string{{"ls"}}, Match: [][]string{{"cat"}}, Source: "here:1:1"})
	if err == nil || !strings.HasPrefix(err.Error(), `here:1:1: rule ["ls"]: match example "cat"`) {
		t.Errorf("failing example: %v", err)
	}
	if err := set.Add(rules.Rule{Pattern: [][]string{{"ls"}}, Match: [][]string{{"ls", "-l"}}}); err != nil {
		t.Error(err)
	}
	if set.Len() != 1 {
		t.Errorf("%d rules", set.Len())
	}
}

// TestG16_ForbiddenRuleHoldsWhereBashReadsDifferently: with `rm -rf`
// forbidden and ls, cat and shopt allowed, no script bash reads
// differently from the parser is allowed, whether given as a script or as
// the argv ["bash","-c",SCRIPT]; a script allowed would run, and the
// victim must survive.
func TestG16_ForbiddenRuleHoldsWhereBashReadsDifferently(t *testing.T) {
	set := load(t, "g16.rules", `
prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")
prefix_rule(pattern = [["ls", "cat", "shopt", "alias"]], decision = "allow")
`)
	for _, a := range shelltest.Attacks {
		dir := t.TempDir()
		v := shelltest.Victim(t, dir)
		for _, res := range []rules.Result{rules.Evaluate(set, a), rules.EvaluateArgv(set, []string{"bash", "-c", a})} {
			if res.Decision == rules.Allow {
				t.Errorf("%q allowed:\n%s", a, res.Report())
				shelltest.Run(t, dir, a)
			}
			if res.Decision.Strictness() < rules.Prompt.Strictness() {
				t.Errorf("%q: %s, want prompt or forbidden", a, res.Decision)
			}
		}
		if !shelltest.Exists(v) {
			t.Errorf("%q deleted the victim", a)
		}
	}
	// What the parser and bash agree on keeps its decision.
	if res := rules.Evaluate(set, "ls -la; cat x"); res.Decision != rules.Allow {
		t.Errorf("ls -la; cat x: %s\n%s", res.Decision, res.Report())
	}
	if res := rules.Evaluate(set, "ls; rm -rf victim"); res.Decision != rules.Forbidden {
		t.Errorf("ls; rm -rf victim: %s\n%s", res.Decision, res.Report())
	}
}
