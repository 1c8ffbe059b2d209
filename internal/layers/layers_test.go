package layers

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const mod = "github.com/wardenhq/warden/"

// Groups of packages the table below names together.
var (
	// governance decides what the agent may do, and runs it.
	governance = []string{"gate", "agent", "approval", "review", "human", "internal/queue", "rules", "sandbox", "internal/toolbox", "internal/autoreview", "internal/triage", "internal/decider", "internal/task"}
	// databases are the SQL drivers.
	databases = []string{"!modernc.org/sqlite", "!github.com/jackc/pgx/v5"}
	// kernel is the sandbox's machinery and the exec rules' interpreter.
	kernel = []string{"!github.com/landlock-lsm/go-landlock/landlock", "!go.starlark.net/starlark"}
	// models are the model adapters and their SDKs.
	models = []string{"model/anthropic", "model/openai", "model/scripted"}
	// top is the assembly of a run, the server and the command.
	top = []string{"internal/decider", "internal/task", "internal/serve", "cmd/warden"}
	// vocabulary is every package an approval or review decision is
	// phrased in, above which decisions are made.
	vocabulary = []string{"approval", "review", "event", "gate", "agent", "internal/store", "human", "internal/queue", "rules", "sandbox"}
)

// lean is what the hooks' lean binary does not link (cmd/warden-hook):
// the store, the server's client, the first pass, the reviewer agent, the
// dry run, the sandbox's mechanisms, installing hooks (TOML); the full
// warden it hands such hooks to does.
var lean = []string{"internal/store", "internal/plane/storeplane", "internal/plane/serverplane", "internal/serveclient", "internal/serve", "cmd/warden",
	"internal/decider", "internal/triage", "internal/autoreview", "internal/dryrun", "sandbox", "internal/hook/install", "!github.com/BurntSushi/toml", "!net/http", "!github.com/landlock-lsm/go-landlock/landlock"}

func join(groups ...[]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// forbidden lists, for each package, the packages it may not depend on,
// directly or not. Names are relative to the module; a leading "!" marks a
// package outside it; a key ending in "/..." is a package and every
// package below it. docs/architecture.md says why each arrow is barred.
var forbidden = map[string][]string{
	// Storage sits below governance: a store user links no agent,
	// sandbox or interpreter.
	"internal/store": join(governance, kernel, top, models),
	// The transcript's schema is read by everything; it uses the
	// vocabulary only.
	"event": join([]string{"internal/store", "internal/serveclient"}, governance, databases, kernel, top, models),
	// The console approver links no database: the queue does.
	"human": join([]string{"internal/store", "internal/serveclient", "internal/queue", "gate", "agent", "rules", "sandbox", "internal/toolbox", "internal/autoreview", "internal/triage"}, databases, kernel, top, models),
	// Approval and review are the decision layer: no loop, no store, no
	// concrete approver.
	"approval": join([]string{"agent", "gate", "internal/store", "internal/serveclient", "human", "internal/queue", "rules", "sandbox", "internal/toolbox", "internal/autoreview", "internal/triage", "model"}, databases, kernel, top, models),
	"review":   join([]string{"agent", "gate", "internal/store", "internal/serveclient", "human", "internal/queue", "rules", "sandbox", "internal/toolbox", "internal/autoreview", "internal/triage", "model", "event"}, databases, kernel, top, models),
	// The agent loop is free of any concrete reviewer, model or store.
	"agent": join([]string{"gate", "internal/store", "internal/serveclient", "human", "internal/queue", "rules", "sandbox", "internal/toolbox", "internal/autoreview", "internal/triage"}, databases, kernel, top, models),
	// The deterministic first pass is below the reviewer agent and needs
	// no model, sandbox or store.
	"internal/triage/...": join([]string{"internal/autoreview", "agent", "gate", "model", "internal/store", "internal/serveclient", "human", "internal/queue", "sandbox", "internal/toolbox"}, databases, top, models, []string{"!github.com/landlock-lsm/go-landlock/landlock"}),
	// The reviewer agent is a library of the assembly, not of storage.
	"internal/autoreview": join([]string{"gate", "internal/store", "internal/serveclient", "human", "internal/queue", "internal/triage"}, databases, top, models),
	// The vocabulary packages depend on nothing that decides.
	"tool":     join(vocabulary, databases, kernel, top, models),
	"chat":     join(vocabulary, databases, kernel, top, models),
	"boundary": join(vocabulary, databases, kernel, top, models),
	"action":   join(vocabulary, databases, kernel, top, models),
	"policy":   join(vocabulary, databases, kernel, top, models),
	// What a person reads of a call: its text made safe, its script's
	// commands.
	"internal/safetext":   join(vocabulary, databases, kernel, top, models),
	"internal/callscript": join(vocabulary, databases, kernel, top, models),
	// A call's text, as patterns and people read it, below tool itself.
	"internal/calltext": join(vocabulary, databases, kernel, top, models),
	// What a tool cut of its output travels to the loop in the context.
	"internal/cutreport": join(vocabulary, databases, kernel, top, models),
	// Policy files are read into the vocabulary's entries.
	"internal/policyfile": join(vocabulary, databases, kernel, top, models),
	"internal/vocab":      join(vocabulary, databases, kernel, top, models),
	// The kinds of event are words of the transcript, below event itself.
	"internal/eventkind": join(vocabulary, databases, kernel, top, models),
	// The numbering of a run's event ids, below event and the transcript.
	"internal/eventid": join(vocabulary, databases, kernel, top, models),
	// What a dry run observed (SPEC G17) is a record every layer reads:
	// the dry run fills it, the first pass judges it, the reviewer, the
	// person and the transcript see it. It depends on nothing that decides.
	"internal/effect": join(vocabulary, databases, kernel, top, models),
	// The first pass's judgement of a dry run's report runs no command:
	// the assembly hands it the dry run.
	"internal/triage/effects": join([]string{"internal/triage", "internal/triage/judge", "internal/dryrun"}, []string{"internal/autoreview", "agent", "gate", "model", "internal/store", "internal/serveclient", "human", "internal/queue", "sandbox", "internal/toolbox"}, databases, top, models),
	// Sealed transcripts are the record's machinery: the chain of MACs
	// and the files it seals, below storage and everything that decides.
	"internal/seal": join([]string{"event", "internal/store", "internal/serveclient"}, governance, databases, kernel, top, models),
	// What warden serve and its clients share of a credential is a few
	// hashes: no storage, nothing that decides.
	"internal/proof":      join([]string{"event", "internal/store", "internal/serveclient"}, governance, databases, kernel, top, models),
	"internal/transcript": join([]string{"internal/store", "internal/serveclient"}, governance, databases, kernel, top, models),
	// The exec rules and the sandbox decide nothing about approvals.
	"rules":   join([]string{"approval", "review", "event", "agent", "gate", "internal/store", "internal/serveclient", "human", "internal/queue", "sandbox"}, databases, top, models, []string{"!github.com/landlock-lsm/go-landlock/landlock"}),
	"sandbox": join([]string{"approval", "review", "event", "agent", "gate", "internal/store", "internal/serveclient", "human", "internal/queue", "rules"}, databases, top, models, []string{"!go.starlark.net/starlark"}),
	// The dry run (SPEC G17) is the sandbox's: it runs and reports, and
	// decides nothing.
	"internal/dryrun": join([]string{"approval", "review", "event", "agent", "gate", "internal/store", "internal/serveclient", "human", "internal/queue", "rules", "internal/autoreview", "internal/triage"}, databases, top, models, []string{"!go.starlark.net/starlark"}),
	// The model interface and its adapters know nothing of governance.
	"model":           join(vocabulary, databases, kernel, top),
	"model/anthropic": join(vocabulary, databases, kernel, top),
	"model/openai":    join(vocabulary, databases, kernel, top),
	// The gate keeps denials, overrides and the breaker around whatever
	// decides: it links no reviewer, sandbox or interpreter.
	"gate": join([]string{"internal/store", "internal/serveclient", "human", "internal/queue", "rules", "sandbox", "internal/toolbox", "internal/autoreview", "internal/triage"}, databases, kernel, top, models),
	// The denial ledger reads and seals transcript records: storage, the
	// gate, the hooks and the server use it; it sits beside event, below
	// storage and everything that decides.
	"internal/ledger": join([]string{"internal/store", "internal/serveclient"}, governance, databases, kernel, top, models),
	// Helpers that copy a tree and keep a JSON object's order serve the
	// sandbox, eval, the hooks' install and the panel alike: they know
	// nothing of decisions.
	"internal/copytree": join(vocabulary, databases, kernel, top, models),
	"internal/jsonobj":  join(vocabulary, databases, kernel, top, models),
	// The run credential is read by the hooks' lean binary: it links no
	// server, database, model or governance.
	"internal/runtoken": join([]string{"internal/serve", "internal/store", "internal/serveclient"}, governance, databases, kernel, top, models),
	// The hooks' spool (append side and drain) sits below the store,
	// which calls its drain with its own writer, and above the
	// transcript: it links no database and nothing that decides.
	"internal/spool": join([]string{"internal/store", "internal/serveclient"}, governance, databases, kernel, top, models),
	// A request and its answer are records the store, the queue and the
	// server's clients share: below all of them, with no database.
	"internal/request": join([]string{"internal/store", "internal/serveclient", "event"}, governance, databases, kernel, top, models),
	// The queue and the server client carry requests without the store,
	// and the control plane opens a store only through the opener its
	// main gives (storeplane), so that the hooks' lean binary links no
	// database; it links no model either.
	"internal/serveclient": join([]string{"internal/store"}, governance, databases, kernel, top, models),
	"internal/plane":       join([]string{"internal/store", "internal/plane/storeplane", "internal/plane/serverplane", "internal/serveclient"}, databases, kernel, top, models),
	"internal/hookcmd":     join(lean, databases, models),
	"cmd/warden-hook":      join(lean, databases, models),
	// The names of approvals_reviewer and the person's decider: read by
	// the lean hook, so free of the first pass, the reviewer agent and
	// the kernel.
	"internal/approvalsreviewer": join([]string{"internal/decider", "internal/triage", "internal/autoreview", "internal/dryrun", "sandbox", "internal/store"}, databases, top, models),
	"internal/sandboxmode":       join(governance, kernel, databases, top, models),
	// An override travels from the gate to the reviewer below both.
	"internal/override": join(vocabulary, databases, kernel, top, models),
	// The queue joins the console and the requests of a store or a
	// server, below the run; it links no database.
	"internal/queue": join([]string{"gate", "agent", "rules", "sandbox", "internal/autoreview", "internal/triage", "internal/store"}, databases, kernel, top, models),
	// What the first pass's judges ask about words and text (secrets,
	// network destinations, protections, a call's arguments, lazy
	// patterns) sits below them: no judging state, no decision vocabulary.
	"internal/triage/secret":     firstPassKnowledge,
	"internal/triage/network":    firstPassKnowledge,
	"internal/triage/protection": firstPassKnowledge,
	"internal/triage/argument":   firstPassKnowledge,
	"internal/triage/pattern":    firstPassKnowledge,
	// The first pass's machinery knows no judge: the judges register
	// with it by name, from above. The judges of programs and of file
	// edits stand side by side; the judge of tool calls may ask both (an
	// MCP edit, a tool's SQL).
	"internal/triage/judge":    {"internal/triage", "internal/triage/program", "internal/triage/fileedit", "internal/triage/tool"},
	"internal/triage/program":  {"internal/triage", "internal/triage/fileedit", "internal/triage/tool"},
	"internal/triage/fileedit": {"internal/triage", "internal/triage/program", "internal/triage/tool"},
	"internal/triage/tool":     {"internal/triage"},
	// A governed session (the run, its configuration and file) is what
	// the hooks and the MCP gateway share: it links neither adapter, no
	// MCP SDK, no server and no model adapter.
	"internal/govern": join([]string{"internal/hook", "internal/gateway", "internal/task", "internal/serve", "cmd/warden", "!github.com/modelcontextprotocol/go-sdk/mcp"}, models),
	// The hooks link no MCP gateway or SDK: a hook process stays small.
	"internal/hook": {"internal/gateway", "internal/serve", "internal/task", "cmd/warden", "!github.com/modelcontextprotocol/go-sdk/mcp"},
}

// firstPassKnowledge are the packages the first pass's knowledge of words
// and text may not depend on.
var firstPassKnowledge = join(governance, vocabulary, []string{"action", "tool", "boundary", "policy", "internal/vocab", "model"}, databases, kernel, top, models)

// deps returns the dependencies of every package of the module, by import
// path, from go list.
func deps(t *testing.T) map[string]map[string]bool {
	t.Helper()
	readSources(t)
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", mod+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	all := map[string]map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		set := map[string]bool{}
		for _, d := range f[1:] {
			set[d] = true
		}
		all[f[0]] = set
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return all
}

// readSources opens every Go file and go.mod of the module, so that go
// test's cache, which knows the files a test opens but not what go list
// reads, runs the test again whenever an import may have changed.
func readSources(t *testing.T) {
	t.Helper()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || d.Name() == "go.mod") {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			return f.Close()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// path turns a table name into an import path.
func path(name string) string {
	if p, ok := strings.CutPrefix(name, "!"); ok {
		return p
	}
	return mod + name
}

// packages returns the import paths a table key names: the package, and
// with "/..." every package below it too.
func packages(all map[string]map[string]bool, key string) []string {
	base, tree := strings.CutSuffix(key, "/...")
	var out []string
	for p := range all {
		if p == path(base) || tree && strings.HasPrefix(p, path(base)+"/") {
			out = append(out, p)
		}
	}
	return out
}

// violations returns the forbidden dependencies of the table found in all.
func violations(all map[string]map[string]bool, table map[string][]string) []string {
	var out []string
	for key, bad := range table {
		for _, pkg := range packages(all, key) {
			for _, b := range bad {
				if all[pkg][path(b)] {
					out = append(out, strings.TrimPrefix(pkg, mod)+" depends on "+strings.TrimPrefix(b, "!"))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestImportGraphRunsOneWay: no package depends, directly or not, on a
// package its layer may not see (docs/architecture.md).
func TestImportGraphRunsOneWay(t *testing.T) {
	all := deps(t)
	for pkg, bad := range forbidden {
		if len(packages(all, pkg)) == 0 {
			t.Errorf("the table names %s, which is not a package of the module", pkg)
		}
		for _, b := range bad {
			if !strings.HasPrefix(b, "!") && all[path(b)] == nil {
				t.Errorf("the table bars %s from %s, which is not a package of the module", pkg, b)
			}
		}
	}
	for _, v := range violations(all, forbidden) {
		t.Error(v)
	}
}

// TestImportGraphCheckSeesArrows: the check reads real dependencies — the
// command links the store, SQLite and the agent, so a table barring them
// from it reports each.
func TestImportGraphCheckSeesArrows(t *testing.T) {
	all := deps(t)
	got := violations(all, map[string][]string{"cmd/warden": {"internal/store", "agent", "!modernc.org/sqlite"}})
	if len(got) != 3 {
		t.Fatalf("violations %v, want the command's three arrows", got)
	}
}
