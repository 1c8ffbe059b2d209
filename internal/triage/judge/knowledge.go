package judge

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/wardenhq/warden/internal/filepos"
	"github.com/wardenhq/warden/internal/wordset"
	"gopkg.in/yaml.v3"
)

// What the first pass knows about programs is data: programs.yaml, embedded
// in the binary, says for each program it knows which mechanism judges it
// (prints the files it is given, inspects them, changes nothing, a named
// judge written in Go, or subcommands with effects), and which facts hold
// of it (it builds the project, installs packages, interprets programs,
// talks to the network, attacks, cracks passwords, changes the machine,
// acts on remote accounts). Its lists: are the words the judges read (the
// verbs, options, code fragments, configuration keys and tool words of
// listSpecs), looked up through the Knowledge a judge is given; a user's
// file may extend the stricter lists and the managed file all of them. Go
// keeps the mechanisms: data-flow through pipes, redirections and
// substitutions, path resolution, secrets detection and the judges whose
// rules cannot be said as data (git push, find -exec).
//
// The format is YAML read as yaml.v3 nodes, so that every error names its
// file:line:col, as policy and rules files do. The embedded file is not
// parsed when warden runs: go generate turns it into Go tables
// (programs_gen.go, knowledge_table.go), built into the knowledge on first
// use in a fraction of a millisecond (BenchmarkKnowledgeTables); a test
// reads programs.yaml with the parser below and checks that the tables say
// the same. yaml.v3 reads only the users' and managed files, and only when
// a configuration names one.

// EmbeddedProgramsFile is the name the embedded programs file is reported
// under in errors and reasons.
const EmbeddedProgramsFile = "internal/triage/programs.yaml"

// programsVersion is the version of the programs file schema this build
// reads.
const programsVersion = 1

// Knowledge is what the first pass knows about programs: the embedded
// programs file, extended or overridden by the user's and the managed
// programs files (LoadKnowledge). It is immutable once built and safe for
// concurrent use. The nil *Knowledge is the embedded knowledge.
type Knowledge struct {
	Programs map[string]*program
	Lists    map[string]*wordList
	files    []string // the files read, embedded first
	// roots are the run's configured writable roots (WithWritableRoots):
	// judged as the workspace is.
	roots []string
	// fs remembers the file system's answers about the directories every
	// judgement asks about (lookups.go); it is the one part that changes.
	fs *lookups
	// secrets remembers what secret each path holds (secrets.go).
	secrets *pathSecrets
	// named indexes Lists by word, for MayName; nil asks each list.
	named *namedIndex
}

// namedIndex says, for each word, which lists of ListSpecs Names can
// match through it: the lists that hold it, or an entry a+b whose first
// part it is. Bit i of a mask is ListSpecs[i]; masks[i] is the mask of
// the word at position i of words.
type namedIndex struct {
	words wordset.Set
	masks [][2]uint64
}

// listBits are the bits of the lists of ListSpecs in a namedIndex mask.
var listBits = func() map[string][2]uint64 {
	m := make(map[string][2]uint64, len(ListSpecs))
	for i, l := range ListSpecs {
		var b [2]uint64
		if i < 128 {
			b[i/64] = 1 << (i % 64)
		}
		m[l.Name] = b
	}
	return m
}()

// indexNamed returns the namedIndex of lists, nil when ListSpecs has more
// lists than a mask holds.
func indexNamed(lists map[string]*wordList) *namedIndex {
	if len(ListSpecs) > 128 {
		return nil
	}
	ix := &namedIndex{}
	n := 0
	for _, l := range lists {
		n += len(l.Words) + len(l.byFirst)
	}
	ix.words.Grow(n)
	ix.masks = make([][2]uint64, 0, n)
	add := func(w string, b [2]uint64) {
		i, added := ix.words.Add(w)
		if added {
			ix.masks = append(ix.masks, b)
			return
		}
		ix.masks[i] = [2]uint64{ix.masks[i][0] | b[0], ix.masks[i][1] | b[1]}
	}
	for name, l := range lists {
		b, ok := listBits[name]
		if !ok {
			return nil
		}
		for _, w := range l.Words {
			add(w, b)
		}
		for w := range l.byFirst {
			add(w, b)
		}
	}
	return ix
}

// MayName reports whether Names may match the words ws for one of the
// lists names (protection.Lists): false only when none of ws is a word of
// them or the first part of one of their entries, so that a caller asking
// several lists about words that name nothing asks once.
func (k *Knowledge) MayName(names []string, ws []string) bool {
	ix := k.or().named
	if ix == nil {
		return true
	}
	var m [2]uint64
	for _, w := range ws {
		if i, ok := ix.words.Index(w); ok {
			m[0] |= ix.masks[i][0]
			m[1] |= ix.masks[i][1]
		}
	}
	if m == ([2]uint64{}) {
		return false
	}
	for _, n := range names {
		b, ok := listBits[n]
		if !ok || m[0]&b[0] != 0 || m[1]&b[1] != 0 {
			return true
		}
	}
	return false
}

// WithWritableRoots returns k (nil: the embedded programs file) judging
// the run's configured writable roots as the workspace is: writes there
// are writes in the workspace, not in the home directory or "the root
// user's files" (SPEC G15). A root that is the file system, a top-level or
// critical system directory, a directory of homes, a shared temporary
// directory or the home itself is ignored: it bounds nothing.
func (k *Knowledge) WithWritableRoots(roots []string) *Knowledge {
	c := *k.or()
	c.roots = slices.Clone(roots)
	c.fs = &lookups{}
	c.secrets = &pathSecrets{}
	return &c
}

// wordList is a named list of words of the programs files: a set, and the
// words in the order written (some judges report the first word found).
type wordList struct {
	set   wordset.Set
	Words []string
	// pairs are the entries a+b (or "a b"), split: such an entry matches
	// words that hold every part (names).
	pairs [][]string
	// byFirst indexes pairs by their first part: the pairs that words
	// can match are among those of the words' own entries.
	byFirst map[string][]int
}

// indexPairs returns the index of pairs by their first part (byFirst).
func indexPairs(pairs [][]string) map[string][]int {
	m := make(map[string][]int, len(pairs))
	for i, p := range pairs {
		m[p[0]] = append(m[p[0]], i)
	}
	return m
}

// addWord adds w to l once, splitting an entry of several parts into
// pairs.
func (l *wordList) addWord(w string) {
	if _, added := l.set.Add(w); !added {
		return
	}
	l.Words = append(l.Words, w)
	if strings.IndexByte(w, '+') >= 0 || strings.IndexByte(w, ' ') >= 0 {
		if parts := strings.FieldsFunc(w, func(r rune) bool { return r == '+' || r == ' ' }); len(parts) > 1 {
			l.pairs = append(l.pairs, parts)
			if l.byFirst == nil {
				l.byFirst = map[string][]int{}
			}
			l.byFirst[parts[0]] = append(l.byFirst[parts[0]], len(l.pairs)-1)
		}
	}
}

// listSpec is a list the judges read: its name, and whether growing it can
// only take allows away (stricter) or may add them (lenient: only the
// managed programs file may extend it).
type listSpec struct {
	Name     string
	Stricter bool
}

// fileRole says which programs file is read: the embedded one defines
// every list; a user's file may extend the stricter lists; the managed
// file may extend all of them.
type fileRole int

const (
	RoleEmbedded fileRole = iota
	RoleUser
	RoleManaged
)

// program is one program the first pass knows.
type program struct {
	at string // file:line of its entry, for reasons

	// mechanism: one of does (reads, inspects, harmless), judge, or
	// subcommands; none for an entry that only states facts.
	does       string
	JudgeName  string
	Judge      func(*Script, *Command)
	valueShort string
	valueLong  []string
	subs       map[string]string // subcommand → effect
	def        string            // effect of a subcommand not listed
	operands   string            // read, write or none

	facts uint16
}

// Facts a programs file states of a program.
const (
	FactRunsProject     uint16 = 1 << iota // builds, tests or runs the code of the directory it runs in
	FactInstalls                           // installs packages whose install code runs
	FactInterpreter                        // runs a program given on its standard input or as a file
	FactNetwork                            // can send what its words and input carry to other hosts
	FactLooksUp                            // only resolves or probes a name
	FactProbes                             // takes a bare address as what it inspects
	FactAttacks                            // an attack, reconnaissance or tunnelling tool
	FactCracksPasswords                    // cracks passwords or dumps credentials
	FactChangesMachine                     // changes the machine itself: power, disks, accounts, boot, services
	FactRemote                             // acts on remote infrastructure or accounts
)

// factKeys are the keys of the facts, in the order of the file's
// documentation.
var factKeys = []struct {
	key  string
	fact uint16
}{
	{"runs_project", FactRunsProject}, {"installs", FactInstalls}, {"interpreter", FactInterpreter},
	{"network", FactNetwork}, {"looks_up", FactLooksUp}, {"probes", FactProbes}, {"attacks", FactAttacks},
	{"cracks_passwords", FactCracksPasswords}, {"changes_machine", FactChangesMachine}, {"remote", FactRemote},
}

// Mechanisms (does:) and effects (subcommands:, default:).
var (
	doesNames   = []string{"reads", "inspects", "harmless"}
	effectNames = []string{"read", "write", "destroy", "network", "runs_code", "credentials", "escalate"}
	operandKind = []string{"read", "write", "none"}
	programKeys = []string{"names", "does", "judge", "subcommands", "default", "operands", "value_options",
		"long_value_options", "runs_project", "installs", "interpreter", "network", "looks_up", "probes", "attacks",
		"cracks_passwords", "changes_machine", "remote"}
)

// ListSpecs are the lists the judges read, in the order of the file's
// documentation. The embedded file defines every one; the judges ask for
// no other (Knowledge.list panics on a name not here, and a test checks
// every name the code asks for).
var ListSpecs = []listSpec{
	// Packages and tools that are routine by name.
	{"popular_python", false}, {"popular_npm", false}, {"popular_crates", false}, {"popular_gems", false},
	{"npx_tools", false}, {"routine_python_modules", false},
	{"risky_target_words", true}, {"routine_target_words", false},
	{"security_services", true},
	// Programs the file does not know (unknown.go).
	{"credential_name_parts", true}, {"name_verbs", true}, {"danger_verbs", true}, {"flag_verbs", true},
	{"remote_read_verbs", false}, {"destroying_verbs", true}, {"sending_verbs", true},
	{"credential_verbs", true}, {"weakening_verbs", true}, {"code_options", true}, {"runners", true},
	{"script_extensions", true}, {"strong_code", true}, {"host_tlds", true}, {"runs_words", true},
	// Configuration keys (guards.go).
	{"protective_key_parts", false}, {"protective_key_words", false}, {"opening_key_words", false},
	{"negating_key_words", false}, {"blocking_key_words", false}, {"unprotective_key_words", false},
	{"encryption_key_parts", false},
	// Tools (mcp.go, guards.go).
	{"tool_read_verbs", false}, {"tool_write_verbs", false}, {"tool_send_verbs", false},
	{"tool_destroy_verbs", false}, {"tool_security_words", true}, {"tool_infra_nouns", true},
	{"path_keys", false}, {"content_keys", false}, {"url_keys", false}, {"sql_keys", false},
	{"command_keys", false}, {"attach_keys", false}, {"script_keys", true}, {"browser_secrets", true},
	// What a tool's name, server and arguments say it touches (guards.go):
	// never routine by the verb alone.
	{"tool_credential_words", true}, {"tool_payment_words", true}, {"tool_identity_words", true},
	{"tool_health_words", true}, {"tool_personal_words", true}, {"tool_location_words", true},
	{"tool_asset_words", true}, {"tool_home_words", true}, {"sensitive_servers", true},
	{"reveal_keys", true}, {"field_keys", true}, {"search_keys", true},
	{"sensitive_field_words", true}, {"sensitive_search_words", true},
	// MCP servers and tools (mcp.go).
	{"developer_servers", false}, {"innocent_tool_nouns", false}, {"server_filler_words", false},
	{"unspecific_words", true},
	// Configuration edits (configedit.go).
	{"security_file_words", true}, {"security_line_words", true},
	// Browser pages that show saved credentials (mcp.go).
	{"browser_credential_pages", true}, {"password_manager_extensions", true},
}

// ListSpecOf returns the list named name, false when there is none.
func ListSpecOf(name string) (listSpec, bool) {
	for _, l := range ListSpecs {
		if l.Name == name {
			return l, true
		}
	}
	return listSpec{}, false
}

// ListNames are the names of listSpecs.
func ListNames() []string {
	out := make([]string, len(ListSpecs))
	for i, l := range ListSpecs {
		out[i] = l.Name
	}
	return out
}

var (
	defaultKnowledge *Knowledge
	loadDefault      sync.Once
)

// DefaultKnowledge returns the knowledge of the embedded programs file,
// built from its generated tables on first use. The embedded file is part
// of the program: a test proves it loads and that the tables are current,
// and DefaultKnowledge panics if they do not build.
func DefaultKnowledge() *Knowledge {
	loadDefault.Do(func() {
		k, err := EmbeddedKnowledge(Judges())
		if err != nil {
			panic("the embedded programs file: " + err.Error())
		}
		defaultKnowledge = k
	})
	return defaultKnowledge
}

// or returns k, or the embedded knowledge when k is nil.
func (k *Knowledge) or() *Knowledge {
	if k == nil {
		return DefaultKnowledge()
	}
	return k
}

// Files lists the programs files k was built from, the embedded one first.
func (k *Knowledge) Files() []string { return slices.Clone(k.or().files) }

// Knows reports whether the programs files say anything of the program
// name.
func (k *Knowledge) Knows(name string) bool {
	_, ok := k.or().Programs[name]
	return ok
}

// Prog returns what k knows of the program name, nil for nothing.
func (k *Knowledge) Prog(name string) *program { return k.or().Programs[name] }

// Has reports whether the programs files state fact of the program name.
func (k *Knowledge) Has(name string, fact uint16) bool {
	p := k.or().Programs[name]
	return p != nil && p.facts&fact != 0
}

// List returns the set of the named list (protection.Lists): the embedded file's words and
// those the user's and managed files add. It panics on a name that is not
// a list of listSpecs, which the embedded file always defines (a test
// checks the names the code asks for).
func (k *Knowledge) List(name string) *wordset.Set { return &k.wordList(name).set }

// Words returns the words of the named list in the order written, the
// embedded file's first (protection.Lists).
func (k *Knowledge) Words(name string) []string { return k.wordList(name).Words }

// Names returns the entry of the named list that the words ws (lower
// case) match, "" for none (protection.Lists): a word of the list, or an entry a+b (or
// "a b") whose every part is among ws.
func (k *Knowledge) Names(name string, ws []string) string {
	l := k.wordList(name)
	for _, w := range ws {
		if l.set.Has(w) {
			return w
		}
	}
	// The first pair in the list's order whose every part is among ws:
	// its first part is one of ws.
	best := -1
	for _, w := range ws {
		for _, i := range l.byFirst[w] {
			if best >= 0 && i > best {
				break
			}
			if holdsAll(ws, l.pairs[i]) {
				best = i
				break
			}
		}
	}
	if best >= 0 {
		return strings.Join(l.pairs[best], "+")
	}
	return ""
}

// holdsAll reports whether every one of parts is among ws.
func holdsAll(ws, parts []string) bool {
	for _, part := range parts {
		if !slices.Contains(ws, part) {
			return false
		}
	}
	return true
}

func (k *Knowledge) wordList(name string) *wordList {
	l := k.or().Lists[name]
	if l == nil {
		panic("first pass: no list " + name + " in the programs files")
	}
	return l
}

// JudgeOf returns how the program name is judged, if the programs files
// give it a mechanism.
func (k *Knowledge) JudgeOf(name string) (func(*Script, *Command), bool) {
	p := k.or().Programs[name]
	if p == nil {
		return nil, false
	}
	switch {
	case p.Judge != nil:
		return p.Judge, true
	case p.does != "" || p.subs != nil || p.def != "":
		return p.run, true
	}
	return nil, false
}

// WithFiles returns k extended by the user's programs files paths, in
// order: each file's entries add programs and replace those of the same
// name that k or an earlier file holds, and its lists add words to the
// stricter lists. An error is at the file's line and column.
func (k *Knowledge) WithFiles(paths ...string) (*Knowledge, error) {
	files := make([]knowledgeFile, len(paths))
	for i, p := range paths {
		files[i] = knowledgeFile{p, RoleUser}
	}
	return k.withFiles(files...)
}

// knowledgeFile is a programs file to read, and whose it is.
type knowledgeFile struct {
	path string
	role fileRole
}

// withFiles is WithFiles for user's and managed files: a managed file may
// also extend the lenient lists.
func (k *Knowledge) withFiles(files ...knowledgeFile) (*Knowledge, error) {
	base := k.or()
	if len(files) == 0 {
		return base, nil
	}
	out := &Knowledge{Programs: make(map[string]*program, len(base.Programs)+8), Lists: base.Lists,
		files: slices.Clone(base.files), fs: &lookups{}, secrets: &pathSecrets{}}
	for n, p := range base.Programs {
		out.Programs[n] = p
	}
	reg := Judges()
	for _, kf := range files {
		data, err := os.ReadFile(kf.path)
		if err != nil {
			return nil, fmt.Errorf("programs file: %w", err)
		}
		f, err := ParseKnowledge(kf.path, data, kf.role, reg)
		if err != nil {
			return nil, err
		}
		for n, p := range f.Programs {
			out.Programs[n] = p
		}
		if len(f.Lists) > 0 {
			out.Lists = ExtendLists(out.Lists, f.Lists)
		}
		out.files = append(out.files, kf.path)
	}
	out.named = indexNamed(out.Lists)
	return out, nil
}

// ExtendLists returns base with the words of more added to its lists (a
// list only grows), without changing base.
func ExtendLists(base, more map[string]*wordList) map[string]*wordList {
	out := make(map[string]*wordList, len(base))
	for n, l := range base {
		out[n] = l
	}
	for n, add := range more {
		old := out[n]
		l := &wordList{set: *old.set.Clone(), Words: slices.Clone(old.Words), pairs: slices.Clone(old.pairs)}
		l.byFirst = indexPairs(l.pairs)
		l.set.Grow(len(add.Words))
		for _, w := range add.Words {
			l.addWord(w)
		}
		out[n] = l
	}
	return out
}

// ParseKnowledgeFile checks the programs file data (named file in errors)
// as a user's or managed file: nil when it is valid.
func ParseKnowledgeFile(file string, data []byte) error {
	_, err := ParseKnowledge(file, data, RoleUser, Judges())
	return err
}

// ParseManagedKnowledgeFile checks the programs file data (named file in
// errors) as the managed configuration's: nil when it is valid.
func ParseManagedKnowledgeFile(file string, data []byte) error {
	_, err := ParseKnowledge(file, data, RoleManaged, Judges())
	return err
}

// ParseKnowledge reads a programs file. The embedded file must define
// every list; a user's file may only extend the stricter lists.
func ParseKnowledge(file string, data []byte, role fileRole, reg map[string]func(*Script, *Command)) (*Knowledge, error) {
	if err := filepos.CheckUTF8(file, data); err != nil {
		return nil, err
	}
	doc := new(yaml.Node)
	if err := yaml.Unmarshal(data, doc); err != nil {
		return nil, filepos.YAMLError(file, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &filepos.Error{Pos: filepos.Pos{File: file, Line: 1, Col: 1}, Msg: "an empty programs file (want version: 1 and programs:)"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, filepos.Errorf(file, root, "want a mapping with version and programs")
	}
	k := &Knowledge{Programs: map[string]*program{}, Lists: map[string]*wordList{}, files: []string{file}}
	version := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		switch key.Value {
		case "version":
			if val.Kind != yaml.ScalarNode || val.Value != fmt.Sprint(programsVersion) {
				return nil, filepos.Errorf(file, val, "version: want %d", programsVersion)
			}
			version = true
		case "programs":
			if err := k.parsePrograms(file, val, reg); err != nil {
				return nil, err
			}
		case "lists":
			if err := k.parseLists(file, val, role); err != nil {
				return nil, err
			}
		default:
			return nil, filepos.Errorf(file, key, "unknown key %q (keys: version, programs, lists)", key.Value)
		}
	}
	if !version {
		return nil, filepos.Errorf(file, root, "missing version: %d", programsVersion)
	}
	if role == RoleEmbedded {
		for _, l := range ListSpecs {
			if k.Lists[l.Name] == nil {
				return nil, filepos.Errorf(file, root, "missing list %s", l.Name)
			}
		}
	}
	return k, nil
}

// parseLists reads the lists: mapping. A user's file may only extend the
// stricter lists: a list that makes the first pass more lenient when it
// grows is the managed configuration's to extend.
func (k *Knowledge) parseLists(file string, n *yaml.Node, role fileRole) error {
	if n.Kind != yaml.MappingNode {
		return filepos.Errorf(file, n, "lists: want a mapping of names to lists of words")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		spec, ok := ListSpecOf(key.Value)
		if !ok {
			return filepos.Errorf(file, key, "unknown list %q (lists: %s)", key.Value, strings.Join(ListNames(), ", "))
		}
		if k.Lists[key.Value] != nil {
			return filepos.Errorf(file, key, "list %s given twice", key.Value)
		}
		if role == RoleUser && !spec.Stricter {
			return filepos.Errorf(file, key, "list %s makes the first pass more lenient when it grows: only the managed programs file may extend it", key.Value)
		}
		words, err := stringList(file, val, "lists."+key.Value)
		if err != nil {
			return err
		}
		l := &wordList{Words: make([]string, 0, len(words))}
		l.set.Grow(len(words))
		for j, w := range words {
			if w == "" {
				at := val
				if val.Kind == yaml.SequenceNode {
					at = val.Content[j]
				}
				return filepos.Errorf(file, at, "lists.%s: an empty word", key.Value)
			}
			l.addWord(w)
		}
		k.Lists[key.Value] = l
	}
	return nil
}

// parsePrograms reads the programs: sequence.
func (k *Knowledge) parsePrograms(file string, n *yaml.Node, reg map[string]func(*Script, *Command)) error {
	if n.Kind != yaml.SequenceNode {
		return filepos.Errorf(file, n, "programs: want a list of entries, each with names")
	}
	for _, e := range n.Content {
		p, names, err := parseProgram(file, e, reg)
		if err != nil {
			return err
		}
		for i, name := range names {
			if prev, ok := k.Programs[name]; ok {
				return filepos.Errorf(file, e, "program %q is already given at %s", name, prev.at)
			}
			_ = i
			k.Programs[name] = p
		}
	}
	return nil
}

// parseProgram reads one entry of programs:.
func parseProgram(file string, e *yaml.Node, reg map[string]func(*Script, *Command)) (*program, []string, error) {
	if e.Kind != yaml.MappingNode {
		return nil, nil, filepos.Errorf(file, e, "a program entry: want a mapping with names and what the programs do")
	}
	p := &program{at: fmt.Sprintf("%s:%d", file, e.Line)}
	var names []string
	mechs := 0
	seen := map[string]bool{}
	for i := 0; i+1 < len(e.Content); i += 2 {
		key, val := e.Content[i], e.Content[i+1]
		if !slices.Contains(programKeys, key.Value) {
			return nil, nil, filepos.Errorf(file, key, "unknown key %q (keys: %s)", key.Value, strings.Join(programKeys, ", "))
		}
		if seen[key.Value] {
			return nil, nil, filepos.Errorf(file, key, "%s given twice", key.Value)
		}
		seen[key.Value] = true
		var err error
		switch key.Value {
		case "names":
			if names, err = stringList(file, val, "names"); err != nil {
				return nil, nil, err
			}
			if len(names) == 0 {
				return nil, nil, filepos.Errorf(file, val, "names: want at least one program name")
			}
			for j, nm := range names {
				if nm == "" || strings.ContainsAny(nm, "/ \t\n") {
					at := val
					if val.Kind == yaml.SequenceNode {
						at = val.Content[j]
					}
					return nil, nil, filepos.Errorf(file, at, "names: %q is not a program name (no slashes or spaces)", nm)
				}
			}
		case "does":
			mechs++
			if p.does, err = oneOf(file, val, "does", doesNames); err != nil {
				return nil, nil, err
			}
		case "judge":
			mechs++
			name, err := scalar(file, val, "judge")
			if err != nil {
				return nil, nil, err
			}
			f, ok := reg[name]
			if !ok {
				return nil, nil, filepos.Errorf(file, val, "judge %q is not a judge of the first pass (judges: %s)", name, strings.Join(sortedKeys(reg), ", "))
			}
			p.JudgeName, p.Judge = name, f
		case "subcommands":
			mechs++
			if val.Kind != yaml.MappingNode {
				return nil, nil, filepos.Errorf(file, val, "subcommands: want a mapping of subcommand words to effects (%s)", strings.Join(effectNames, ", "))
			}
			p.subs = make(map[string]string, len(val.Content)/2)
			for j := 0; j+1 < len(val.Content); j += 2 {
				w, err := scalar(file, val.Content[j], "subcommand")
				if err != nil {
					return nil, nil, err
				}
				if _, dup := p.subs[w]; dup {
					return nil, nil, filepos.Errorf(file, val.Content[j], "subcommand %q given twice", w)
				}
				if p.subs[w], err = oneOf(file, val.Content[j+1], "subcommands."+w, effectNames); err != nil {
					return nil, nil, err
				}
			}
		case "default":
			if p.def, err = oneOf(file, val, "default", effectNames); err != nil {
				return nil, nil, err
			}
		case "operands":
			if p.operands, err = oneOf(file, val, "operands", operandKind); err != nil {
				return nil, nil, err
			}
		case "value_options":
			if p.valueShort, err = scalar(file, val, "value_options"); err != nil {
				return nil, nil, err
			}
		case "long_value_options":
			if p.valueLong, err = stringList(file, val, "long_value_options"); err != nil {
				return nil, nil, err
			}
		default: // a fact
			var b bool
			if val.Kind != yaml.ScalarNode || val.Decode(&b) != nil || val.Tag != "!!bool" {
				return nil, nil, filepos.Errorf(file, val, "%s: want true or false", key.Value)
			}
			for _, f := range factKeys {
				if f.key == key.Value && b {
					p.facts |= f.fact
				}
			}
		}
	}
	switch {
	case names == nil:
		return nil, nil, filepos.Errorf(file, e, "a program entry without names")
	case mechs > 1:
		return nil, nil, filepos.Errorf(file, e, "give one of does, judge and subcommands, not several")
	case p.def != "" && p.subs == nil:
		return nil, nil, filepos.Errorf(file, e, "default: only with subcommands")
	case p.operands != "" && p.subs == nil:
		return nil, nil, filepos.Errorf(file, e, "operands: only with subcommands (does: reads and inspects read their operands)")
	case (p.valueShort != "" || p.valueLong != nil) && p.Judge != nil:
		return nil, nil, filepos.Errorf(file, e, "value_options: a judge reads its own options")
	}
	return p, names, nil
}

// scalar reads a string scalar.
func scalar(file string, n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float" {
		return "", filepos.Errorf(file, n, "%s: want a word", what)
	}
	return n.Value, nil
}

// oneOf reads a scalar that must be one of allowed.
func oneOf(file string, n *yaml.Node, what string, allowed []string) (string, error) {
	v, err := scalar(file, n, what)
	if err != nil {
		return "", err
	}
	if !slices.Contains(allowed, v) {
		return "", filepos.Errorf(file, n, "%s: %q is not one of %s", what, v, strings.Join(allowed, ", "))
	}
	return v, nil
}

// stringList reads a list of words: a sequence, or a string of words
// separated by spaces (which the embedded file uses for its long lists: a
// scalar is many times faster to parse than a sequence of hundreds).
func stringList(file string, n *yaml.Node, what string) ([]string, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		return strings.Fields(n.Value), nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, filepos.Errorf(file, n, "%s: want a list of words", what)
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		v, err := scalar(file, c, what)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// absIn makes a programs file path named in the configuration file cfg
// absolute: a relative path is relative to cfg's directory.
func absIn(cfg, path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	if strings.HasPrefix(path, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, path[2:])
		}
	}
	return filepath.Join(filepath.Dir(cfg), path)
}
