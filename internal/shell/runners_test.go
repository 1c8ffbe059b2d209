package shell_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/shell"
)

// TestG14_RunnersSeenThrough checks the commands found behind runners,
// xargs, parallel, git aliases and helpers, and shell aliases: their words
// (a non-literal word shown as ?), and whether more words follow from
// input.
func TestG14_RunnersSeenThrough(t *testing.T) {
	tests := []struct {
		script string
		want   string // the words of a command found, non-literal words as ?
		more   bool   // MoreArgs of that command
	}{
		{"dbus-run-session -- rm -rf v", "rm -rf v", false},
		{"unshare -r --propagation private rm x", "rm x", false},
		{"nsenter -t 1 -m -- rm x", "rm x", false},
		{"setpriv --reuid 1000 rm x", "rm x", false},
		{"prlimit --nofile=64 rm x", "rm x", false},
		{"sg users -c 'rm x'", "rm x", false},
		{"xvfb-run -s '-screen 0' rm x", "rm x", false},
		{"gdb -batch -ex run --args rm x", "rm x", false},
		{"valgrind --tool=memcheck rm x", "rm x", false},
		{"faketime '2020-01-01' rm x", "rm x", false},
		{"ip netns exec n rm x", "rm x", false},
		{"ip -all netns exec rm x", "rm x", false},
		{"setarch x86_64 -R rm x", "rm x", false},
		{"toybox rm x", "rm x", false},
		{"echo x | xargs git", "git", true},
		{"echo x | xargs env git", "git", true},
		{"echo x | xargs -I{} git {} o", "git ? o", false},
		{"echo x | xargs -i git {}", "git ?", false},
		{"echo x | xargs --replace=% git %", "git ?", false},
		{"parallel git ::: push pull", "git pull", false},
		{"parallel ::: 'rm x'", "rm x", false},
		{"parallel rm ::: -r ::: a", "rm -r a", false},
		{"ls | parallel gzip", "gzip ?", false},
		{"ls | parallel mv {} {.}.bak", "mv ? ?", false},
		{"sem --fg rm x", "rm x", false},
		{"git -c alias.p=push p o", "git -c alias.p=push push o", false},
		{"git -c alias.p='!rm x' p", "rm x", false},
		{"git config alias.p 'push -f'; git p", "git push -f", false},
		{"GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p", "git push", false},
		{`GIT_CONFIG_PARAMETERS="'alias.p'='push'" git p`, "git push", false},
		{"/usr/lib/git-core/git-push o", "git push o", false},
		{"alias g=git\ng push", "git push", false},
		{"at now <<< 'rm x'", "rm x", false},
	}
	for _, tt := range tests {
		sc, err := shell.Parse(tt.script)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.script, err)
		}
		var found []string
		ok := false
		for _, c := range sc.Commands {
			words := slices.Clone(c.Args)
			for i := range words {
				if !c.Literal[i] {
					words[i] = "?"
				}
			}
			got := strings.Join(words, " ")
			found = append(found, got)
			if got == tt.want && c.MoreArgs == tt.more {
				ok = true
			}
		}
		if !ok {
			t.Errorf("Parse(%q): no command %q (more words %v) in %q", tt.script, tt.want, tt.more, found)
		}
	}
	// Opaque where what runs cannot be seen.
	for _, s := range []string{
		"printf x | xargs -0 sh -c",
		"echo x | xargs -I{} sh -c 'rm {}'",
		"echo x | parallel \"rm '{}'\"",
		"git -c alias.a=a a",
	} {
		if sc, err := shell.Parse(s); err != nil || !sc.Opaque {
			t.Errorf("Parse(%q) is not opaque", s)
		}
	}
}

// FuzzRunners runs FuzzParse's checks on scripts built around the runners,
// xargs, parallel and git aliases.
func FuzzRunners(f *testing.F) {
	for _, seed := range []string{
		"echo x | xargs -I{} sh -c 'rm {}'", "parallel 'git {}' ::: push", "ls | parallel mv {} {.}",
		"parallel rm ::: -r ::: a b", "git -c alias.p='!git p' p", "git config alias.p p; git p",
		"alias g='g x'\ng", "ip -all netns exec rm x", "sg - users -c 'rm x'", "gdb --args",
		"prlimit --pid 1", "GIT_CONFIG_PARAMETERS=\"'alias.p'='push\" git p", "parallel \"echo '{}\" ::: a",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := shell.Parse(src)
		if err != nil {
			return
		}
		checkScript(t, src, s)
		for _, c := range s.Commands {
			checkScript(t, src, shell.FromArgs(c.Args))
		}
	})
}
