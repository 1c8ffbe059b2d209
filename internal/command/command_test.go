package command

import (
	"slices"
	"strings"
	"testing"
)

func TestG14_ParseReadsOptionsByMeaning(t *testing.T) {
	tests := []struct {
		argv     string
		path     string
		opts     string // name=value or name, space-separated, sorted
		operands string
	}{
		{"git -C repo -c user.name=x push -f origin main", "git push", "config=user.name=x dir=repo force", "origin main"},
		{"git --git-dir=.git --no-pager push --force-with-lease", "git push", "force-with-lease git-dir=.git no-pager", ""},
		{"rm -rf a", "rm", "force recursive", "a"},
		{"rm -r a -f", "rm", "force recursive", "a"},
		{"rm --recursive --force -- -x", "rm", "force recursive", "-x"},
		{"git branch -D topic", "git branch", "delete force", "topic"},
		{"curl -XPOST -dx=1 https://h", "curl", "data=x=1 request=POST", "https://h"},
		{"docker --context c run --rm -v /:/h alpine sh -c id", "docker run", "context=c rm volume=/:/h", "alpine sh -c id"},
		{"npm i -D x", "npm install", "save-dev", "x"},
		{"kubectl delete -n prod pod x", "kubectl delete", "namespace=prod", "pod x"},
		{"sed -i.bak s/a/b/ f", "sed", "in-place=.bak", "s/a/b/ f"},
		{"chmod -w f", "chmod", "-w", "f"},
	}
	for _, tt := range tests {
		p, ok := Parse(strings.Fields(tt.argv))
		if !ok {
			t.Fatalf("Parse(%q): no grammar", tt.argv)
		}
		var opts []string
		for _, o := range p.Options {
			if o.HasValue {
				opts = append(opts, o.Name+"="+o.Value)
			} else {
				opts = append(opts, o.Name)
			}
		}
		slices.Sort(opts)
		if got := strings.Join(p.Path, " "); got != tt.path {
			t.Errorf("Parse(%q).Path = %q, want %q", tt.argv, got, tt.path)
		}
		if got := strings.Join(opts, " "); got != tt.opts {
			t.Errorf("Parse(%q) options = %q, want %q", tt.argv, got, tt.opts)
		}
		if got := strings.Join(p.Operands, " "); got != tt.operands {
			t.Errorf("Parse(%q).Operands = %q, want %q", tt.argv, got, tt.operands)
		}
	}
	if _, ok := Parse([]string{"frobnicate", "-x"}); ok {
		t.Error("a program with no grammar parsed")
	}
	if i := Subcommand(strings.Fields("git -C r -c a=b --no-pager log")); i != 6 {
		t.Errorf("Subcommand = %d", i)
	}
}

func TestG14_InlineCodeAndEffects(t *testing.T) {
	tests := []struct {
		argv  []string
		lang  string
		known bool
		exec  bool
		ok    bool
	}{
		{[]string{"python3", "-c", "import os; os.system('id')"}, "python", true, true, true},
		{[]string{"python3", "-c", "print(1)"}, "python", true, false, true},
		{[]string{"perl", "-ne", "print if /x/"}, "perl", true, false, true},
		{[]string{"awk", "BEGIN{system(\"id\")}"}, "awk", true, true, true},
		{[]string{"awk", "-F:", "{print $1}"}, "awk", true, false, true},
		{[]string{"awk", "-f", "p.awk"}, "awk", false, false, true},
		{[]string{"vim", "-c", "!id"}, "vim", true, true, true},
		{[]string{"vim", "+42", "f"}, "", false, false, false},
		{[]string{"node", "-e", "require('child_process').execSync('id')"}, "node", true, true, true},
		{[]string{"python3", "f.py"}, "", false, false, false},
	}
	for _, tt := range tests {
		in, ok := InlineCode(tt.argv)
		if ok != tt.ok || ok && (in.Lang != tt.lang || in.Known != tt.known || CodeEffects(in).Exec != tt.exec) {
			t.Errorf("InlineCode(%q) = %+v, %v; effects %+v", tt.argv, in, ok, CodeEffects(in))
		}
	}
}

func TestG14_ModesAndFind(t *testing.T) {
	for mode, want := range map[string]bool{"777": true, "0775": false, "o+w": true, "a+rw": true, "+w": true, "u+w": false, "g+w": false, "755": false} {
		if ModeWorldWritable(mode) != want {
			t.Errorf("ModeWorldWritable(%q) != %v", mode, want)
		}
	}
	if !ModeSetuid("4755") || ModeSetuid("755") || !ModeSetuid("u+s") {
		t.Error("ModeSetuid")
	}
	for _, c := range []struct {
		mode             string
		uid, gid, opensR bool
	}{
		{"4755", true, false, true}, {"2750", false, true, true}, {"6700", true, true, false},
		{"u+s", true, false, false}, {"g+s", false, true, false}, {"+s", true, false, false},
		{"600", false, false, false}, {"644", false, false, true}, {"o+r", false, false, true}, {"u+r", false, false, false},
	} {
		if ModeSetUID(c.mode) != c.uid || ModeSetGID(c.mode) != c.gid || ModeOpensRead(c.mode) != c.opensR {
			t.Errorf("%q: setuid %v, setgid %v, opens read %v; want %v %v %v", c.mode,
				ModeSetUID(c.mode), ModeSetGID(c.mode), ModeOpensRead(c.mode), c.uid, c.gid, c.opensR)
		}
	}
	if got := FindRoots(strings.Fields("find -L a b -name x")); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("FindRoots = %q", got)
	}
	if got := FindRoots([]string{"find"}); !slices.Equal(got, []string{"."}) {
		t.Errorf("FindRoots = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"git -C r push -f", "rm -rf -- x", "curl -XPOST --data=@f u", "docker run -v /:/h i sh", "npm i -D x", "-", "difftool -yx ./s.sh", "grep -nO./s.sh foo", "bisect run ./s.sh", "-P ./s.sh git", "diff --output=f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv := strings.Fields(s)
		for _, prog := range []string{"git", "rm", "curl", "docker", "npm", "kubectl", "make", "ssh", "man"} {
			a := append([]string{prog}, argv...)
			p, ok := Parse(a)
			if !ok || len(p.Path) == 0 || p.Path[0] != prog {
				t.Fatalf("Parse(%q) = %+v, %v", a, p, ok)
			}
			if len(p.Operands) > len(argv) {
				t.Fatalf("Parse(%q): more operands than words", a)
			}
			if i := Subcommand(a); i < 1 || i > len(a) {
				t.Fatalf("Subcommand(%q) = %d", a, i)
			}
			InlineCode(a)
			RunsOther(a)
			GitConfigs(a)
		}
	})
}

// TestG15_RunsOtherThroughGitAndMan checks that the programs git and man
// run from their words are seen, in every spelling of the option.
func TestG15_RunsOtherThroughGitAndMan(t *testing.T) {
	for _, c := range []struct {
		argv string
		runs bool
	}{
		{"git difftool -y -x ./s.sh", true},
		{"git difftool -yx./s.sh", true},
		{"git difftool --extcmd ./s.sh", true},
		{"git difftool --extc=./s.sh", true},
		{"git -C /tmp/r difftool -y HEAD~1", false},
		{"git bisect run ./s.sh", true},
		{"git bisect start", false},
		{"git grep -O./s.sh foo", true},
		{"git grep -nO./s.sh foo", true},
		{"git grep --open-files-in-pager=./s.sh foo", true},
		{"git grep -n -e foo", false},
		{"git rebase -x ./s.sh main", true},
		{"git rebase --exec=./s.sh main", true},
		{"git rebase -i main", false},
		{"git submodule foreach ./s.sh", true},
		{"git fetch --upload-pack=./s.sh origin", true},
		{"git clone -u ./s.sh /tmp/r x", true},
		{"git push --receive-pack=./s.sh origin", true},
		{"git push --exec=./s.sh origin", true},
		{"git archive --remote=/tmp/r --exec=./s.sh HEAD", true},
		{"git ls-remote --upload-pack=./s.sh origin", true},
		{"git fetch origin", false},
		{"man -P ./s.sh git", true},
		{"man -aP./s.sh git", true},
		{"man --pager=./s.sh git", true},
		{"man -H./s.sh git", true},
		{"man --html=./s.sh git", true},
		{"man -k printf", false},
		{"man 3 printf", false},
	} {
		if _, got := RunsOther(strings.Fields(c.argv)); got != c.runs {
			t.Errorf("RunsOther(%q) = %v, want %v", c.argv, got, c.runs)
		}
	}
}

// TestG14_InlineFilterLetsEveryInterpreterThrough checks that the cheap
// filter before inlineCode's comparisons passes every program inlineCode
// reads, and that those programs' inline code is still found.
func TestG14_InlineFilterLetsEveryInterpreterThrough(t *testing.T) {
	for _, n := range append(inlineNames, "python", "python3.12", "pypy3", "py", "lua", "lua5.4", "/usr/bin/perl") {
		if !mayRunInline(base(n)) {
			t.Errorf("mayRunInline(%q) = false", n)
		}
	}
	for _, argv := range [][]string{{"perl", "-e", "print 1"}, {"node", "-e", "1"}, {"gawk", "{print}"}, {"vim", "-c", ":!ls"},
		{"python3.12", "-c", "1"}, {"lua5.4", "-e", "x=1"}, {"Rscript", "-e", "1"}, {"osascript", "-e", "1"}} {
		if _, ok := InlineCode(argv); !ok {
			t.Errorf("InlineCode(%q) found no code", argv)
		}
	}
	for _, n := range []string{"cd", "git", "go", "head", "echo", "ls"} {
		if mayRunInline(n) {
			t.Logf("%s passes the filter (harmless, only slower)", n)
		}
	}
}
