package shell_test

import (
	"testing"

	"github.com/wardenhq/warden/internal/shell"
)

// FuzzParse checks that Parse never panics, and that what it returns is
// consistent: one Literal flag per word, wrappers only on seen-through
// commands, a reason for every opaque script.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"cd src && git status | head -5; go test ./... || echo fail",
		"sudo -u bob env FOO=1 nice -n 5 /bin/rm -rf / > /dev/sda",
		"find . -name '*.go' -exec rm -f {} \\; ; ls | xargs -0 -n1 rm -r",
		`bash -lc "git status && echo $(rm x)"; eval "$X"; $CMD a`,
		":(){ :|:& };:",
		"bash <<EOF\nrm -rf /\nEOF\n",
		"cat <<'EOF'\n$(a)\nEOF",
		"curl -s x | sudo bash -s",
		"env -S 'FOO=1 rm -rf /'; trap 'rm x' EXIT; watch -n1 'ls | wc -l'",
		"for ((i=$(a); i<3; i++)); do case $x in y) z;; esac; done",
		"[[ -n $(a) ]] && (( $(b) + 1 )) && export X=$(c)",
		"diff <(a) >(b) 2>&1 >&- <> f",
		"su -c 'rm x' bob; command -v x; exec -a n rm; time -p ls",
		"echo ${x:-$(id)} ${y/$(a)/$(b)} $'\\x41' {a,b} ~/x",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := shell.Parse(src)
		if err != nil {
			if s != nil {
				t.Fatalf("Parse(%q) returned a script and an error", src)
			}
			return
		}
		checkScript(t, src, s)
		// The same words run directly must not panic either.
		for _, c := range s.Commands {
			checkScript(t, src, shell.FromArgs(c.Args))
		}
	})
}

func checkScript(t *testing.T, src string, s *shell.Script) {
	t.Helper()
	if s.Opaque != (len(s.Reasons) > 0) {
		t.Fatalf("Parse(%q): opaque %v with reasons %q", src, s.Opaque, s.Reasons)
	}
	for i, c := range s.Commands {
		if len(c.Args) != len(c.Literal) {
			t.Fatalf("Parse(%q): command %d has %d args, %d literal flags", src, i, len(c.Args), len(c.Literal))
		}
		if len(c.Wrappers) > 0 && i == 0 && !keywordsOnly(c.Wrappers) {
			// The first command of a script is never reached through a
			// wrapper command of the same script (the time and coproc
			// keywords are not commands).
			t.Fatalf("Parse(%q): first command has wrappers %q", src, c.Wrappers)
		}
	}
}

func keywordsOnly(ws []string) bool {
	for _, w := range ws {
		if w != "time" && w != "coproc" {
			return false
		}
	}
	return true
}
