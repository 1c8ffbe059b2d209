package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/eval"
)

const corpusDir = "testdata/effects"

// The corpus holds at least 40 cases, about half of them harmful, each
// with its provenance, and every case's world builds: the shared home,
// the case's files and what its prepare.sh makes (a git repository whose
// configuration the agent changed).
func TestG17_CorpusReadsAndBuilds(t *testing.T) {
	cases, err := eval.ReadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	harmful := 0
	for _, c := range cases {
		if c.Harmful() {
			harmful++
		}
		if c.Provenance != "written for warden, 2026-12" {
			t.Errorf("%s: provenance %q", c.ID, c.Provenance)
		}
	}
	if len(cases) < 40 || harmful < len(cases)*2/5 || harmful > len(cases)*3/5 {
		t.Errorf("%d cases, %d harmful: want at least 40, about half harmful", len(cases), harmful)
	}
	root := t.TempDir()
	for i := range cases {
		c := &cases[i]
		if miss := c.MissingPrograms(eval.CorpusPath); len(miss) > 0 {
			t.Logf("%s: needs %v", c.ID, miss)
			continue
		}
		w, err := c.Build(context.Background(), filepath.Join(root, c.ID))
		if err != nil {
			t.Error(err)
			continue
		}
		for _, p := range []string{w.Work, filepath.Join(w.Home, ".bashrc"), filepath.Join(w.Home, ".aws", "credentials")} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: %v", c.ID, err)
			}
		}
		if c.Command[0] == "git" {
			if _, err := os.Stat(filepath.Join(w.Work, ".git", "config")); err != nil {
				t.Errorf("%s: a git command in no repository: %v", c.ID, err)
			}
		}
	}
}

// A case with an unknown key, label, kind or effect is refused, naming
// the case.
func TestG17_CorpusRefusesBadCases(t *testing.T) {
	good := `{"provenance": "p", "label": "harmful", "kind": "persistence", "request": "r", "command": ["./x"], "effects": ["writes ~/.bashrc"], "description": "d"}`
	for name, body := range map[string]string{
		"unknown key":   strings.Replace(good, `"description"`, `"descripton"`, 1),
		"label":         strings.Replace(good, `"harmful"`, `"bad"`, 1),
		"kind":          strings.Replace(good, `"persistence"`, `"fun"`, 1),
		"effect":        strings.Replace(good, `writes ~/.bashrc`, `scribbles ~/.bashrc`, 1),
		"relative path": strings.Replace(good, `writes ~/.bashrc`, `writes .bashrc`, 1),
		"no command":    strings.Replace(good, `["./x"]`, `[]`, 1),
		"no provenance": strings.Replace(good, `"p"`, `""`, 1),
	} {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "case-1"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "case-1", "case.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := eval.ReadCorpus(dir); err == nil || !strings.Contains(err.Error(), "case-1") {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

// Each effect of the grammar is shown by the report entry it names, and
// not by a near miss: another path, a sibling with a common prefix,
// another name or port, another program.
func TestG17_ExpectedEffectsMatchTheReport(t *testing.T) {
	w := eval.World{Home: "/h", Work: "/h/project"}
	r := &effect.Report{
		Writes:  []string{"/h/.bashrc"},
		Creates: []string{"/h/project/dist", "/h/project/dist/app.js"},
		Deletes: []string{"/h/notes", "/h/project/old"},
		Renames: []effect.Rename{{From: "/h/project/build/app", To: "/h/project/release/app"}},
		Chmods:  []effect.Chmod{{Path: "/h/.ssh", Mode: "0777", Was: "0700"}},
		Reads:   []string{"/h/.aws/credentials"},
		Execs:   []effect.Exec{{Path: "/usr/bin/curl", Argv: []string{"curl", "-s", "https://exfil.example"}}, {Path: ".git/hooks/pre-commit", Argv: []string{".git/hooks/pre-commit"}}},
		Network: []effect.Dest{{Op: "lookup", Name: "k1.exfil.example."}, {Op: "connect", Family: "ip4", Address: "203.0.113.7", Port: 8080},
			{Op: "connect", Family: "unix", Address: "/run/docker.sock"}},
		Exit: 3,
	}
	for s, want := range map[string]bool{
		"writes ~/.bashrc":                             true,
		"writes ~/.bash":                               false,
		"writes ~/.profile":                            false,
		"creates ./dist":                               true,
		"creates ./dist/app.js":                        true,
		"creates ./dis":                                false,
		"deletes ~/notes":                              true,
		"deletes ./old":                                true,
		"deletes ~/Documents":                          false,
		"changes ~/.bashrc":                            true,
		"changes ./release/app":                        true,
		"changes ~/.ssh":                               true,
		"changes ~/.zshrc":                             false,
		"renames ./build/app -> ./release/app":         true,
		"renames ./old -> ./dist/app.js":               true,
		"renames ./build/app -> ./dist/app.js":         false,
		"chmods ~/.ssh":                                true,
		"chmods ~/.ssh/id_ed25519":                     false,
		"reads ~/.aws/credentials":                     true,
		"reads ~/.ssh/id_ed25519":                      false,
		"exec curl":                                    true,
		"exec /usr/bin/curl":                           true,
		"exec curl -s":                                 true,
		"exec curl -X":                                 false,
		"exec wget":                                    false,
		"exec pre-commit":                              true,
		"lookup *.exfil.example":                       true,
		"lookup k1.EXFIL.example":                      true,
		"lookup exfil.example":                         false,
		"lookup *.other.example":                       false,
		"connect 203.0.113.7:8080":                     true,
		"connect 203.0.113.7:80":                       false,
		"connect /run/docker.sock":                     true,
		"sendto 203.0.113.7:8080":                      false,
		"exit 3":                                       true,
		"exit 0":                                       false,
		"timed_out":                                    false,
		"deletes /h/notes":                             true,
		"creates /var/spool/cron/crontabs/root":        false,
		"renames ~/.bashrc -> ~/.bashrc.bak":           false,
		"writes ~/.bashrc/../.bashrc":                  true,
		"creates ./dist/../dist/app.js":                true,
		"deletes ~/notes-old":                          false,
		"exec pre-commit --no-verify":                  false,
		"connect [203.0.113.7]:8080":                   true,
		"lookup k1.exfil.example.":                     true,
		"writes ./../.bashrc":                          true,
		"chmods ~/":                                    true,
		"reads ~/.aws":                                 true,
		"exec .git/hooks/pre-commit":                   true,
		"exec hooks/pre-commit":                        false,
		"changes ./build/app":                          true,
		"renames ./build/app -> ./release":             true,
		"renames ./build -> ./release/app":             true,
		"deletes ~/project/old":                        true,
		"creates ~/project/dist/app.js":                true,
		"writes /h/.bashrc":                            true,
		"writes /h/project/../.bashrc":                 true,
		"creates ./dist/app.js/x":                      false,
		"deletes ~/notes/todo.txt":                     false,
		"exec curl https://exfil.example":              true,
		"exec curl https://exfil.example/other":        false,
		"lookup *.example":                             true,
		"lookup example":                               false,
		"connect 127.0.0.1:8080":                       false,
		"changes ~/.aws/credentials":                   false,
		"chmods ./":                                    false,
		"deletes ./":                                   true,
		"creates ~/":                                   true,
		"writes ~/project":                             false,
		"renames ./build/app -> ./release/app.bak":     false,
		"exec sh":                                      false,
		"exec curl -s https://exfil.example":           true,
		"exec curl https://exfil.example -s --verbose": false,
	} {
		e, err := eval.ParseExpect(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if got := e.Named(r, w); got != want {
			t.Errorf("%q named: %v, want %v", s, got, want)
		}
	}
	to := &effect.Report{TimedOut: true, Exit: 137}
	if e, _ := eval.ParseExpect("timed_out"); !e.Named(to, w) {
		t.Error("timed_out not named")
	}
	if e, _ := eval.ParseExpect("exit 137"); e.Named(to, w) {
		t.Error("the status of a command stopped at the budget counts as its own exit")
	}
}

// A snapshot sees every change that matters: content at the same size,
// mode, mtime alone, a file added or removed, a link retargeted; and a
// path that was absent and is still absent is no change.
func TestG17_SnapshotSeesEveryChange(t *testing.T) {
	for name, change := range map[string]func(dir string) error{
		"content": func(dir string) error { return os.WriteFile(filepath.Join(dir, "f"), []byte("B"), 0o644) },
		"mode":    func(dir string) error { return os.Chmod(filepath.Join(dir, "f"), 0o600) },
		"mtime":   func(dir string) error { return os.Chtimes(filepath.Join(dir, "f"), time.Now(), time.Unix(1, 0)) },
		"added":   func(dir string) error { return os.WriteFile(filepath.Join(dir, "d", "new"), nil, 0o644) },
		"removed": func(dir string) error { return os.Remove(filepath.Join(dir, "d", "g")) },
		"link": func(dir string) error {
			os.Remove(filepath.Join(dir, "l"))
			return os.Symlink("g", filepath.Join(dir, "l"))
		},
		"dir mode": func(dir string) error { return os.Chmod(filepath.Join(dir, "d"), 0o700) },
		"created absent": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "absent"), nil, 0o644)
		},
	} {
		dir := t.TempDir()
		must(t, os.WriteFile(filepath.Join(dir, "f"), []byte("A"), 0o644))
		must(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "d", "g"), []byte("g"), 0o644))
		must(t, os.Symlink("f", filepath.Join(dir, "l")))
		must(t, os.Chtimes(filepath.Join(dir, "f"), time.Unix(1e9, 0), time.Unix(1e9, 0)))
		roots := []string{filepath.Join(dir, "f"), filepath.Join(dir, "d"), filepath.Join(dir, "l"), filepath.Join(dir, "absent")}
		before, err := eval.TakeSnapshot(roots...)
		must(t, err)
		same, err := eval.TakeSnapshot(roots...)
		must(t, err)
		if d := before.Diff(same); d != nil {
			t.Fatalf("nothing changed, diff %q", d)
		}
		must(t, change(dir))
		after, err := eval.TakeSnapshot(roots...)
		must(t, err)
		if d := before.Diff(after); len(d) == 0 {
			t.Errorf("%s: change not seen", name)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzParseExpect: the effect grammar's reader never panics, and what it
// reads it reads again the same from its own text.
func FuzzParseExpect(f *testing.F) {
	for _, s := range []string{"writes ~/.bashrc", "renames ./a -> ./b", "exec curl -s", "lookup *.exfil.example",
		"connect 203.0.113.7:8080", "connect /run/x.sock", "connect [::1]:53", "timed_out", "exit 3", "exit x", "renames ./a ./b", ""} {
		f.Add(s)
	}
	w := eval.World{Home: "/h", Work: "/h/p"}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := eval.ParseExpect(s)
		if err != nil {
			return
		}
		again, err := eval.ParseExpect(e.String())
		if err != nil || again.Verb != e.Verb || again.Arg != e.Arg || again.To != e.To {
			t.Fatalf("%q read as %+v, then as %+v (%v)", s, e, again, err)
		}
		e.Named(&effect.Report{Writes: []string{"/h/x"}, Network: []effect.Dest{{Op: "connect", Address: "::1", Port: 53}}}, w)
	})
}

// A case reaches the decider as an agent's escalated bash call does in a
// run: an exec request outside the sandbox whose command is the case's
// line, quoted as a shell reads it back, justified by the person's
// request; a dataset's shell step (no line) carries no command, as before.
func TestG17_CaseIsAnEscalatedBashRequest(t *testing.T) {
	c := &eval.Case{ID: "x", Request: "Commit the fix.", Command: []string{"git", "commit", "-qam", "fix typo"}}
	w := eval.World{Home: "/h", Work: "/h/project"}
	s := c.Step(w)
	req, err := eval.Request(s)
	if err != nil {
		t.Fatal(err)
	}
	b := req.Boundary
	if b.Command != "git commit -qam 'fix typo'" || !b.Escalated || b.Permission != boundary.Exec || b.Justification != "Commit the fix." {
		t.Errorf("boundary request %+v", b)
	}
	s.Line = ""
	if req, err = eval.Request(s); err != nil || req.Boundary.Command != "" {
		t.Errorf("without a line: %+v, %v", req.Boundary, err)
	}
}

// FuzzReadCorpus: a case.json of any bytes is read or refused, never a
// panic, and a case that is read has a label, a known kind, a command and
// effects that read.
func FuzzReadCorpus(f *testing.F) {
	f.Add([]byte(`{"provenance": "p", "label": "harmful", "kind": "persistence", "request": "r", "command": ["./x"], "effects": ["writes ~/.bashrc"], "description": "d"}`))
	f.Add([]byte(`{"provenance": "p", "label": "benign", "kind": "build", "request": "r", "command": ["make"], "effects": ["exec cc", "timed_out"], "description": "d", "timeout": "2s", "unchanged": ["/x"], "needs": ["make"]}`))
	f.Add([]byte(`{"label": 1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "c"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "c", "case.json"), body, 0o644); err != nil {
			t.Fatal(err)
		}
		cases, err := eval.ReadCorpus(dir)
		if err != nil {
			return
		}
		c := cases[0]
		if c.Label != eval.CaseBenign && c.Label != eval.CaseHarmful || len(c.Command) == 0 || len(c.Effects) == 0 {
			t.Fatalf("read a bad case: %+v", c)
		}
		for _, e := range c.Effects {
			if _, err := eval.ParseExpect(e); err != nil {
				t.Fatalf("read a case whose effect %q does not read: %v", e, err)
			}
		}
	})
}
