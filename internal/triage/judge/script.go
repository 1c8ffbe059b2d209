package judge

import (
	"strings"

	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/rules"
)

// Script is the state of judging one shell script.
type Script struct {
	V     *Judgement
	set   *rules.Set
	Home  string   // the user's home directory, "" when unknown ("~" paths stay as they are)
	Work  string   // the workspace root
	roots []string // the configured writable roots, resolved: judged as the workspace
	Cwd   string   // the current directory, "" when unknown
	depth int      // nesting of judged content (rc file lines, aliases)

	Escalated bool              // the command runs outside the sandbox if approved
	ReadOnly  bool              // the sandbox is read-only: no write is routine
	McpHome   bool              // an MCP call: its server's roots, not warden's sandbox, bound its writes
	links     map[string]string // symbolic links the script makes: resolved link path → target
	state     []string          // warden's own state: $WARDEN_HOME, ~/.warden, the managed config (see wardenDirs)
	stateSet  bool              // state is computed
	workDisk  bool              // the workspace exists on this machine, so links in it are looked up

	Vars     map[string]string
	Mentions []string // literal values assigned anywhere in the script
	Cmds     []Command

	// found while judging, for the flows between commands
	positional  string            // what $1… stand for while expanding a command ("" unknown)
	RemoteSink  bool              // a command sends data to a remote host
	fetchRun    bool              // a download is piped into a shell
	Tainted     map[string]int    // files the script filled with secrets (copies, archives)
	wrote       []string          // files the script writes, resolved
	secretAlias map[string]string // variables assigned from a secret variable: name → secret
	findRoots   []string
}

// Command is one simple command of the script, with its words expanded.
type Command struct {
	Sc    *shell.Command
	Name  string   // base name of the program
	Args  []string // the words, expanded as far as possible
	Known []bool   // whether each word is fully known
	Text  string   // the command as written, shortened, for messages
	Cwd   string   // the directory it runs in ("" unknown)
	items string   // the root of the paths find -exec or xargs feed it ("" none, "\x00" unknown)

	Out     int    // the secret level of what it prints
	OutWhat string // and what that is
	Sink    bool   // it sends its standard input to a remote host

	rule     vocab.Decision // strictest decision of the exec rules that matched it
	ruleSeen bool           // an exec rule matched it with certainty
	ruleWhy  string
}

// virtualWork stands for the workspace when the action does not say where
// it runs.
const virtualWork = "/.workspace"

// NewScript returns the state of judging a script run in the directory cwd
// ("" when unknown), adding its findings to v.
func NewScript(v *Judgement, set *rules.Set, cwd string) *Script {
	s := v.newScript()
	s.V, s.set = v, set
	if cwd == "" {
		s.Work, s.Cwd = virtualWork, virtualWork
		s.writableRoots()
		return s
	}
	cwd = cleanPath(cwd)
	if r, exists, ok := v.K.resolveWork(cwd, v.fresh); ok {
		cwd, s.workDisk = r, exists
	}
	s.Home = HomeOf(cwd)
	s.Cwd = cwd
	s.Work = cwd
	// A workspace at / or at a system directory is no workspace at all.
	if noWorkspace(cwd) {
		s.Work = virtualWork
	}
	s.writableRoots()
	return s
}

// writableRoots sets s.roots from the run's configured writable roots,
// resolved, leaving out those that bound nothing.
func (s *Script) writableRoots() {
	if s.V.K == nil {
		return
	}
	for _, r := range s.V.K.roots {
		r = cleanPath(r)
		if !strings.HasPrefix(r, "/") {
			continue
		}
		if got, ok := s.V.K.resolveDir(r, s.V.fresh); ok {
			r = got
		}
		if !noWorkspace(r) && r != s.Home {
			s.roots = append(s.roots, r)
		}
	}
}

// noWorkspace reports whether a directory is too broad to be a workspace or
// a writable root judged as one: the file system, a top-level or critical
// system directory, a directory of homes, the shared temporary directory.
func noWorkspace(dir string) bool {
	return dir == "/" || topLevel[dir] || CriticalSystemPath(dir) || dir == "/home" || dir == "/Users" || dir == "/tmp"
}

// Allow finds the command routine, for reason.
func (s *Script) Allow(reason string) { s.V.Add(Finding{vocab.Allow, vocab.Routine, Low, reason}) }

// Esc passes the action on, for reason, in class at risk.
func (s *Script) Esc(class vocab.Class, risk int, reason string) {
	s.V.Add(Finding{vocab.Escalate, class, risk, reason})
}

// Deny denies the action, for reason, in class.
func (s *Script) Deny(class vocab.Class, reason string) {
	s.V.Add(Finding{vocab.Deny, class, Critical, reason})
}

// Content returns what an echo or printf writes, "" otherwise.
func (c *Command) Content() string {
	switch c.Name {
	case "echo", "printf":
		var parts []string
		for i := 1; i < len(c.Args); i++ {
			if c.Name == "echo" && i == 1 && strings.HasPrefix(c.Args[i], "-") {
				continue
			}
			parts = append(parts, c.Args[i])
		}
		return strings.Join(parts, " ")
	}
	return ""
}
