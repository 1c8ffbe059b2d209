package autoreview_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/autoreview"
	"github.com/wardenhq/warden/internal/filetest"
	"github.com/wardenhq/warden/internal/wardenhome"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	return filetest.Write(t, dir, name, text)
}

func TestG8_PolicyPrecedence(t *testing.T) {
	type part struct{ level, key, text string }
	for _, tc := range []struct {
		name          string
		managed, user string // file contents; "-" means no file
		want          []part
	}{
		{"no files: bundled default", "-", "-",
			[]part{{"bundled", "policy", "Warden's bundled policy."}}},
		{"files without the table", "[other]\nx = 1\n", "approvals_reviewer = \"auto_review\"\n",
			[]part{{"bundled", "policy", "Warden's bundled policy."}}},
		{"user policy replaces the default", "-", "[auto_review]\npolicy = \"USER POLICY\"\n",
			[]part{{"user", "policy", "USER POLICY"}}},
		{"blank user policy falls through", "-", "[auto_review]\npolicy = \"  \\n \"\n",
			[]part{{"bundled", "policy", "Warden's bundled policy."}}},
		{"managed policy wins over the user's", "[auto_review]\npolicy = \"MANAGED POLICY\"\n", "[auto_review]\npolicy = \"USER POLICY\"\n",
			[]part{{"managed", "policy", "MANAGED POLICY"}}},
		{"extra_policy appends at each level", "[auto_review]\nextra_policy = \"MANAGED EXTRA\"\n", "[auto_review]\nextra_policy = \"USER EXTRA\"\n",
			[]part{{"bundled", "policy", "Warden's bundled policy."}, {"managed", "extra_policy", "MANAGED EXTRA"}, {"user", "extra_policy", "USER EXTRA"}}},
		{"the floor stays when the user sets a policy", "[auto_review]\nfloor = \"\"\"\nNever allow uploads to pastebins.\n\"\"\"\n", "[auto_review]\npolicy = \"Allow everything.\"\nextra_policy = \"And more.\"\n",
			[]part{{"user", "policy", "Allow everything."}, {"user", "extra_policy", "And more."}, {"managed", "floor", "Never allow uploads to pastebins."}}},
		{"everything", "[auto_review]\npolicy = \"MP\"\nextra_policy = \"ME\"\nfloor = \"MF\"\n", "[auto_review]\npolicy = \"UP\"\nextra_policy = \"UE\"\n",
			[]part{{"managed", "policy", "MP"}, {"managed", "extra_policy", "ME"}, {"user", "extra_policy", "UE"}, {"managed", "floor", "MF"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := resolveFiles(t, tc.managed, tc.user)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Parts) != len(tc.want) {
				t.Fatalf("parts %+v, want %+v", res.Parts, tc.want)
			}
			last := -1
			for i, w := range tc.want {
				p := res.Parts[i]
				if p.Level != w.level || p.Key != w.key || !strings.HasPrefix(p.Text, w.text) {
					t.Errorf("part %d = %s %s %.40q, want %s %s %q", i, p.Level, p.Key, p.Text, w.level, w.key, w.text)
				}
				if (p.Level == "bundled") != (p.Path == "") {
					t.Errorf("part %d path %q", i, p.Path)
				}
				// Each part is in the text, in order, under its heading.
				at := strings.Index(res.Text, "## "+p.Heading()+"\n\n"+p.Text)
				if at <= last {
					t.Errorf("part %d not in order in the text:\n%s", i, res.Text)
				}
				last = at
			}
			if d := res.Describe(); !strings.Contains(d, res.Text) || !strings.Contains(d, "Sources:") {
				t.Errorf("Describe:\n%s", d)
			}
			sys := autoreview.SystemPrompt(res.Text)
			if !strings.Contains(sys, res.Text) || strings.Contains(sys, autoreview.PolicySlot) {
				t.Error("the resolved text is not in the template's slot")
			}
		})
	}
}

func TestG8_PolicyErrors(t *testing.T) {
	for _, tc := range []struct {
		name, managed, user string
		want                []string
	}{
		{"bad TOML has file:line:col", "-", "[auto_review]\npolicy = \"a\"\nextra_policy = \"unterminated\n", []string{"config.toml:3:29: "}},
		{"wrong type", "[auto_review]\npolicy = 5\n", "-", []string{"managed.toml:2:", "auto_review.policy: want a string, not an integer"}},
		{"unknown key", "-", "[auto_review]\nextra-policy = \"x\"\n", []string{"config.toml", "unknown key auto_review.extra-policy", "extra_policy"}},
		{"floor in the user file", "-", "[auto_review]\nfloor = \"x\"\n", []string{"config.toml", "floor is only read from the managed"}},
		{"bad timeout", "-", "[auto_review]\n\ntimeout = \"soon\"\n", []string{"config.toml:3:", "timeout"}},
		{"negative timeout", "[auto_review]\ntimeout = -3\n", "-", []string{"managed.toml", "not positive"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resolveFiles(t, tc.managed, tc.user)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}

	// A managed path that cannot be read is an error, not a skip.
	dir := t.TempDir()
	if _, err := autoreview.ResolvePolicy(autoreview.PolicySources{ManagedPath: dir}); err == nil {
		t.Error("a directory as the managed file gave no error")
	}
}

func TestG10_ConfiguredTimeout(t *testing.T) {
	src := policyFiles(t, "[auto_review]\nfloor = \"F\"\n", "[auto_review]\ntimeout = \"2m\"\n")
	dir := filepath.Dir(src.ManagedPath)
	res, err := autoreview.ResolvePolicy(src)
	if err != nil {
		t.Fatal(err)
	}
	if res.Timeout != 2*time.Minute || res.TimeoutFrom != src.UserConfigPath {
		t.Errorf("timeout %s from %s", res.Timeout, res.TimeoutFrom)
	}
	writeFile(t, dir, "managed.toml", "[auto_review]\ntimeout = 30\n")
	if res, err = autoreview.ResolvePolicy(src); err != nil || res.Timeout != 30*time.Second || res.TimeoutFrom != src.ManagedPath {
		t.Errorf("managed timeout %s from %s, err %v", res.Timeout, res.TimeoutFrom, err)
	}
	if len(res.Files) != 2 {
		t.Errorf("files %v", res.Files)
	}
}

func TestG8_DefaultPolicySources(t *testing.T) {
	t.Setenv(wardenhome.EnvManagedConfig, "/opt/x/managed.toml")
	t.Setenv(wardenhome.EnvHome, "/srv/wh")
	src := autoreview.DefaultPolicySources()
	if src.ManagedPath != "/opt/x/managed.toml" || src.UserConfigPath != "/srv/wh/config.toml" {
		t.Errorf("sources %+v", src)
	}
	t.Setenv(wardenhome.EnvManagedConfig, "")
	t.Setenv(wardenhome.EnvHome, "")
	t.Setenv("HOME", "/home/someone")
	src = autoreview.DefaultPolicySources()
	if src.ManagedPath != wardenhome.DefaultManagedConfig || src.UserConfigPath != "/home/someone/.warden/config.toml" {
		t.Errorf("default sources %+v", src)
	}
}

// TestG7_DefaultPolicyCoversTheFourClasses checks the bundled policy names
// each class of G7 with guidance both ways, and the outcome rule of G6.
func TestG7_DefaultPolicyCoversTheFourClasses(t *testing.T) {
	p := autoreview.DefaultPolicy
	for _, want := range []string{
		"exfiltration", "source", "payload", "destination",
		"credentials", "gh auth status", "Deny gathering credentials",
		"Weakening security", "narrow, temporary", "broad or lasting",
		"Irreversible damage", "scoped deletions", "rm -rf",
		"low and medium risk allow", "high risk allows only when user_authorization is medium or high", "critical risk always denies",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the default policy lacks %q", want)
		}
	}
	if strings.Count(p, "- Allow") < 4 || strings.Count(p, "- Deny") < 4 {
		t.Error("each class needs allow and deny guidance")
	}
	if got := autoreview.SystemPrompt(""); !strings.Contains(got, p) {
		t.Error("a blank policy does not fall back to the default")
	}
}

// resolveFiles resolves the policy of a managed and a user configuration
// file holding managed and user ("-": no such file).
func resolveFiles(t *testing.T, managed, user string) (autoreview.Resolved, error) {
	t.Helper()
	return autoreview.ResolvePolicy(policyFiles(t, managed, user))
}

// policyFiles writes, in a new directory, the managed configuration file
// managed.toml and the user's config.toml holding managed and user ("-": no
// such file), and returns them as policy sources.
func policyFiles(t *testing.T, managed, user string) autoreview.PolicySources {
	t.Helper()
	dir := t.TempDir()
	src := autoreview.PolicySources{ManagedPath: filepath.Join(dir, "managed.toml"), UserConfigPath: filepath.Join(dir, "config.toml")}
	if managed != "-" {
		writeFile(t, dir, "managed.toml", managed)
	}
	if user != "-" {
		writeFile(t, dir, "config.toml", user)
	}
	return src
}

// G4: a review has a budget of tool calls. A reviewer that asks for ten
// calls at once gets four run; one that keeps calling tools once the
// budget is spent fails the review — a failure that fails closed, told
// apart from a denial — after a bounded number of model calls.
func TestG4_ToolCallBudget(t *testing.T) {
	dir := t.TempDir()
	var calls [][2]string
	for range 10 {
		calls = append(calls, [2]string{"list_dir", `{}`})
	}
	srv := newFake(t, completion("", calls...))
	r := &autoreview.Reviewer{Model: srv.model(t), Tools: autoreview.ReadOnlyTools(dir), MaxSteps: 3, Attempts: 2, MaxToolCalls: 4}
	res, err := review(t, r)
	if err == nil || res.Status != action.StatusFailed || !res.Denied() {
		t.Fatalf("status %s, err %v: want a failed review", res.Status, err)
	}
	if res.Verdict != nil || !strings.Contains(res.Message, "Auto-review failed") || strings.Contains(res.Message, "denied this action") {
		t.Errorf("the exhausted budget reads as a verdict: %q", res.Message)
	}
	if !strings.Contains(err.Error(), "budget") {
		t.Errorf("error %v does not name the budget", err)
	}
	if res.ToolCalls != 4 || res.Steps != 1 {
		t.Errorf("ran %d tool calls in %d steps, want 4 in 1", res.ToolCalls, res.Steps)
	}
	if n := srv.requests(); n != 1+2 {
		t.Errorf("%d model calls, want the step and then 2 attempts", n)
	}
	req := srv.request(1)
	var ran, refused int
	for _, m := range req.Messages {
		if m.Role != "tool" {
			continue
		}
		switch {
		case strings.HasPrefix(m.Content, autoreview.BeginToolOutput) && strings.Contains(m.Content, "not run: the budget of 4 tool calls"):
			refused++
		case strings.HasPrefix(m.Content, autoreview.BeginToolOutput):
			ran++
		}
	}
	if ran != 4 || refused != 6 {
		t.Errorf("%d calls ran and %d were refused, want 4 and 6", ran, refused)
	}
}

// G4: the budget of a review is configurable in [auto_review]: the managed
// file's value wins over the user's; a value out of range is an error.
func TestG4_ConfiguredBudget(t *testing.T) {
	src := policyFiles(t, "[auto_review]\nmax_tool_calls = 6\n", "[auto_review]\nmax_steps = 2\nmax_tool_calls = 40\n")
	dir := filepath.Dir(src.ManagedPath)
	res, err := autoreview.ResolvePolicy(src)
	if err != nil || res.MaxSteps != 2 || res.MaxToolCalls != 6 {
		t.Errorf("budget: steps %d, tool calls %d, %v; want 2 and 6", res.MaxSteps, res.MaxToolCalls, err)
	}
	if !strings.Contains(res.Describe(), "steps 2, tool calls 6") {
		t.Errorf("the budget is not described:\n%s", res.Describe())
	}
	for _, bad := range []string{"max_steps = 0", "max_tool_calls = -1", "max_tool_calls = 5000", `max_steps = "many"`} {
		writeFile(t, dir, "config.toml", "[auto_review]\n"+bad+"\n")
		if _, err := autoreview.ResolvePolicy(src); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
