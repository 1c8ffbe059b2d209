package rules_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/rules"
)

// checkLoad checks what Parse returns for a fuzzed file: an error saying
// where ("file:line:col: message"), or rules whose examples hold.
func checkLoad(t *testing.T, data []byte, file string) {
	set, err := rules.Parse(data, file)
	if err != nil {
		if set != nil {
			t.Fatalf("Parse returned a set and an error %v", err)
		}
		var pe *policy.Error
		if !errors.As(err, &pe) {
			t.Fatalf("error %q (%T) does not say where", err, err)
		}
		prefix := file + ":" + strconv.Itoa(pe.Pos.Line) + ":" + strconv.Itoa(pe.Pos.Col) + ": "
		if pe.Pos.File != file || pe.Pos.Line < 1 || pe.Pos.Col < 1 || !strings.HasPrefix(err.Error(), prefix) {
			t.Fatalf("error %q is not %q…", err, prefix)
		}
		return
	}
	for _, r := range set.Rules() {
		if len(r.Pattern) == 0 || !strings.HasPrefix(r.Source, file+":") {
			t.Fatalf("rule %+v", r)
		}
		for _, alts := range r.Pattern {
			if len(alts) == 0 {
				t.Fatalf("rule %s has an empty set of alternatives", r)
			}
		}
		for _, ex := range r.Match {
			if d, _ := set.Check(ex); !r.Matches(ex) || d.Strictness() < r.Decision.Strictness() {
				t.Fatalf("rule %s: match example %q: %s", r, ex, d)
			}
		}
		for _, ex := range r.NotMatch {
			if r.Matches(ex) {
				t.Fatalf("rule %s matches its not_match example %q", r, ex)
			}
		}
	}
	rules.Evaluate(set, "cd src && git status | head -5; sudo rm -rf / || echo fail")
}

func FuzzLoadYAML(f *testing.F) {
	for _, seed := range []string{
		"rules:\n  - pattern: [git, [status, diff]]\n    decision: allow\n    justification: j\n    match: [\"git status\", [git, diff, x]]\n    not_match: [\"git push\"]\n",
		"rules:\n  - pattern: [[go, cargo], test]\n    decision: prompt\nhost_executables:\n  - name: git\n    paths: [/usr/bin/git]\n",
		"rules:\n  - pattern: [rm]\n    decision: forbidden\n    match: [\"rm -rf /\", \"/bin/rm x\"]\n",
		"rules:\n  - &r {pattern: [ls]}\n  - *r\n",
		"{\"rules\": [{\"pattern\": [\"ls\", [\"-l\", \"-a\"]], \"decision\": \"prompt\"}]}",
		"rules:\n  - pattern: []\n",
		"rules:\n  - pattern: [ls]\n    decision: deny\n",
		"rules: [\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkLoad(t, data, "fuzz.yaml")
	})
}

func FuzzLoadStarlark(f *testing.F) {
	for _, seed := range []string{
		`prefix_rule(pattern = ["git", ["status", "diff"]], decision = "allow", justification = "j", match = ["git status", ["git", "diff", "x"]], not_match = ["git push"])`,
		`prefix_rule(pattern = [["go", "cargo"], "test"], decision = "prompt")` + "\n" + `host_executable(name = "git", paths = ["/usr/bin/git"])`,
		`prefix_rule(pattern = ["rm"], decision = "forbidden", match = ["rm -rf /", "/bin/rm x"])`,
		"X = [\"ls\"]\nprefix_rule(pattern = X)\nprefix_rule(pattern = X + [\"-l\"], decision = \"prompt\")\n",
		`prefix_rule(pattern = [])`,
		`prefix_rule(pattern = ["ls"], decision = "deny")`,
		`prefix_rule(pattern = ["ls"], match = ["cat"])`,
		"prefix_rule(\n",
		`load("x", "y")`,
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Starlark bounds computation steps, not memory: loops and
		// repetition could build huge values in few steps. Rules files
		// are configuration the user trusts; the fuzzer need not explore
		// memory exhaustion.
		for _, unbounded := range []string{"for", "*", "range", "while", "def", "lambda"} {
			if strings.Contains(string(data), unbounded) {
				return
			}
		}
		checkLoad(t, data, "fuzz.rules")
	})
}
