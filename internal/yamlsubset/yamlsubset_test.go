package yamlsubset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// programsFile is the embedded programs file of the first pass, the file
// this package exists for.
var programsFile = filepath.Join("..", "triage", "programs.yaml")

// diff returns where the trees a (Parse's) and b (yaml.v3's) differ in
// Kind, Tag, Value, Style, Line, Column, Anchor, Alias or Content, or "" when
// they agree; comments are not compared (Parse skips them).
func diff(path string, a, b *yaml.Node) string {
	switch {
	case a == nil && b == nil:
		return ""
	case a == nil || b == nil:
		return fmt.Sprintf("%s: one node is missing (ours %v, yaml.v3 %v)", path, a != nil, b != nil)
	}
	type fields struct {
		Kind         yaml.Kind
		Tag, Value   string
		Style        yaml.Style
		Line, Column int
		Anchor       string
		Alias        bool
		N            int
	}
	fa := fields{a.Kind, a.Tag, a.Value, a.Style, a.Line, a.Column, a.Anchor, a.Alias != nil, len(a.Content)}
	fb := fields{b.Kind, b.Tag, b.Value, b.Style, b.Line, b.Column, b.Anchor, b.Alias != nil, len(b.Content)}
	if fa != fb {
		return fmt.Sprintf("%s: ours %+v, yaml.v3 %+v", path, fa, fb)
	}
	for i := range a.Content {
		if d := diff(fmt.Sprintf("%s/%d", path, i), a.Content[i], b.Content[i]); d != "" {
			return d
		}
	}
	return ""
}

// reference parses data with yaml.v3 into a node tree.
func reference(data []byte) (n *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml.v3 panicked: %v", r)
		}
	}()
	n = new(yaml.Node)
	err = yaml.Unmarshal(data, n)
	return n, err
}

// accepted are small documents in the subset, one or more per construct:
// Parse must read each and build yaml.v3's tree.
var accepted = []struct{ name, in string }{
	{"plain scalar root", "hello\n"},
	{"root without final newline", "a: b"},
	{"mapping", "a: b\nc: d\n"},
	{"indented root mapping", "  a: b\n  c: d\n"},
	{"nested mapping", "a:\n  b: c\n  d:\n    e: f\ng: h\n"},
	{"empty values", "a:\nb:   \nc: # note\nd:"},
	{"resolved tags", "a: 1\nb: -2\nc: 0x1F\nd: 1.5\ne: .inf\nf: true\ng: False\nh: ~\ni: null\nj: 2001-12-14\nk: +1_000\nl: yes\nm: <<\nn: .5\no: 1e3\np: 0o17\nq: -.INF\n"},
	{"keys resolved too", "1: a\ntrue: b\n~: c\n"},
	{"colon inside scalars", "a:b: c\nd: e:f\nurl: http://x/y\n"},
	{"spaces before colon", "a  : b\n'q' : c\n"},
	{"hash inside scalars", "a: b#c\nd: e # comment\nf: '#g' # comment\n"},
	{"comments and blank lines", "# head\n\na: b # line\n\n  # indented comment\n# foot\nc: d\n\n\n# end\n"},
	{"sequence", "- a\n- b\n-   c\n"},
	{"sequence of empties", "-\n- \n- # c\n-"},
	{"sequence in mapping", "a:\n  - b\n  - c\nd: e\n"},
	{"indentless sequence", "a:\n- b\n- c\nd:\n- e\n"},
	{"indentless sequence with empty entry", "a:\n- \n- b\nc: d\n"},
	{"compact mapping", "- a: b\n  c: d\n- e: f\n"},
	{"compact mapping with nested values", "- names: [a, b]\n  does: reads\n  sub:\n    x: read\n  list:\n  - y\n  - z\n- names: c\n"},
	{"compact sequence", "- - a\n  - b\n- - c\n"},
	{"entry below its dash", "-\n  a: b\n-\n  - c\n-\n  d\n"},
	{"value below its key", "a:\n  b\nc:\n  'd'\ne:\n  [f]\n"},
	{"multi-line plain", "a: one two\n  three\n    four\nb: x\n"},
	{"multi-line plain with blank lines", "a: one\n\n  two\n\n\n  three\nb: x\n"},
	{"multi-line plain in sequence", "- one\n  two\n- three\n   four\n"},
	{"multi-line plain ends at a comment", "a: one\n  two\n  # three\nb: c\n"},
	{"multi-line plain root", "one\ntwo\n\nthree\n"},
	{"plain with dash and indicators inside", "a: b - c\n  - d\nx: -y\nz: --help\nw: a[b]{c},d\nv: what? yes!\n"},
	{"plain with trailing spaces", "a: b   \nc: d  # e\n"},
	{"single-quoted", "a: 'b c'\nb: 'it''s'\nc: ''\nd: '# no comment'\ne: 'x: y'\n"},
	{"single-quoted multi-line", "a: 'one\n  two\n\n  three  \n  four'\n"},
	{"double-quoted", `a: "b c"` + "\n" + `b: ""` + "\n" + `c: "it's"` + "\n"},
	{"double-quoted escapes", `a: "\0\a\b\t\n\v\f\r\e\ \"\'\\\N\_\L\P"` + "\n" + `b: "\x41\xe9\u263A\U0001F600"` + "\n"},
	{"double-quoted multi-line", "a: \"one\n  two  \n\n\n  three\"\n"},
	{"double-quoted escaped line break", "a: \"one \\\n  two\\\n\n  three\"\n"},
	{"double-quoted trailing spaces kept before the quote", "a: \"b  \"\n"},
	{"quoted keys", "\"a b\": c\n'd': e\n"},
	{"quoted values then comments", "a: 'b' # c\nd: \"e\"   # f\n"},
	{"flow sequence", "a: [b, c, \"d e\", 'f', 1, true]\n"},
	{"flow sequence empty", "a: []\nb: [ ]\n"},
	{"flow sequence multi-line", "a: [b, c,\n    d, \"e\",\n  f]\n"},
	{"flow sequence multi-word plain", "a: [b c, d  e]\n"},
	{"flow sequence plain over lines", "a: [b\n  c, d]\n"},
	{"flow mapping", "a: {b: c, d: 'e', \"f\": 1}\n"},
	{"flow mapping empty", "a: {}\n"},
	{"flow in sequence", "- [a, b]\n- {c: d}\n"},
	{"flow root", "[a, b]\n"},
	{"flow with spaces", "a: [ b ,c , d ]\n"},
	{"non-ASCII", "é: ü ñ\nk: \"日本語\"\nl: [α, β]\n"},
	{"non-ASCII columns", "ключ: значение\nk2: [a, é, b]\n"},
	{"deeper nesting", "a:\n  b:\n    - c:\n        - d\n        - e: [f]\n    - g\n  h: i\n"},
	{"programs-like entry", "version: 1\nprograms:\n  - names: \"cat tac nl\n      rev fold\"\n    does: reads\n  - names: [head, tail]\n    value_options: \"nc\"\nlists:\n  # a comment\n  words: \"a b\n      c d\"\n\n  seq: [\"x\", \"y z\",\n      \"require('net')\"]\n"},
}

// rejected are documents outside the subset: Parse must refuse each with
// ErrUnsupported (yaml.v3 reads some of them, rejects others).
var rejected = []struct{ name, in string }{
	{"empty", ""},
	{"only comments", "# nothing\n\n"},
	{"anchor and alias", "a: &x b\nc: *x\n"},
	{"tag", "a: !!str 1\n"},
	{"literal block scalar", "a: |\n  b\n"},
	{"folded block scalar", "a: >\n  b\n"},
	{"document start", "---\na: b\n"},
	{"document end", "a: b\n...\n"},
	{"directive", "%YAML 1.2\n---\na: b\n"},
	{"complex key", "? a\n: b\n"},
	{"tab indentation", "a:\n\tb: c\n"},
	{"tab in a value", "a: b\tc\n"},
	{"carriage return", "a: b\r\n"},
	{"byte order mark", "\uFEFFa: b\n"},
	{"nested flow", "a: [b, [c]]\n"},
	{"flow mapping in flow sequence", "a: [{b: c}]\n"},
	{"trailing comma", "a: [b, c,]\n"},
	{"comment in flow", "a: [b, # c\n  d]\n"},
	{"flow key", "[a]: b\n"},
	{"mapping on its key's line", "a: b: c\n"},
	{"sequence on its key's line", "a: - b\n"},
	{"multi-line key", "a\n  b: c\n"},
	{"bad indentation", "a:\n    b: c\n  d: e\n"},
	{"deeper line after a quoted value", "a: 'b'\n  c\n"},
	{"sequence entry among keys", "a: b\n- c\n"},
	{"unterminated quote", "a: 'b\n"},
	{"unknown escape", `a: "\q"` + "\n"},
	{"surrogate escape", `a: "\uD800"` + "\n"},
	{"text after quote", "a: 'b' c\n"},
	{"comment without space after quote", "a: 'b'#c\n"},
	{"two documents", "a: b\n---\nc: d\n"},
	{"content after root scalar", "'a'\nb\n"},
	{"unindented quoted line", "a: \"b\nc\"\n"},
	{"flow value without space after colon", "a: {b:c}\n"},
	{"colon in flow item", "a: [b: c]\n"},
	{"invalid UTF-8", "a: \xff\n"},
	{"NEL", "a: b\u0085c\n"},
	{"line separator", "a: b\u2028c\n"},
	{"alias root", "*a\n"},
}

// TestParse_MatchesYAMLv3 checks that Parse builds yaml.v3's tree (without
// comments) for the embedded programs file and for a document of every
// construct of the subset, and refuses documents outside it with
// ErrUnsupported.
func TestParse_MatchesYAMLv3(t *testing.T) {
	programs, err := os.ReadFile(programsFile)
	if err != nil {
		t.Fatal(err)
	}
	cases := append([]struct{ name, in string }{{"programs.yaml", string(programs)}}, accepted...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := reference([]byte(c.in))
			if err != nil {
				t.Fatalf("yaml.v3 rejects the case: %v", err)
			}
			got, err := Parse([]byte(c.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d := diff("", got, want); d != "" {
				t.Errorf("trees differ at %s\ninput:\n%s", d, c.in)
			}
		})
	}
	for _, c := range rejected {
		t.Run("refuses "+c.name, func(t *testing.T) {
			n, err := Parse([]byte(c.in))
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Parse = %v, %v; want an error wrapping ErrUnsupported", n, err)
			}
			if strings.Contains(err.Error(), "yaml.Node") {
				t.Errorf("error %q names a Go type", err)
			}
		})
	}
}

// TestParse_ProgramsFileFast checks that the programs file is read by
// Parse itself (not refused): the fast path the first pass relies on.
func TestParse_ProgramsFileFast(t *testing.T) {
	programs, err := os.ReadFile(programsFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(programs); err != nil {
		t.Fatalf("Parse refuses the programs file: %v", err)
	}
}

// FuzzParse_MatchesYAMLv3 is differential: whenever Parse accepts an input,
// yaml.v3 must accept it too and build the same tree (comments excluded);
// Parse's errors must wrap ErrUnsupported.
func FuzzParse_MatchesYAMLv3(f *testing.F) {
	for _, c := range accepted {
		f.Add([]byte(c.in))
	}
	for _, c := range rejected {
		f.Add([]byte(c.in))
	}
	if programs, err := os.ReadFile(programsFile); err == nil {
		// Parts of it, small enough for the fuzzer to mutate and minimize
		// well (the whole file is a case of TestParse_MatchesYAMLv3).
		lines := strings.SplitAfter(string(programs), "\n")
		for _, from := range []int{0, 145, 190, 300, 410, 610, 700, 770, 850} {
			if from < len(lines) {
				f.Add([]byte(strings.Join(lines[from:min(from+25, len(lines))], "")))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error not wrapping ErrUnsupported: %v", err)
			}
			return
		}
		want, err := reference(data)
		if err != nil {
			t.Fatalf("Parse accepts what yaml.v3 rejects (%v); input %q", err, data)
		}
		if d := diff("", got, want); d != "" {
			t.Fatalf("trees differ at %s; input %q", d, data)
		}
	})
}

// BenchmarkParse measures Parse on the programs file.
func BenchmarkParse(b *testing.B) {
	programs, err := os.ReadFile(programsFile)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(programs)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(programs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseYAMLv3 measures yaml.v3 on the programs file, for
// comparison with BenchmarkParse.
func BenchmarkParseYAMLv3(b *testing.B) {
	programs, err := os.ReadFile(programsFile)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(programs)))
	b.ReportAllocs()
	for b.Loop() {
		var n yaml.Node
		if err := yaml.Unmarshal(programs, &n); err != nil {
			b.Fatal(err)
		}
	}
}
