package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/copytree"
	"github.com/wardenhq/warden/internal/shell"
)

// The effects corpus (SPEC G17): requests whose effects are hidden from
// their text — a script, a Makefile, a package.json, a git repository whose
// configuration the agent changed — each in a directory of its own with the
// files the agent wrote earlier, the command it asks to run, its label and
// the effects a dry run must show. testdata/effects/README.md is the
// schema.

// Case is one request of the effects corpus.
type Case struct {
	// ID is the name of the case's directory.
	ID string `json:"-"`
	// Dir is the case's directory.
	Dir string `json:"-"`
	// Provenance says who wrote the case and when.
	Provenance string `json:"provenance"`
	// Label is CaseBenign or CaseHarmful.
	Label string `json:"label"`
	// Kind is what the request is (one of CaseKinds): "build",
	// "exfiltration", ….
	Kind string `json:"kind"`
	// Request is what the person asked the agent.
	Request string `json:"request"`
	// Command is the argv the agent asks to run, in the workspace.
	Command []string `json:"command"`
	// Effects are what a dry run of Command must show (see ParseExpect).
	Effects []string `json:"effects"`
	// Description says what the command really does.
	Description string `json:"description"`
	// Needs are the programs the case needs on PATH (it is skipped
	// where one is missing).
	Needs []string `json:"needs,omitempty"`
	// Timeout is the dry run's budget for the case (a Go duration), ""
	// for the runner's default.
	Timeout string `json:"timeout,omitempty"`
	// Unchanged are absolute paths outside the home directory that must
	// be the same (or as absent) after the dry run as before it.
	Unchanged []string `json:"unchanged,omitempty"`

	expects []Expect
}

// The labels of a case.
const (
	CaseBenign  = "benign"
	CaseHarmful = "harmful"
)

// CaseKinds are the kinds a case may have: the harms (exfiltration,
// persistence, destruction, credential_theft) and the ordinary work
// (build, test, formatter, codegen, installer, cleaner).
var CaseKinds = []string{"exfiltration", "persistence", "destruction", "credential_theft",
	"build", "test", "formatter", "codegen", "installer", "cleaner"}

// caseFile is the file of a case's directory that describes it; homeDir
// and workDir hold the files the agent wrote earlier, in the home
// directory and the workspace; prepareFile, when there is one, is run to
// finish the world (git repositories cannot be kept as files); sharedHome
// is the corpus's home directory every case starts from.
const (
	caseFile    = "case.json"
	homeDir     = "home"
	workDir     = "work"
	prepareFile = "prepare.sh"
	sharedHome  = "_home"
)

// ReadCorpus reads the cases of the corpus in dir, in the order of their
// directory names (directories starting with "_" are not cases). Every
// case.json must have exactly the known keys, a label, a known kind, a
// command, at least one effect that ParseExpect reads and a provenance.
func ReadCorpus(dir string) ([]Case, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("effects corpus: %w", err)
	}
	var cases []Case
	var errs []error
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), "_") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		c, err := readCase(filepath.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cases = append(cases, c)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("effects corpus %s: no case", dir)
	}
	return cases, nil
}

func readCase(dir string) (Case, error) {
	c := Case{ID: filepath.Base(dir), Dir: dir}
	b, err := os.ReadFile(filepath.Join(dir, caseFile))
	if err != nil {
		return c, fmt.Errorf("case %s: %w", c.ID, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("case %s: %s: %w", c.ID, caseFile, err)
	}
	fail := func(format string, args ...any) (Case, error) {
		return c, fmt.Errorf("case %s: %s", c.ID, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Label != CaseBenign && c.Label != CaseHarmful:
		return fail("label %q: want %q or %q", c.Label, CaseBenign, CaseHarmful)
	case !slices.Contains(CaseKinds, c.Kind):
		return fail("kind %q: want one of %s", c.Kind, strings.Join(CaseKinds, ", "))
	case len(c.Command) == 0 || c.Command[0] == "":
		return fail("no command")
	case len(c.Effects) == 0:
		return fail("no effect to show")
	case c.Provenance == "":
		return fail("no provenance")
	}
	if c.Timeout != "" {
		if d, err := time.ParseDuration(c.Timeout); err != nil || d <= 0 {
			return fail("timeout %q: want a positive duration", c.Timeout)
		}
	}
	for _, p := range c.Unchanged {
		if !filepath.IsAbs(p) {
			return fail("unchanged %q: want an absolute path", p)
		}
	}
	for _, s := range c.Effects {
		e, err := ParseExpect(s)
		if err != nil {
			return fail("effect %q: %v", s, err)
		}
		c.expects = append(c.expects, e)
	}
	return c, nil
}

// Harmful reports whether the case is labelled harmful.
func (c *Case) Harmful() bool { return c.Label == CaseHarmful }

// MissingPrograms returns the programs of Needs not found on path (a PATH
// value), nil when every one is there.
func (c *Case) MissingPrograms(path string) []string {
	var out []string
	for _, n := range c.Needs {
		if !onPath(n, path) {
			out = append(out, n)
		}
	}
	return out
}

func onPath(name, path string) bool {
	for _, d := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

// Step returns the boundary request c makes, as an agent's escalated bash
// call makes it in a run: the command line (Command quoted) to run in w's
// workspace outside the sandbox, justified by the person's request, which
// is also the conversation.
func (c *Case) Step(w World) Step {
	line := shell.Join(c.Command)
	return Step{Action: action.Action{Kind: action.Shell, Command: action.BashArgv(line), Cwd: w.Work,
		SandboxPermissions: action.RequireEscalated, Justification: c.Request, Sandbox: "workspace-write"},
		Request: c.Request, Line: line}
}

// World is the throw-away machine state a case runs in: a home directory
// and, inside it, the workspace (Home/project), as a person's checkout
// sits in their home.
type World struct {
	// Home is the home directory; Work the workspace, inside it.
	Home, Work string
	// Path is the PATH commands run with.
	Path string
}

// CorpusPath is the PATH a case's commands run with: the system's
// directories and Go's, and none of a version manager's shims (which
// would look for their state in the real home directory).
const CorpusPath = "/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Env returns the environment of a command run in w: HOME, PATH, a plain
// locale and terminal, git kept from the machine's system configuration,
// npm's update check off (it would look up its registry: a lookup of the
// harness, not of the case) and Python writing no byte code into the
// corpus's sources when it imports them.
func (w World) Env() []string {
	return []string{
		"HOME=" + w.Home, "PATH=" + w.Path, "LANG=C.UTF-8", "TERM=dumb", "USER=root", "LOGNAME=root",
		"GIT_CONFIG_NOSYSTEM=1", "NPM_CONFIG_UPDATE_NOTIFIER=false", "NPM_CONFIG_FUND=false", "NPM_CONFIG_AUDIT=false",
	}
}

// Build makes the case's world under root (an empty directory, outside
// the temporary directories a sandbox makes private): the corpus's shared
// home directory and the case's own home files in root/home, its
// workspace files in root/home/project, then its prepare.sh, run in the
// workspace with the world's environment and CASE set to the case's
// directory (it makes git repositories and what cannot be kept as files).
func (c *Case) Build(ctx context.Context, root string) (World, error) {
	w := World{Home: filepath.Join(root, "home"), Path: CorpusPath}
	w.Work = filepath.Join(w.Home, "project")
	if err := os.MkdirAll(w.Work, 0o755); err != nil {
		return w, fmt.Errorf("case %s: %w", c.ID, err)
	}
	for _, cp := range []struct{ from, to string }{
		{filepath.Join(filepath.Dir(c.Dir), sharedHome), w.Home},
		{filepath.Join(c.Dir, homeDir), w.Home},
		{filepath.Join(c.Dir, workDir), w.Work},
	} {
		if _, err := os.Stat(cp.from); errors.Is(err, fs.ErrNotExist) {
			continue // a missing tree is nothing to copy
		}
		if err := copytree.Copy(cp.from, cp.to, copytree.Options{KeepModes: true, RefuseSpecial: true}); err != nil {
			return w, fmt.Errorf("case %s: %w", c.ID, err)
		}
	}
	// Git keeps only the executable bit: a private key is the owner's.
	_ = os.Chmod(filepath.Join(w.Home, ".ssh", "id_ed25519"), 0o600)
	_ = os.Chmod(filepath.Join(w.Home, ".ssh"), 0o700)
	prep := filepath.Join(c.Dir, prepareFile)
	if _, err := os.Stat(prep); err == nil {
		abs, err := filepath.Abs(c.Dir)
		if err != nil {
			return w, fmt.Errorf("case %s: %w", c.ID, err)
		}
		cmd := exec.CommandContext(ctx, "/bin/sh", filepath.Join(abs, prepareFile))
		cmd.Dir = w.Work
		cmd.Env = append(w.Env(), "CASE="+abs)
		if out, err := cmd.CombinedOutput(); err != nil {
			return w, fmt.Errorf("case %s: %s: %w: %s", c.ID, prepareFile, err, out)
		}
	}
	return w, nil
}
