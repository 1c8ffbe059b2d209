package rules_test

import (
	"testing"

	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/vocab"

	"github.com/wardenhq/warden/rules"
)

// forbidRmPush is the policy "allow everything except rm -rf and git
// push", the one where an indirection that hides those words would be let
// through.
func forbidRmPush(t *testing.T) *rules.Set {
	return load(t, "f.rules", `
prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")
prefix_rule(pattern = ["git", "push"], decision = "forbidden")
`)
}

// TestG14_ExecRulesSeeThroughIndirection plays the attacker against exec
// rules (issue 18 item 6): a forbidden command reached through xargs,
// git aliases and helper binaries, a shell or an interpreter reading its
// program from a file, standard input, a here-string or a here-document,
// and wrappers that run their arguments is judged as what it runs
// (forbidden) where that shows, and prompts where it does not; it is
// never allowed.
func TestG14_ExecRulesSeeThroughIndirection(t *testing.T) {
	set := forbidRmPush(t)
	const F, P = rules.Forbidden, rules.Prompt
	tests := []struct {
		script string
		want   vocab.Decision // F: exactly forbidden; P: at least prompt
	}{
		// xargs: a shell or a program given its words by its input.
		{`printf 'rm -rf v' | xargs -0 sh -c`, P},
		{`echo push | xargs git`, P},
		{`echo push | xargs -n1 git`, P},
		{`xargs -a words git`, P},
		{`xargs git < words`, P},
		{`echo -rf v | xargs rm`, P},
		{`ls | xargs rm -f`, P},
		{`echo push | xargs git -C repo`, P},
		{`find . -name '*.sh' | xargs -n1 sh`, P},
		{`echo push | xargs env git`, P},
		{`echo push | xargs timeout 5 git`, P},
		{`echo push | xargs -I{} git {}`, P},
		{`echo push | xargs -I % git % origin`, P},
		{`echo push | xargs --replace=@ git @`, P},
		{`echo 'rm -rf v' | xargs -I{} sh -c '{}'`, P},
		{`echo v | xargs rm -rf`, F},
		{`echo v | xargs bash -c 'rm -rf "$1"' _`, F},
		{`echo push | parallel git`, P},
		{`parallel git :::: words`, P},
		{`parallel git ::: push`, F},
		{`parallel rm ::: -rf ::: v`, F},
		{`parallel ::: 'rm -rf v'`, F},
		{`parallel 'git {}' ::: push`, P},
		{`parallel -j2 "rm -rf" ::: v`, F},
		{`echo push | parallel "git '{}'"`, P},
		{`echo push | parallel git {.}`, P},
		{`parallel git {.} ::: push.x`, P},
		{`echo -rf | parallel rm {} v`, P},

		// git aliases, in -c, in the same script, in the environment.
		{`git -c alias.p=push p`, F},
		{`git -c alias.p='push --force' p origin`, F},
		{`git -c Alias.P=push p`, F},
		{`git -c alias.p='!git push' p`, F},
		{`git -c 'alias.p=!rm -rf v' p`, F},
		{`git --config-env=alias.p=CMD p`, P},
		{`git config alias.p push; git p`, F},
		{`git config --global alias.p push && git p origin`, F},
		{`git config set alias.p push; git p`, F},
		{`git config --local alias.p 'push -f'; git p`, F},
		{"git config alias.p push\ngit p", F},
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p`, F},
		{`env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p`, F},
		{`GIT_CONFIG_PARAMETERS="'alias.p'='push'" git p`, P},
		{`GIT_CONFIG_GLOBAL=./cfg git p`, P},
		{`git p origin`, P}, // an alias (or git-p) from a configuration file
		{`git --exec-path=./bin mergetool`, P},
		{`GIT_EXEC_PATH=./bin git filter-branch`, P},

		// git's helper binaries.
		{`/usr/lib/git-core/git-push origin main`, F},
		{`git-push origin`, F},
		{`env git-push`, F},
		{`sudo /usr/libexec/git-core/git-push`, F},

		// A shell reading a file or its standard input.
		{`sh < f`, P},
		{`bash f`, P},
		{`bash -- f`, P},
		{`sh -s -- x < f`, P},
		{`cat f | sh`, P},
		{`zsh ./f`, P},
		{`busybox sh f`, P},
		{`env -i bash f`, P},
		{`BASH_ENV=./f bash -c 'echo hi'`, P},
		{`ENV=./f sh -i -c true`, P},
		{`at now <<< 'rm -rf v'`, F},
		{`echo 'rm -rf v' | at now`, P},
		{`batch < f`, P},

		// Interpreters reading programs from here-strings, here-documents,
		// files, -e/-c.
		{`tclsh <<< 'exec rm -rf v'`, P},
		{"tclsh <<'EOF'\nexec git push\nEOF", P},
		{`python3 <<< 'import os; os.system("rm -rf v")'`, P},
		{"python3 - <<'EOF'\nimport subprocess\nsubprocess.run(['git', 'push'])\nEOF", P},
		{`tclsh < f`, P},
		{`cat f | python3`, P},
		{`python3 - < f`, P},
		{`exec < f; sh`, P},
		{`exec 0<f; perl`, P},
		{`{ sh; } < f`, P},
		{`echo 'exec git push' | tclsh`, P},
		{`perl <<< 'system "rm -rf v"'`, P},
		{"ruby <<< '`rm -rf v`'", P},
		{`node <<< 'require("child_process").execSync("git push")'`, P},
		{`php <<< '<?php system("rm -rf v");'`, P},
		{`lua <<< 'os.execute("rm -rf v")'`, P},
		{`expect -c 'spawn rm -rf v'`, P},
		{`echo | awk '{system("git push")}'`, P},
		{`python3 -c 'import os; os.system("rm -rf v")'`, P},
		{`perl -e 'system("git", "push")'`, P},
		{`ed -s f <<< '!rm -rf v'`, P},
		{`gdb -batch -ex 'shell rm -rf v'`, P},

		// Wrappers that run their arguments.
		{`dbus-run-session -- rm -rf v`, F},
		{`dbus-run-session rm -rf v`, F},
		{`flock /tmp/l rm -rf v`, F},
		{`flock -x /tmp/l -c 'rm -rf v'`, F},
		{`unshare -r rm -rf v`, F},
		{`unshare --mount --fork rm -rf v`, F},
		{`unshare -U --map-root-user -- rm -rf v`, F},
		{`firejail --noprofile rm -rf v`, F},
		{`systemd-run --user --wait rm -rf v`, F},
		{`systemd-run -p Nice=5 -t rm -rf v`, F},
		{`nsenter -t 1 -m rm -rf v`, F},
		{`nsenter --target 1 --mount -- rm -rf v`, F},
		{`script -qc 'rm -rf v' /dev/null`, F},
		{`script -q -c 'git push' /dev/null`, F},
		{`strace -f -o /dev/null rm -rf v`, F},
		{`ltrace -e malloc rm -rf v`, F},
		{`gdb --args rm -rf v`, F},
		{`gdb -batch -ex run --args rm -rf v`, F},
		{`valgrind rm -rf v`, F},
		{`valgrind --tool=memcheck -q rm -rf v`, F},
		{`chronic rm -rf v`, F},
		{`xvfb-run rm -rf v`, F},
		{`xvfb-run -a -s '-screen 0 1x1x8' rm -rf v`, F},
		{`catchsegv rm -rf v`, F},
		{`taskset 1 rm -rf v`, F},
		{`taskset -c 0 rm -rf v`, F},
		{`chrt 0 rm -rf v`, F},
		{`chrt -f 1 rm -rf v`, F},
		{`prlimit --nofile=64 rm -rf v`, F},
		{`prlimit -n64 rm -rf v`, F},
		{`runuser -u root -- rm -rf v`, F},
		{`runuser root -c 'rm -rf v'`, F},
		{`sg users -c 'rm -rf v'`, F},
		{`sg users 'git push'`, F},
		{`setpriv --reuid=1000 rm -rf v`, F},
		{`setpriv --no-new-privs -- git push`, F},
		{`toybox rm -rf v`, F},
		{`faketime '2020-01-01' rm -rf v`, F},
		{`cgexec -g cpu:g rm -rf v`, F},
		{`numactl --cpunodebind=0 rm -rf v`, F},
		{`systemd-inhibit --why=x rm -rf v`, F},
		{`torsocks git push`, F},
		{`proxychains4 -q git push`, F},
		{`ip netns exec n rm -rf v`, F},
		{`setarch x86_64 -R rm -rf v`, F},
		{`linux64 rm -rf v`, F},
		{`nice -n 5 ionice -c3 chrt -i 0 taskset 1 rm -rf v`, F},
		{`sem --fg rm -rf v`, F},
		// Programs not known to warden that receive the forbidden words:
		// what they do with them is not known.
		{`entr -n rm -rf v`, P},
		{`watchexec -- git push`, P},
		{`bwrap --bind / / rm -rf v`, P},
		{`ssh localhost rm -rf v`, P},
		{`some-runner --cmd 'git push origin'`, P},
		{`some-runner "g''it push"`, P},
		{`some-runner 'g\it push'`, P},
		{`some-runner "\$'\\x67it' push"`, P},
		{`npm exec -- rm -rf v`, P},
		{`uv run rm -rf v`, P},
		{`git submodule foreach rm -rf v`, P},
		{`git rebase -x 'git push' main`, P},
		{`start-stop-daemon --start --exec /bin/rm -- -rf v`, P},

		// Programs that run a command line given in an option or in the
		// environment.
		{`man -P 'git push' ls`, P},
		{`sort --compress-program='rm -rf v' f`, P},
		{`sed '1e git push' f`, P},
		{`tar -xf a.tar --to-command='git push'`, P},
		{`GIT_SSH_COMMAND='git push' git fetch`, P},
		{`PAGER='rm -rf v' man ls`, P},
		{`export GIT_EDITOR='git push'; git commit`, P},
		{`LD_PRELOAD=./x.so ls`, P},
		{`PATH=./bin:$PATH ls`, P},
		{`bash --rcfile f -i -c true`, P},
		{`git -c include.path=./cfg p`, P},
		{`git -c include.path=./cfg status`, P},
		{`PS4='$(git push)' bash -x -c true`, P},
		{`coproc git push`, F},
		{`! git push`, F},
		{`git push |& cat`, F},
		{`NODE_OPTIONS='--require ./x.js' node -e 1`, P},
		{`GIT_SSH=./x git fetch`, P},
		{`git -c core.hooksPath=h commit -m x`, P},
		{`git -c diff.external=./x diff`, P},
		{`hub push origin`, F},
		{`yadm push`, F},
		// Inline code that names what it runs only when it runs.
		{`python3 -c 'import os; getattr(os, "sys"+"tem")("git push")'`, P},
		{`python3 -c '__import__("os").system("git push")'`, P},
		{`perl -e '&{"sys"."tem"}("git push")'`, P},
		{`node -e 'require("child_"+"process").execSync("git push")'`, P},
		{`ruby -e 'Kernel.send(:system, "git push")'`, P},
		{"tclsh <<'EOF'\nset p git\neval exec $p push\nEOF", P},

		// Shell aliases.
		{"shopt -s expand_aliases\nalias g=git\ng push", P},
	}
	for _, tt := range tests {
		res := rules.Evaluate(set, tt.script)
		if tt.want == F && res.Decision != F || res.Decision.Strictness() < tt.want.Strictness() {
			t.Errorf("Evaluate(%q) = %s, want %s\n%s", tt.script, res.Decision, tt.want, res.Report())
		}
	}
}

// TestG14_SeeingThroughKeepsRoutineCommandsAllowed checks that, under the
// same policy, commands that run nothing hidden and pass no forbidden
// words on stay allowed.
func TestG14_SeeingThroughKeepsRoutineCommandsAllowed(t *testing.T) {
	set := forbidRmPush(t)
	for _, s := range []string{
		`git status && git log --oneline -5`,
		`git -c alias.st=status st`,
		`git commit -m 'fix the parser'`,
		`git config user.name bot`,
		`git help push`,
		`git-log --oneline`,
		`find . -name '*.go' | xargs wc -l`,
		`find . -type f | xargs grep -n TODO`,
		`ls | xargs -I{} echo {}`,
		`parallel gzip ::: a b`,
		`seq 10 | parallel -j4 wget https://example.com/page{}.html`,
		`find . -name '*.gz' | parallel gunzip {}`,
		`ls | parallel mv {} {.}`,
		`ls | parallel -0 sed "'/./d'" '{}'`,
		`echo git push origin`,
		`grep -rn 'git push' docs`,
		`which git rm`,
		`python3 -c 'print(1+1)'`,
		`python3 <<< 'print(1+1)'`,
		`python3 -m json.tool data.json`,
		`python3 --version`,
		`node -e 'console.log(process.version)'`,
		`awk '{print $1}' f`,
		`python3 -c 'import json,sys; print(json.load(sys.stdin)["x"])'`,
		`python3 -c 'import os; print(os.path.join("a", "."))'`,
		`sed -n '1,5p' f`,
		`sort -u f | uniq -c`,
		`man git`,
		`GIT_PAGER=cat git log`,
		`EDITOR=true git commit`,
		`git -C repo status`,
		`git lfs pull`,
		`PATH=$PATH:/usr/local/go/bin go build ./...`,
		`PATH=/usr/local/go/bin:$PATH go version`,
		`man bash`,
		`yum info zsh`,
		`rg -l 'import requests' --type py`,
		`find . -name '*.go' -print0 | xargs -0 git add`,
		`git branch --merged main | grep -v main | xargs -n1 git branch -d`,
		`find . -name '*.php' -print0 | xargs -0 -n1 php -l`,
		// A script file given to an interpreter is judged as a program
		// run by its path (./run.sh, make): by its words.
		`python3 manage.py migrate`,
		`tclsh build.tcl`,
		`sh -c 'ls && pwd'`,
		"bash <<'EOF'\ngit status\nEOF",
		`dbus-run-session -- ls`,
		`timeout 60 go test ./...`,
		`tclsh <<< 'puts hello'`,
		`make build && ./run.sh --flag`,
		`go test ./... | tee out.txt`,
	} {
		if res := rules.Evaluate(set, s); res.Decision != rules.Allow {
			t.Errorf("Evaluate(%q) = %s, want allow\n%s", s, res.Decision, res.Report())
		}
	}
}

// FuzzG14_SeeThrough checks, for any command line s, that running s
// through an indirection never loosens its decision below prompt: what is
// forbidden or prompts when written plainly is at least prompt when it is
// wrapped, passed to a shell, given to xargs, made a git alias or handed
// to a runner.
func FuzzG14_SeeThrough(f *testing.F) {
	for _, seed := range []string{
		"rm -rf v", "git push", "git -C r push origin", "rm -fr v", "x; rm -rf v", "git push && ls",
		"echo hi", "rm -r -f v", "/bin/rm -rf v", "sudo git push", "X=1 rm -rf v", "git $X", "ls | xargs rm",
	} {
		f.Add(seed)
	}
	set := load(f, "f.rules", `
prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")
prefix_rule(pattern = ["git", "push"], decision = "forbidden")
`)
	q := shell.Quote
	wraps := []func(string) string{
		func(s string) string { return "dbus-run-session -- " + s },
		func(s string) string { return "flock l " + s },
		func(s string) string { return "nsenter -t 1 -m " + s },
		func(s string) string { return "unshare -r " + s },
		func(s string) string { return "valgrind -q " + s },
		func(s string) string { return "sh -c " + q(s) },
		func(s string) string { return "printf %s " + q(s) + " | xargs -0 sh -c" },
		func(s string) string { return "echo " + q(s) + " | xargs -I{} sh -c '{}'" },
		func(s string) string { return "git -c " + q("alias.x=!"+s) + " x" },
		func(s string) string { return "parallel ::: " + q(s) },
		func(s string) string { return "sg users " + q(s) },
		func(s string) string { return "script -qc " + q(s) + " /dev/null" },
		func(s string) string { return "sh < f; " + s },
		func(s string) string { return "tclsh <<< " + q("exec "+s) },
		func(s string) string { return "some-runner " + s },
		func(s string) string { return "some-runner --cmd=" + q(s) },
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 200 {
			return
		}
		// What the rules say of s, dangers aside: at least prompt when
		// a prompt or forbidden rule matches or may match.
		res := rules.Evaluate(set, s)
		d0, floor := res.Decision, rules.Allow
		for _, m := range res.Matches {
			if m.Rule.Decision.Strictness() > rules.Allow.Strictness() {
				floor = rules.Prompt
			}
		}
		for _, w := range wraps {
			ws := w(s)
			if d := rules.Evaluate(set, ws).Decision; d.Strictness() < floor.Strictness() {
				t.Fatalf("Evaluate(%q) = %s, but %q is %s", ws, d, s, d0)
			}
		}
	})
}

// TestG14_AllowRuleDoesNotCoverWhatRunsUnseen checks that an allow rule on
// a program does not allow what the program runs unseen when a forbidden
// rule could match it: strictest wins.
func TestG14_AllowRuleDoesNotCoverWhatRunsUnseen(t *testing.T) {
	set := load(t, "a.rules", `
prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")
prefix_rule(pattern = ["python3"])
prefix_rule(pattern = ["bash"])
prefix_rule(pattern = ["git", "commit"])
prefix_rule(pattern = ["ssh"])
`)
	for _, s := range []string{
		`python3 -c 'import os; os.system("rm -rf v")'`,
		`python3 - < script.py`,
		`bash f`,
		`git -c core.hooksPath=h commit -m x`,
		`ssh localhost rm -rf v`,
	} {
		if res := rules.Evaluate(set, s); res.Decision.Strictness() < rules.Prompt.Strictness() {
			t.Errorf("Evaluate(%q) = %s, want at least prompt\n%s", s, res.Decision, res.Report())
		}
	}
	for _, s := range []string{`python3 -c 'print(1)'`, `bash -c 'ls'`, `git commit -m x`, `ssh host uptime`} {
		if res := rules.Evaluate(set, s); res.Decision != rules.Allow {
			t.Errorf("Evaluate(%q) = %s, want allow\n%s", s, res.Decision, res.Report())
		}
	}
}
