package policy

import (
	"encoding/json"
	"testing"
)

func shellPattern(t *testing.T, cmds ...string) Pattern {
	t.Helper()
	p, err := compileStructured("bash", nil, map[string][]string{"cmd": cmds})
	if err != nil {
		t.Fatalf("compile %q: %v", cmds, err)
	}
	return p
}

func bashCall(script string) string {
	b, _ := json.Marshal(map[string]string{"cmd": script})
	return string(b)
}

func TestP8_ShellAwarePattern(t *testing.T) {
	allow := []string{"ls", "cat", "git status", "echo", "/opt/tools/lint"}
	tests := []struct {
		name, script string
		want         bool
	}{
		{"single command", "ls -la", true},
		{"program by base name", "/bin/ls -la", true},
		{"program in /usr/bin", "/usr/bin/cat x", true},
		{"relative path is another program", "./ls", false},
		{"absolute path outside system dirs", "/tmp/evil/ls", false},
		{"prefix given with a path is exact", "/opt/tools/lint x", true},
		{"bare name does not match a path prefix", "lint x", false},
		{"multi-word prefix", "git status --short", true},
		{"multi-word prefix other subcommand", "git push --force", false},
		{"word by word, not text prefix", "lsblk", false},
		{"prefix word must be whole", "git statusx", false},
		{"semicolon", "ls; touch pwned", false},
		{"semicolon all allowed", "ls; cat a", true},
		{"and list", "ls && rm -rf x", false},
		{"or list", "ls || rm -rf x", false},
		{"and list all allowed", "ls && git status", true},
		{"background", "ls & rm x", false},
		{"pipe", "cat a | sh", false},
		{"pipe all allowed", "cat a | cat", true},
		{"newline", "ls\nrm -rf /", false},
		{"newline all allowed", "ls\ncat a\n", true},
		{"comment hides nothing", "ls # ; rm -rf /", true},
		{"comment only", "# nothing", false},
		{"empty script", "", false},
		{"subshell", "(ls; rm x)", false},
		{"subshell allowed", "(ls; cat x)", true},
		{"brace group", "{ ls; rm x; }", false},
		{"command substitution", "ls $(rm -rf x)", false},
		{"backquotes", "ls `rm -rf x`", false},
		{"substitution allowed", "ls $(cat dir)", true},
		{"process substitution", "cat <(rm x)", false},
		{"bash -c hides a chain", "bash -c 'ls; rm x'", false},
		{"sh -c alone", "sh -c 'ls'", false},
		{"sudo", "sudo ls", false},
		{"env with assignment", "env X=1 ls", false},
		{"assignment prefix", "LD_PRELOAD=/tmp/x.so ls", false},
		{"bare assignment", "PATH=/tmp/evil; ls", false},
		{"output redirection", "ls > ~/.bashrc", false},
		{"redirection only", "> important", false},
		{"input redirection", "cat < notes.txt", true},
		{"here-doc quoted", "cat <<'EOF'\n$(rm x)\nEOF", true},
		{"here-doc with substitution", "cat <<EOF\n$(rm x)\nEOF", false},
		{"here-doc allowed substitution", "cat <<EOF\n$(ls)\nEOF", true},
		{"eval of a variable", `eval "$X"`, false},
		{"eval literal", `eval ls`, false},
		{"non-literal program", "$CMD x", false},
		{"substituted program", "$(which rm) x", false},
		{"non-literal argument beyond the prefix", "ls $HOME", true},
		{"non-literal word inside the prefix", "git $SUB", false},
		{"if body", "if true; then ls; fi", false},
		{"function", "f() { ls; }; f", false},
		{"xargs", "ls | xargs rm", false},
		{"find -exec", "find . -exec rm {} ;", false},
		{"unparsable", "ls (", false},
		{"unterminated quote", "ls 'x", false},
		{"case is exact (A8)", "LS", false},
		{"echo chain", "echo hi; echo there", true},
	}
	p := shellPattern(t, allow...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Match(NewTarget(call("bash", bashCall(tt.script)), nil)); got != tt.want {
				t.Errorf("commands %q on %q = %v, want %v", allow, tt.script, got, tt.want)
			}
		})
	}
}

// Listing a wrapper lets it through, but the command it runs is still
// checked.
func TestP8_WrappersSeenThrough(t *testing.T) {
	p := shellPattern(t, "sudo", "bash -c", "ls", "env")
	tests := []struct {
		script string
		want   bool
	}{
		{"sudo ls", true},
		{"sudo rm -rf /", false},
		{"bash -c 'ls'", true},
		{"bash -c 'ls; rm x'", false},
		{"bash -c \"$X\"", false},
		{"sudo bash -c 'ls && rm x'", false},
		{"env ls", true},
		{"env rm x", false},
		{"env X=1 ls", false},
	}
	for _, tt := range tests {
		if got := p.Match(NewTarget(call("bash", bashCall(tt.script)), nil)); got != tt.want {
			t.Errorf("%q = %v, want %v", tt.script, got, tt.want)
		}
	}
}

func TestP8_ArgumentRules(t *testing.T) {
	p := shellPattern(t, "ls")
	tests := []struct {
		name, fn, args string
		want           bool
	}{
		{"other tool", "python", `{"cmd":"ls"}`, false},
		{"argument absent", "bash", `{"command":"ls"}`, false},
		{"argument named exactly, not by case", "bash", `{"CMD":"ls"}`, false},
		{"argument order irrelevant", "bash", `{"timeout":5,"cmd":"ls"}`, true},
		{"non-string value", "bash", `{"cmd":["ls"]}`, false},
		{"unparsable arguments", "bash", `{"cmd":"ls"`, false},
	}
	for _, tt := range tests {
		if got := p.Match(NewTarget(call(tt.fn, tt.args), nil)); got != tt.want {
			t.Errorf("%s: %s %s = %v, want %v", tt.name, tt.fn, tt.args, got, tt.want)
		}
	}
	// Glob args and command args combine: both must match.
	q, err := compileStructured("bash", map[string]string{"cwd": "/work*"}, map[string][]string{"cmd": {"ls"}})
	if err != nil {
		t.Fatal(err)
	}
	if !q.Match(NewTarget(call("bash", `{"cwd":"/work/x","cmd":"ls"}`), nil)) {
		t.Error("glob and commands: want match")
	}
	if q.Match(NewTarget(call("bash", `{"cwd":"/etc","cmd":"ls"}`), nil)) {
		t.Error("glob fails: want no match")
	}
}

func TestP8_CompileErrors(t *testing.T) {
	for _, cmds := range [][]string{nil, {}, {""}, {"  "}, {"'x"}, {"'' x"}} {
		if _, err := compileStructured("bash", nil, map[string][]string{"cmd": cmds}); err == nil {
			t.Errorf("commands %q: want an error", cmds)
		}
	}
	if _, err := compileStructured("bash", map[string]string{"cmd": "ls*"}, map[string][]string{"cmd": {"ls"}}); err == nil {
		t.Error("cmd as glob and commands: want an error")
	}
}

// FuzzP8_Commands checks that matching any script against a shell-aware
// pattern never panics and that an opaque or unparsable script never
// matches.
func FuzzP8_Commands(f *testing.F) {
	for _, s := range []string{"ls", "ls; rm x", "bash -c 'ls'", "eval \"$X\"", "cat <<EOF\n$(ls)\nEOF", "ls (", "sudo env X=1 ls"} {
		f.Add(s)
	}
	p, err := compileStructured("bash", nil, map[string][]string{"cmd": {"ls", "cat", "echo", "sudo", "bash -c"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, script string) {
		tg := NewTarget(call("bash", bashCall(script)), nil)
		got := p.Match(tg)
		s, _ := tg.script("cmd")
		if got && (s == nil || s.Opaque || len(s.Commands) == 0) {
			t.Fatalf("%q matched though opaque or unparsable", script)
		}
		if got {
			for _, c := range s.Commands {
				if len(c.Assigns) > 0 || len(c.Redirects) > 0 {
					t.Fatalf("%q matched with assignments or redirections", script)
				}
			}
		}
	})
}

func TestP8_EntryJSONRoundTrip(t *testing.T) {
	in := Entry{Name: "auto", Tool: "bash", Args: map[string]string{"cwd": "/w*"},
		Commands: map[string][]string{"cmd": {"ls", "git status"}}, Chain: "c",
		Params: map[string]any{"decision": "approve"}}
	js, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Entry
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	again, _ := json.Marshal(out)
	if string(again) != string(js) {
		t.Errorf("round trip:\n%s\n%s", js, again)
	}
	if len(out.Commands["cmd"]) != 2 || out.Args["cwd"] != "/w*" || out.Params["decision"] != "approve" {
		t.Errorf("decoded %+v", out)
	}
}
