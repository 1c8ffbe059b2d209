package policy

import (
	"strings"
	"testing"

	"github.com/wardenhq/warden/tool"
)

func call(fn, args string) *tool.Call {
	c := tool.NewCall("c1", fn, args)
	return &c
}

func matches(t *testing.T, pattern string, c *tool.Call) bool {
	t.Helper()
	m, err := CompileList([]string{pattern})
	if err != nil {
		t.Fatalf("compile %q: %v", pattern, err)
	}
	return m.Match(NewTarget(c, nil))
}

func TestP2_CallText(t *testing.T) {
	tests := []struct {
		fn, args, want string
	}{
		{"bash", `{"cmd":"ls -la"}`, `bash(cmd='ls -la')`},
		{"f", `{"b":1,"a":"x"}`, `f(a='x', b=1)`},
		{"f", `{"t":true,"f":false,"n":null}`, `f(f=False, n=None, t=True)`},
		{"f", `{"l":["a",2],"o":{"k":"v"}}`, `f(l=['a', 2], o={'k': 'v'})`},
		{"f", `{"s":"line1\nline2 \"q\" \u00e9"}`, "f(s='line1\nline2 \"q\" é')"},
		{"f", `{}`, `f()`},
		{"f", ``, `f()`},
	}
	for _, tt := range tests {
		if got := call(tt.fn, tt.args).Text(); got != tt.want {
			t.Errorf("Text(%s %s) = %q, want %q", tt.fn, tt.args, got, tt.want)
		}
	}
}

func TestP2_Patterns(t *testing.T) {
	rm := call("bash", `{"cmd":"rm -rf /tmp/x"}`)
	ls := call("bash", `{"cmd":"ls"}`)
	session := call("bash_session", `{"cmd":"rm x"}`)
	multi := call("bash", `{"cmd":"echo hi\nrm -rf /"}`)
	py := call("python", `{"code":"print(1)"}`)
	ordered := call("f", `{"b":1,"a":"x"}`)
	tests := []struct {
		name    string
		pattern string
		call    *tool.Call
		want    bool
	}{
		{"implied trailing star", "bash(cmd='rm", rm, true},
		{"prefix does not match other command", "bash(cmd='rm", ls, false},
		{"bare name matches the tool", "bash", rm, true},
		{"bare name does not match bash_session (Inspect 5231)", "bash", session, false},
		{"explicit glob matches bash_session", "bash*", session, true},
		{"star crosses newlines", "bash(cmd='echo*rm -rf", multi, true},
		{"star everything", "*", py, true},
		{"keys sorted without a schema", "f(a='x', b=1)", ordered, true},
		{"the model's key order is not used", "f(b=1", ordered, false},
		{"question mark", "bash(cmd='l?", ls, true},
		{"class", "bash(cmd='[lr]", rm, true},
		{"negated class", "bash(cmd='[!lr]", rm, false},
		{"unclosed bracket is literal", "bash(cmd='[", rm, false},
		{"glob over tool name", "py*", py, true},
		{"glob does not match other tool", "py*", rm, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matches(t, tt.pattern, tt.call); got != tt.want {
				t.Errorf("%q on %s = %v, want %v", tt.pattern, tt.call.Text(), got, tt.want)
			}
		})
	}
}

func TestP2_CommaListsSplit(t *testing.T) {
	got := splitList("bash, python ,bash(cmd='a, b'), web_*")
	want := []string{"bash", "python", "bash(cmd='a, b')", "web_*"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("splitList = %q, want %q", got, want)
	}
	m, err := CompileList([]string{"bash, python"})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Match(NewTarget(call("python", `{}`), nil)) || !m.Match(NewTarget(call("bash", `{}`), nil)) {
		t.Error("comma list does not match both tools")
	}
	if m.Match(NewTarget(call("bash_session", `{}`), nil)) {
		t.Error("comma list matched bash_session")
	}
}

func TestP2_Structured(t *testing.T) {
	c := call("bash", `{"timeout":30,"cmd":"git push --force"}`)
	tests := []struct {
		tool string
		args map[string]string
		want bool
	}{
		{"bash", map[string]string{"cmd": "git push*"}, true},
		{"bash", map[string]string{"cmd": "git push*", "timeout": "30"}, true},
		{"ba*", map[string]string{"cmd": "*--force*"}, true},
		{"bash", map[string]string{"cmd": "git"}, false}, // whole match, no implied star
		{"bash", map[string]string{"missing": "*"}, false},
		{"python", nil, false},
		{"bash", nil, true},
	}
	for _, tt := range tests {
		p, err := CompileStructured(tt.tool, tt.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Match(NewTarget(c, nil)); got != tt.want {
			t.Errorf("tool=%s args=%v: got %v, want %v", tt.tool, tt.args, got, tt.want)
		}
	}
}

func TestP2_UnparseableCallMatchesOnRawText(t *testing.T) {
	c := call("bash", `{"cmd": "rm`)
	if c.ParseError == "" {
		t.Fatal("want a parse error")
	}
	if !matches(t, "bash", c) {
		t.Error("bare name should match an unparseable call of the tool")
	}
}

func TestGlobBacktracking(t *testing.T) {
	tests := []struct {
		glob, s string
		want    bool
	}{
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXcYb", false},
		{"*ab", "aab", true},
		{"*a*a*a*a*b", strings.Repeat("a", 60), false},
		{"x?y", "xéy", true},
		{"[a-c]*", "b", true},
		{"", "", true},
		{"", "a", false},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.glob)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.match(tt.s); got != tt.want {
			t.Errorf("glob %q on %q = %v, want %v", tt.glob, tt.s, got, tt.want)
		}
	}
}

func FuzzPattern(f *testing.F) {
	f.Add("bash(cmd='rm", `{"cmd":"rm -rf /"}`)
	f.Add("[!a-z]*?", `{"x":[1,{"y":"z"}]}`)
	f.Add("*a*b*", `{"s":"\u00e9\n"}`)
	f.Fuzz(func(t *testing.T, pattern, args string) {
		c := tool.NewCall("id", "bash", args)
		_ = c.Text()
		m, err := CompileList([]string{pattern})
		if err != nil {
			return
		}
		got := m.Match(NewTarget(&c, nil))
		// A pattern that is the call's own text always matches it (the
		// bracket-free case, where the text is literal).
		if !strings.ContainsAny(c.Text(), "*?[,") {
			self, err := Compile(c.Text())
			if err == nil && !self.Match(NewTarget(&c, nil)) {
				t.Errorf("call text %q does not match itself", c.Text())
			}
		}
		_ = got
	})
}

// TestP2_ArgumentOrderCannotSkipDenyPattern: a deny pattern on the first
// parameter of a tool matches however the model orders the keys, and
// whatever keys it adds.
func TestP2_ArgumentOrderCannotSkipDenyPattern(t *testing.T) {
	order := tool.Order{"cmd", "sandbox_permissions", "justification"}
	deny, err := CompileList([]string{"bash(cmd='rm"})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`{"cmd":"rm -rf ~"}`,
		`{"justification":"x","cmd":"rm -rf ~"}`,
		`{"sandbox_permissions":"require_escalated","cmd":"rm -rf ~"}`,
		`{"justification":"x","sandbox_permissions":"use_default","cmd":"rm -rf ~"}`,
		`{"a":1,"cmd":"rm -rf ~"}`, // a key the schema does not list goes after
		`{"":"","cmd":"rm -rf ~"}`,
		// Repeated or case-variant names never reach a pattern: they are
		// parsing errors (SPEC A8, tested in package tool and agent).
	} {
		c := call("bash", args)
		target := NewTarget(c, order)
		if !deny.Match(target) {
			t.Errorf("bash(cmd='rm does not match %s, rendered %s", args, target.Text())
		}
		if !strings.HasPrefix(target.Text(), "bash(cmd='rm -rf ~'") {
			t.Errorf("%s rendered %s, want cmd first", args, target.Text())
		}
	}
	// The same through a compiled set, pooled targets and all, is tested
	// in internal/policyset.
}

func mustCompile(t *testing.T, src string) Pattern {
	t.Helper()
	p, err := Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestP2_TextAndArgumentPatternsShareOneTarget: a target reads the call's
// arguments once for its text and for argument patterns; whichever a
// policy asks first, the text is in the rendering order and each argument
// pattern sees its own argument's value.
func TestP2_TextAndArgumentPatternsShareOneTarget(t *testing.T) {
	const args = `{"z":"last","cmd":"rm -rf ~","a":"first"}`
	text := func(src string) probe { return probe{text: src} }
	arg := func(k, v string) probe { return probe{key: k, value: v} }
	tests := []struct {
		name   string
		order  tool.Order
		probes []probe // asked in order, on one target; all must match
		text   string
	}{
		{"arguments first, sorted", nil, []probe{arg("z", "last"), arg("a", "first"), text("bash(a='first', cmd='rm -rf ~', z='last')"), arg("cmd", "rm*")},
			"bash(a='first', cmd='rm -rf ~', z='last')"},
		{"text first, sorted", nil, []probe{text("bash(a='first', cmd='rm"), arg("z", "last"), arg("cmd", "rm -rf ~"), arg("a", "first")},
			"bash(a='first', cmd='rm -rf ~', z='last')"},
		{"text first, tool order", tool.Order{"cmd", "z"}, []probe{text("bash(cmd='rm -rf ~', z='last', a='first')"), arg("a", "first"), arg("z", "last")},
			"bash(cmd='rm -rf ~', z='last', a='first')"},
		{"already in order", tool.Order{"z", "cmd", "a"}, []probe{arg("z", "last"), text("bash(z='last', cmd='rm -rf ~', a='first')"), arg("cmd", "rm -rf ~")},
			"bash(z='last', cmd='rm -rf ~', a='first')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := NewTarget(call("bash", args), tt.order)
			for _, p := range tt.probes {
				if !p.match(t, target) {
					t.Errorf("%+v does not match; text %s", p, target.Text())
				}
			}
			if got := target.Text(); got != tt.text {
				t.Errorf("text %s, want %s", got, tt.text)
			}
			if arg("a", "last").match(t, target) || arg("z", "first").match(t, target) {
				t.Error("argument values mixed up")
			}
			// A reset target reads the next call afresh.
			target.Reset(call("bash", `{"a":"other"}`), tt.order)
			if !arg("a", "other").match(t, target) || target.Text() != "bash(a='other')" {
				t.Errorf("after Reset: text %s", target.Text())
			}
		})
	}
}

// probe is a text pattern, or a structured pattern on one argument of bash.
type probe struct{ text, key, value string }

func (p probe) match(t *testing.T, target *Target) bool {
	t.Helper()
	var c Pattern
	var err error
	if p.text != "" {
		c, err = Compile(p.text)
	} else {
		c, err = CompileStructured("bash", map[string]string{p.key: p.value})
	}
	if err != nil {
		t.Fatal(err)
	}
	return c.Match(target)
}
