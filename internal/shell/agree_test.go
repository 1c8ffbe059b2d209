package shell_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/shell"
)

// agreeCorpus are scripts where a parser can read a script differently
// from bash: control characters, encodings, quoting, here-documents,
// $'…', arithmetic, substitutions, aliases, brace expansion, keywords.
// Each is run under bash with logging stand-ins and compared with Parse
// (TestG16_AgreesWithBash), and seeds FuzzAgreesWithBash.
var agreeCorpus = []string{
	// Control characters and encodings.
	"A=1\rls rm -rf victim",
	"ls\r",
	"ls a\rb c",
	"ls a\\\r\nrm b",
	"ls 'a\rb' \"c\rd\"",
	"ls\va b",
	"ls\fa b",
	"ls a\vb\fc",
	"ls \x1b[2Jx",
	"ls a\x00b c",
	"ls \xff\xfe",
	"ls caf\xc3\xa9",
	"ls a\u00a0b",
	"ls\u00a0rm -rf x",
	"ls a\u2003b\u3000c",
	"ls \x7f\x01\x02",
	"ls a\tb\t\tc",
	// Quoting.
	`ls 'a b' "c d" e\ f`,
	`ls "a\"b" 'c'\''d' "e\\f" "g\$h" "i\j"`,
	`ls a"b"'c'd \'x\"`,
	`ls "" '' x`,
	`ls \a\b\c \\ \"`,
	`ls "a
b" 'c
d'`,
	"ls a\\\nb",
	"ls a \\\nrm -rf b",
	"ls a\\\n\\\nb c",
	"ls a\\",
	"ls 'a\\\nb'",
	// Here-documents and here-strings.
	"cat <<EOF\n$HOME x\nEOF\nls y",
	"cat <<'EOF'\n$(rm a)\nEOF\nls y",
	"cat <<\"EOF\"\nx\nEOF\nls y",
	"cat <<-EOF\n\tx\n\tEOF\nls y",
	"cat <<-EOF\n\tx\nEOF\nrm z\n\tEOF\nls y",
	"cat <<EOF\nx\n EOF\nEOF\nls y",
	"cat <<EOF; ls y\nx\nEOF\nrm z",
	"cat <<E\\OF\nx\nEOF\nls y",
	"cat <<EOF\n$(rm a)\nEOF",
	"cat <<EOF\nx\\\nEOF\nEOF\nls y",
	"cat <<EOF\nEOF\r\nrm z\nEOF\nls y",
	"cat <<< 'a b'; ls x",
	"cat <<< $(ls q); cat <<<x",
	"cat << EOF\nx\nEOF",
	"cat <<EOF1 <<EOF2\na\nEOF1\nb\nEOF2\nls c",
	// $'…'.
	`ls $'a\tb' $'\x41' $'\101' $'\u00e9' $'\U0001F600'`,
	`ls $'a\cAb' $'\c?' $'\e' $'\'' $'\"' $'\\'`,
	`ls $'a\0b' $'\x' $'\777' $'\u' $'\xZ'`,
	"$'\\x6c\\x73' a",
	"$'ls' a",
	`ls $"a b"`,
	// Arithmetic.
	"echo $((1+2)); ls $((3*4))",
	"(( x = 1 )) && ls a",
	"((ls); (rm x))",
	"( (ls a) )",
	"ls $(( $(ls q) + 1 ))",
	"for ((i=0; i<2; i++)); do ls $i; done",
	"x=$((2#101)); ls $x",
	"let x=1; ls a",
	"x='a[$(rm victim)]'; ls $((x))",
	"x='a[$(rm victim)]'; (( x )) ; ls a",
	"x='a[$(rm victim)]'; [[ $x -eq 0 ]]; ls a",
	"x='a[`rm victim`]'; let y=x",
	"x='a[$(rm victim)]'; for ((i=x; i<1; i++)); do :; done",
	"x='a[$(rm victim)]'; s=abc; ls ${s:x}",
	"x='a[$(rm victim)]'; b=(1 2); ls ${b[x]}",
	"x='a[$(rm victim)]'; declare -i z; z=$x",
	"x='a[$(rm victim)]'; ls $(( $x ))",
	"ls $(( $(echo 'a[$(rm victim)]') ))",
	"f() { ls $(( $1 )); }; f 'a[$(rm victim)]'",
	"read x <<< 'a[$(rm victim)]'; ls $((x))",
	`x=1; eval "x='a[\$(rm victim)]'"; ls $((x))`,
	"declare -n r=x; x='a[$(rm victim)]'; ls $((r))",
	"[[ 'a[$(rm victim)]' -eq 0 ]]; ls a",
	"i=0; while (( i < 2 )); do ls $i; i=$((i+1)); done",
	"n=3; ls $((n*2)) ${#n}",
	"declare -A m; m[k]=1; ls ${m[k]}",
	// Substitutions.
	"ls $(cat f) `rm g`",
	"diff <(ls a) >(cat -n)",
	"ls <(ls b)",
	"x=$(ls a) y=`ls b` ls c",
	"ls \"$(ls a)\" \"`ls b`\"",
	"echo ${x:-$(ls d)} ${y:=`rm e`}",
	"ls $( case x in x) rm a;; esac )",
	// Aliases.
	"alias ls='rm -rf'; ls victim",
	"alias ls='rm -rf'\nls victim",
	"shopt -s expand_aliases\nalias ls='rm -rf'\nls victim",
	"shopt -s expand_aliases\nalias r='rm -'\nr rf victim",
	"set -o posix\nalias r='rm -'\nr rf victim",
	"POSIXLY_CORRECT=1\nalias r='rm -'\nr rf victim",
	"shopt -s expand_aliases\nBASH_ALIASES[r]='rm -'\nr rf victim",
	"shopt -s expand_aliases; alias r='rm -'; r rf victim",
	"alias ll='ls -l'",
	// Brace expansion.
	"ls {a,b}",
	"{ls,-l} x",
	"{rm,\"-rf\",victim}",
	"{rm,-rf} victim",
	"ls {a..c} {1..3..2} x{,y}",
	"ls '{a,b}' \\{a,b\\} {a\\,b}",
	"ls {a,b",
	"ls {a,'b'}c",
	"ls {}",
	"ls {a}",
	"ls ${x}{a,b}",
	"ls {$x,b}",
	"ls a{b,c{d,e}}",
	// Tests, case, functions, globs.
	"[[ -n a ]] && ls a",
	"[[ $(ls q) == x ]] || rm b",
	"[ -n a ] && ls a",
	"case a in a) ls x;; b) rm y;; esac",
	"case a in a) ls x;& b) rm y;; esac",
	"case a in a) ls x;;& a) rm y;; esac",
	"case $(ls q) in *) ls r;; esac",
	"f() { rm a; }; ls b",
	"function f { rm a; }; f",
	"ls() { rm -rf \"$@\"; }; ls victim",
	"shopt -s extglob\nls !(a|b) @(c)",
	"ls *.go ?x [ab]",
	"ls @(a|b)",
	"ls !(x)",
	// Comments.
	"ls a # rm b",
	"ls a#b",
	"ls a #rm b\nls c",
	"# ls\nls d",
	"ls a;#x\nrm b",
	"ls '#' \"#\" \\#",
	// Pipelines and keywords.
	"ls a | cat -n |& cat",
	"ls a |& cat",
	"! ls a",
	"time ls a",
	"time -p ls a",
	"coproc ls a",
	"coproc c { ls a; }",
	"ls a & rm b; wait",
	"{ ls a; } > f; (rm b) 2>&1",
	"if ls a; then rm b; elif cat c; then x; else y; fi",
	"while false; do rm a; done; until true; do rm b; done",
	"for f in a b; do ls $f; done",
	"select x in a; do ls; done </dev/null",
	// Assignments and arrays.
	"A=1 ls a",
	"A+=x ls a",
	"a=(ls rm); ${a[1]} x",
	"a=(x y); a+=(z); ls \"${a[@]}\"",
	"declare -a a=(ls); ls ${a[0]}",
	"A=1 B=2",
	"export A=$(ls q)",
	"local x 2>/dev/null; ls y",
	"x=ls; $x a",
	"A=1\\\nls b",
	// Command resolution and options that change how later lines read.
	"hash -p rm ls; ls -rf victim",
	"BASH_CMDS[ls]=rm; ls -rf victim",
	"set -k; rm A=1 -rf victim",
	"shopt -u interactive_comments\nls # ; rm -rf victim",
	"set +o interactive-comments\nls # ; rm -rf victim",
	"shopt -s extglob\nls @(a|b)",
	"!(rm x)",
	"ls; !(rm x)",
	"shopt -s extglob\n!(rm x)",
	"ls a\n@(rm x)",
	"[[ a == !(rm x) ]] && ls",
	"case a in !(rm x)) ls;; esac",
	"exec -a rm ls x",
	"coproc rm -rf victim",
	"coproc x rm a",
	"coproc x { rm a; }",
	"{ls;}",
	"ls ! rm",
	"case x in (x) rm a;; esac",
	"function ls() { rm a; }; ls",
	"x=$(cat <<EOF\n)\nEOF\n); ls y",
	"ls `echo \\`ls a\\``",
	"ls # a\\\nrm b",
	"ls A=1 a=~",
	"ls a=~ b=~/x c:~ --o=~ x=a:~/b",
	"a=([0]=x [1]=y); ls",
	"x=$(</dev/zero); ls",
	"test -v 'a[$(rm victim)]'",
	"[[ -v 'a[$(rm victim)]' ]]",
	"printf -v 'a[$(rm victim)]' x",
	"read 'a[$(rm victim)]' <<< x",
	"declare 'a[$(rm victim)]=1'",
	"x='$(rm victim)'; ls ${x@P}",
	"PS4='$(rm victim)'; set -x; ls",
	"mapfile -C 'rm victim #' -c 1 <<< x",
	"declare -n r='a[$(rm victim)]'; r=1",
	"export 'a[$(rm victim)]'",
	"x='a[$(rm victim)]'; ls ${!x}",
	"getopts a 'a[$(rm victim)]' -a",
	"SHELLOPTS=keyword /bin/bash -c 'rm A=1 -rf victim'",
	"env BASH_ENV=f /bin/bash -c ls",
	"ls $((ls); (rm x))",
	"ls $((ls) ; (rm x))",
	"echo $( (ls); (rm x) )",
	"cat <<'EOF'\na\\\nEOF\nrm b\nEOF\nls c",
	"cat <<\"E\"OF\nrm a\nEOF\nls b",
	"cat <<$X\nrm a\n$X\nls b",
	"cat <<EOF\na\\\nEOF\nrm b\nEOF\nls c",
	"cat <<'EOF'\nx\nEOF\\\nrm b\nEOF\nls c",
	"cat <<EOF\n`rm a`\nEOF",
	"cat <<-'EOF'\n\t$(rm a)\n\tEOF\nls b",
	"ls `echo \"$(ls a)\"`",
	"a[$(ls q)]=1; ls",
	"! ! ls a",
	"time ! ls a",
	"function f() ( rm a ); ls",
	"ls ${x#\\#} ${x/a/$(ls b)}",
	"let \"x = $(ls q)\"; ls",
	// Wrappers and embedded scripts.
	"sudo rm -rf victim",
	"env A=1 rm x",
	"bash -c 'ls a; rm b'",
	"/bin/bash -c 'ls a; rm b'",
	"eval 'ls a; rm b'",
	"eval ls a",
	"command ls a",
	"builtin echo a; ls b",
	"exec ls a",
	"trap 'rm x' EXIT; ls a",
	"xargs rm < /dev/null",
	"find . -exec rm {} \\;",
	// Redirections.
	"ls > f; cat < f; ls >> f 2>&1",
	"ls >&2 2>/dev/null",
	"ls <> f",
	"ls &> f",
	"ls 3>f a",
	"2>f ls a",
	"ls a>f",
	"ls a\\>f",
}

// TestG16_AgreesWithBash runs every script of the corpus under the real
// bash, with logging stand-ins for the programs, and checks that each
// command bash ran is one Parse found, unless Parse says the script is
// opaque.
func TestG16_AgreesWithBash(t *testing.T) {
	r := needBash(t)
	ran := 0
	for _, src := range agreeCorpus {
		ran += agreeWithBash(t, r, src)
	}
	t.Logf("bash ran %d stand-ins for %d scripts", ran, len(agreeCorpus))
	// The stand-ins did run: an empty log would agree with anything.
	if ran < len(agreeCorpus)/2 {
		t.Errorf("bash ran only %d stand-ins for %d scripts", ran, len(agreeCorpus))
	}
}

// FuzzAgreesWithBash is TestG16_AgreesWithBash on fuzzed scripts.
func FuzzAgreesWithBash(f *testing.F) {
	for _, src := range agreeCorpus {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		r := needBash(t)
		if fuzzing() && !r.owned {
			t.Skip("fuzzing runs mutated scripts under bash only as root (as a uid that owns nothing)")
		}
		if len(src) > 4096 {
			t.Skip("longer than 4096 bytes")
		}
		agreeWithBash(t, r, src)
	})
}

// agreeWithBash checks one script and returns how many commands bash ran
// (0 when it did not run the script).
func agreeWithBash(t *testing.T, r *bashRunner, src string) int {
	t.Helper()
	s, err := shell.Parse(src)
	if err != nil {
		return 0 // refused outright: fails closed
	}
	if strings.IndexByte(src, 0) >= 0 {
		// bash -c cannot even be given the script: what it would read
		// from a file differs.
		if !s.Opaque {
			t.Errorf("Parse(%q) with a NUL byte is not opaque", src)
		}
		return 0
	}
	if s.Opaque {
		return 0
	}
	got, err := r.run(context.Background(), src)
	if err != nil && !errors.Is(err, errTimeout) {
		t.Fatalf("bash -c %q: %v", src, err)
	}
	args := make([][]string, len(s.Commands))
	literal := make([][]bool, len(s.Commands))
	for i, c := range s.Commands {
		args[i], literal[i] = c.Args, c.Literal
	}
	for _, argv := range got.argvs {
		if !explained(argv, args, literal) {
			t.Errorf("bash -c %q ran %s, which Parse did not find (it found %s; not opaque)\nbash said: %s",
				src, quoteArgv(argv), quoteArgvs(args), got.stderr)
		}
	}
	return len(got.argvs)
}

func quoteArgvs(args [][]string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quoteArgv(a)
	}
	return strings.Join(q, ", ")
}

// TestG16_Opaque: scripts bash reads differently from the parser, or whose
// data bash runs as code, are opaque, with a reason.
func TestG16_Opaque(t *testing.T) {
	tests := []struct{ src, reason string }{
		{"A=1\rls rm -rf victim", "the script holds a carriage return"},
		{"ls a\\\r\nrm -rf victim", "the script holds a carriage return"},
		{"ls a\x00b", "the script holds a NUL byte"},
		{"bash -c 'ls a\rrm b'", "the script holds a carriage return"},
		{"eval 'A=1\rls rm -rf victim'", "the script holds a carriage return"},
		{"shopt -s expand_aliases\nBASH_ALIASES[r]='rm -'\nr rf victim", "the script sets BASH_ALIASES"},
		{"alias \"$X\"; ls", "alias with a non-literal definition"},
		{"alias r='sudo '; r rm x", "alias r ends with a blank"},
		{"x='a[$(rm victim)]'; ls $((x))", "arithmetic evaluates x"},
		{"x='a[$(rm victim)]'; (( x ))", "arithmetic evaluates x"},
		{"x='a[$(rm victim)]'; [[ $x -eq 0 ]]", "arithmetic evaluates x"},
		{"x='a[$(rm victim)]'; s=abc; ls ${s:x}", "arithmetic evaluates x"},
		{"x='a[$(rm victim)]'; b=(1 2); ls ${b[x]}", "arithmetic evaluates x"},
		{"x=1; x+=y; ls $((x))", "arithmetic evaluates x"},
		{"read x; ls $((x))", "arithmetic evaluates x"},
		{"x=1; 'read' x; ls $((x))", "arithmetic evaluates x"},
		{"x=1; \"printf\" -v x %s y; ls $((x))", "arithmetic evaluates x"},
		{"f() { ls $(( $1 )); }; f 'a[$(rm victim)]'", "arithmetic evaluates 1"},
		{"ls $(( $(cat f) ))", "arithmetic evaluates text that could hold commands"},
		{"ls $(( $(date +%s%Z) ))", "arithmetic evaluates text that could hold commands"},
		{"ls $(( $(wc -l f) ))", "arithmetic evaluates text that could hold commands"},
		{"ls $(( $(wc -l; cat f) ))", "arithmetic evaluates text that could hold commands"},
		{"[[ 'a[$(rm victim)]' -eq 0 ]]", "arithmetic evaluates text that could hold commands"},
		{"declare -n r=x; ls $((r))", "arithmetic reads variables, and the script sets a variable whose name"},
		{"declare -i z; z=$x", "a variable with the integer attribute"},
		{"ls $(( ${!p} ))", "arithmetic evaluates text that could hold commands"},
		{"ls # \\\nrm -rf victim", "a comment ends with a backslash"},
		{"test -v 'a[$(rm victim)]'", "test takes a variable name whose subscript"},
		{"[ -v \"a[\\$(rm victim)]\" ]", "[ takes a variable name whose subscript"},
		{"[[ -v 'a[$(rm victim)]' ]]", "[[ -v takes a variable name whose subscript"},
		{"[[ -v $x ]]", "[[ -v takes a variable name not known"},
		{"printf -v 'a[$(rm victim)]' x", "printf takes a variable name whose subscript"},
		{"printf -v \"$n\" x", "printf takes a variable name not known"},
		{"read -r 'a[$(rm victim)]' <<< x", "read takes a variable name whose subscript"},
		{"read -ra \"$n\" <<< x", "read takes a variable name not known"},
		{"declare 'a[$(rm victim)]=1'", "declare takes a variable name whose subscript"},
		{"export \"$n\"", "export of a name not known"},
		{"declare -n r='a[$(rm victim)]'; r=1", "declare -n takes a variable name whose subscript"},
		{"declare -n r=$x; r=1", "declare -n takes a variable name not known"},
		{"getopts a 'a[$(rm victim)]' -a", "getopts takes a variable name whose subscript"},
		{"mapfile -t -C 'rm victim #' -c 1 <<< x", "mapfile -C runs a callback"},
		{"x='$(rm victim)'; ls ${x@P}", "prompt expansion"},
		{"x='a[$(rm victim)]'; ls ${!x}", "indirect expansion"},
		{"PS4='$(rm victim)'; set -x; ls", "the script names PS4"},
		{"SHELLOPTS=keyword bash -c 'rm A=1 -rf victim'", "the script names SHELLOPTS"},
		{"env BASH_ENV=f bash -c ls", "the script names BASH_ENV"},
		{"hash -p /bin/rm ls; ls -rf victim", "hash -p makes a command name run another program"},
		{"BASH_CMDS[ls]=/bin/rm; ls -rf victim", "the script sets BASH_CMDS"},
		{"enable -f ./x.so ls; ls", "enable -f loads a builtin"},
		{"set -k; rm A=1 -rf victim", "set -k moves"},
		{"set -euk; rm A=1 -rf victim", "set -k moves"},
		{"set -o keyword; rm A=1 -rf victim", "set -o keyword changes"},
		{"set -eo posix", "set -eo posix changes"},
		{"shopt -u interactive_comments\nls # ; rm -rf victim", "shopt interactive_comments changes"},
		{"set +o interactive-comments\nls # ; rm -rf victim", "set +o interactive-comments changes"},
		{"shopt -s $o", "shopt with words that are not literal"},
		{"shopt -s compat31; ls", "shopt compat31 changes"},
		{"shopt -so posix; ls", "shopt posix changes"},
		{"set -e $o", "set with words that are not literal"},
		{"set -o $o", "set with words that are not literal"},
		{"set `cal`", "set with words that are not literal"},
		{"set \"$x\" a", "set with words that are not literal"},
	}
	for _, tt := range tests {
		s, err := shell.Parse(tt.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		wantOpaque(t, tt.src, s, tt.reason)
	}
}

// TestG16_AliasesExpanded: a command whose program is an alias the script
// defines is followed by the commands it runs with the alias expanded
// (bash expands aliases once expand_aliases is on), even when the alias
// is only part of a command.
func TestG16_AliasesExpanded(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"shopt -s expand_aliases\nalias r=rm\nr -rf victim",
			[]string{"shopt -s expand_aliases", "alias r=rm", "rm", "r -rf victim", "rm -rf victim"}},
		{"alias r='rm -'; r rf 'a b'", []string{"alias r=rm -", "rm -", "r rf a b", "rm - rf a b"}},
		{"eval \"alias r='rm -'\"\nr rf victim", []string{"eval alias r='rm -'", "alias r=rm -", "rm -", "r rf victim", "rm - rf victim"}},
		{"alias a=b b='rm -rf'; a x", []string{"alias a=b b=rm -rf", "b", "rm -rf", "rm -rf", "a x", "b x", "rm -rf x"}},
		{"alias a=a; a x", []string{"alias a=a", "a", "a x", "a x"}},
		{"alias ll='ls -la'; ll src/ | x", []string{"alias ll=ls -la", "ls -la", "ll src/", "ls -la src/", "x"}},
	}
	for _, tt := range tests {
		s := mustParse(t, tt.src)
		if got := argvs(s); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q) = %q, want %q", tt.src, got, tt.want)
		}
		if s.Opaque {
			t.Errorf("Parse(%q) opaque: %q", tt.src, s.Reasons)
		}
	}
	s := mustParse(t, "alias ll='ls -la'; ll src/ | x")
	if c := s.Commands[3]; c.Pipeline != 1 || c.Stage != 0 || !slices.Equal(c.Wrappers, []string{"alias ll"}) {
		t.Errorf("expansion %+v, want pipeline 1 stage 0 through alias ll", c)
	}
}

// TestG16_BackslashEndingTheScript: bash keeps a backslash that ends the
// script as a character; so does Parse.
func TestG16_BackslashEndingTheScript(t *testing.T) {
	for src, want := range map[string][]string{
		"ls a\\":                 {"ls a\\"},
		"ls a \\":                {"ls a \\"},
		"find . -exec ls {} ;\\": {"find . -exec ls {}", "ls {}", "\\"},
		"ls a\\\\":               {"ls a\\"},
		"bash -c 'ls \\'":        {"bash -c ls \\", "ls \\"},
	} {
		s := mustParse(t, src)
		if got := argvs(s); !slices.Equal(got, want) || s.Opaque {
			t.Errorf("Parse(%q) = %q (opaque %v), want %q", src, got, s.Opaque, want)
		}
	}
}

// TestG16_StaysAnalysable: the checks leave ordinary scripts analysable.
func TestG16_StaysAnalysable(t *testing.T) {
	for _, src := range []string{
		"for ((i=0; i<3; i++)); do ls $i; done",
		"i=0; while (( i < 2 )); do ls $i; i=$((i+1)); done",
		"echo $((1+2)) $[3*4] $((0x1f + 2#101))",
		"[[ $# -gt 0 ]] && ls",
		"n=3; ls $((n*2)) ${#n}",
		"for n in 1 2 3; do ls $((n+1)); done",
		"for n in {1..5}; do ls $((n+1)); done",
		"declare -A m; m[k]=1; ls ${m[k]}",
		"a=(x y); ls ${a[0]} ${a[1]}",
		"alias ll='ls -l'",
		"shopt -s expand_aliases; alias ll='ls -la'; ll src/",
		"ls {a,b} x{1..3}",
		"printf 'a\\tb\\n' | cut -f1",
		"cat <<EOF\nline\nEOF",
		"git commit -m 'fix: a\\b'",
		"ls a\\\\",
		"x=$(ls); (( ${#x} > 0 )) && ls",
		"ls $(( $(date +%s) - $(date -d yesterday +'%s') )) $(( `wc -l < f` + $(ls | wc -lc) ))",
		"set -euo pipefail; ls",
		"set -x; set +e; set -- a k; ls",
		`set -- "$@" $x; set -e -- $y; ls`,
		"shopt -s nullglob extglob; ls",
		"hash -r; hash ls",
		"shopt compat31; shopt -u compat31 posix; shopt -s interactive_comments; ls",
		"n=$(ls | wc -l); let n--; t=\"$(date +%s)\"; ls $((n + t))",
		"set SCRIPTPATH=`dirname \"$0\"`; ls",
		"read -r line < f; printf -v out '%s' \"$line\"; read -ra parts <<< x; ls",
		"a=(1 2); ls ${!a[@]} ${!a[*]} ${x@Q}",
		"declare -n r=x; export A=1 \"B=$x\"; local -r c=1",
		"[[ -v HOME ]] && [[ -v a[1] ]] && test -v HOME && ls",
		"while getopts ab: opt; do ls $opt; done",
		"mapfile -t lines < f; readarray -d '' a < g",
	} {
		s, err := shell.Parse(src)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		if s.Opaque {
			t.Errorf("Parse(%q) opaque: %q", src, s.Reasons)
		}
	}
}

// TestG16_HarnessSeesTheDisagreement: the differential harness can fail:
// bash runs rm for the carriage-return script the parser reads as ls.
func TestG16_HarnessSeesTheDisagreement(t *testing.T) {
	r := needBash(t)
	src := "A=1\rls rm -rf victim"
	got, err := r.run(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"rm", "-rf", "victim"}
	if len(got.argvs) != 1 || !slices.Equal(got.argvs[0], want) {
		t.Fatalf("bash ran %q, want [%q]", got.argvs, want)
	}
	s, err := shell.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	args := [][]string{s.Commands[0].Args}
	literal := [][]bool{s.Commands[0].Literal}
	if explained(got.argvs[0], args, literal) {
		t.Fatalf("the parser's reading %q explains what bash ran", args)
	}
	if !s.Opaque {
		t.Fatal("the script is not opaque")
	}
}

// TestG16_HarnessIsolated: what bash runs in the harness cannot reach
// outside it: a program named by path cannot delete a file it does not
// own, and kill -9 -1 reaches only the namespace.
func TestG16_HarnessIsolated(t *testing.T) {
	r := needBash(t)
	if !r.owned {
		t.Skip("the harness runs scripts as a uid that owns nothing only as root")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := r.run(context.Background(), "/bin/rm -f "+victim+"; echo x > "+victim+"; kill -9 -1; ls done")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
		t.Fatalf("victim = %q, %v; bash said %s", b, err, got.stderr)
	}
	if !strings.Contains(got.stderr, "Permission denied") {
		t.Errorf("bash said %q, want permission denied", got.stderr)
	}
}
