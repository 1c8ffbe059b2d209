package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/hook/hosttest"
	"github.com/wardenhq/warden/internal/hook/install"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/store"
)

// hostBinary finds a real host's binary, skipping the test without it
// (failing it in CI, WARDEN_REQUIRE_HOSTS).
func hostBinary(t *testing.T, name, env string) string { return hosttest.Need(t, name, env) }

// realHost runs one real host offline, in dir (home, proj, tmp), with a
// loopback model asking it to run command, and returns its output and the
// model's requests.
type realHost struct {
	name, bin, env string
	// run runs the host; extra are more arguments of its command line
	// (Claude Code's).
	run func(t *testing.T, bin, dir, cwd, wh, command string, extra ...string) (string, []string)
}

var realHosts = []realHost{
	{"claude-code", "claude", "WARDEN_TEST_CLAUDE", runClaude},
	{"gemini", "gemini", "WARDEN_TEST_GEMINI", runGemini},
	{"codex", "codex", "WARDEN_TEST_CODEX", runCodex},
}

// runCodex runs `codex exec` with the hooks and trust `warden hook install
// codex` wrote in CODEX_HOME: its model settings go before them in
// config.toml. No --dangerously-bypass-hook-trust: Codex runs the hooks
// because it trusts them.
func runCodex(t *testing.T, bin, dir, cwd, wh, command string, _ ...string) (string, []string) {
	model := hosttest.NewResponses(t, command)
	codexHome := filepath.Join(dir, "home", ".codex")
	cfg := filepath.Join(codexHome, "config.toml")
	trust, _ := os.ReadFile(cfg)
	settings := "model = \"gpt-5\"\nmodel_provider = \"fake\"\ncheck_for_update_on_startup = false\n\n" +
		"[model_providers.fake]\nname = \"fake\"\nbase_url = \"" + model.URL + "\"\nwire_api = \"responses\"\nenv_key = \"FAKE_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n" +
		"[analytics]\nenabled = false\n\n[features]\nplugins = false\n\n"
	if err := os.WriteFile(cfg, append([]byte(settings), trust...), 0o600); err != nil {
		t.Fatal(err)
	}
	out := runHost(t, "codex", bin, dir, cwd, wh, strings.NewReader(""), []string{"exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write", "delete important.txt"},
		"CODEX_HOME="+codexHome, "FAKE_KEY=dummy")
	return out, model.Requests()
}

func runClaude(t *testing.T, bin, dir, cwd, wh, command string, extra ...string) (string, []string) {
	model := hosttest.NewAnthropic(t, command)
	out := runHost(t, "claude", bin, dir, cwd, wh, nil, append([]string{"-p", "delete important.txt", "--output-format", "stream-json", "--verbose"}, extra...),
		"ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "IS_SANDBOX=1")
	return out, model.Requests()
}

func runGemini(t *testing.T, bin, dir, cwd, wh, command string, _ ...string) (string, []string) {
	model := hosttest.NewGemini(t, command)
	out := runHost(t, "gemini", bin, dir, cwd, wh, nil, []string{"-p", "delete important.txt", "--output-format", "stream-json", "--yolo"},
		"GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_API_KEY=dummy", "GEMINI_CLI_TRUST_WORKSPACE=true")
	return out, model.Requests()
}

// runHost runs a host's binary bin with args in cwd, reading stdin (nil:
// none), with its home and temporary files in dir, warden's home wh and
// env, for two minutes at the most, and returns what it printed; a failed
// run fails the test.
func runHost(t *testing.T, name, bin, dir, cwd, wh string, stdin io.Reader, args []string, env ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Stdin = cwd, stdin
	cmd.Env = append(append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "TMPDIR="+filepath.Join(dir, "tmp"), "WARDEN_HOME="+wh, "WARDEN_DB="), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out.String())
	}
	return out.String()
}

// TestX1_RealHostsKeepAFileWardenRejects drives the real Claude Code,
// Gemini CLI and Codex, offline against a loopback model that asks each to delete a
// file, through the hooks `warden hook install HOST` writes (at user
// scope; Claude Code also at project scope): with an approval policy that
// rejects the deletion, the file survives and the model receives warden's
// reason; with one that approves, the file is gone. Either way the host
// read every answer (no hook failed) and the session is a run whose
// transcript verifies, with its turn, its approval and, when the call
// ran, its result. Each case runs twice: with the hooks running `warden
// hook HOST`, and `warden-hook HOST` (what install writes where warden-hook
// sits beside warden).
func TestX1_RealHostsKeepAFileWardenRejects(t *testing.T) {
	for _, host := range realHosts {
		t.Run(host.name, func(t *testing.T) {
			bin := hostBinary(t, host.bin, host.env)
			for _, tc := range []struct {
				name, policy, scope string
				survives            bool
				sandbox             bool
			}{
				{"reject", "approvers:\n  - name: auto\n    decision: reject\n    explanation: no deleting here\n    tools: [\"Bash(command='rm \", \"run_shell_command(command='rm \"]\n  - name: auto\n    decision: approve\n", "user", true, false},
				{"approve", "approvers:\n  - name: auto\n    decision: approve\n", "project", false, false},
				// Approved but confined: the deletion is outside the
				// workspace (the model works in proj/work), so it fails.
				{"sandbox", "approvers:\n  - name: auto\n    decision: approve\n", "user", true, true},
			} {
				if tc.sandbox && host.name == "codex" {
					continue // Codex takes no changed input: its own sandbox confines it
				}
				for _, runner := range []string{"warden", "warden-hook"} {
					t.Run(tc.name+"/"+runner, func(t *testing.T) {
						if host.name == "gemini" && tc.scope == "project" {
							tc.scope = "user" // project hooks need a trusted folder
						}
						dir := t.TempDir()
						home, project, wh, victim := hostDirs(dir)
						conf, cwd := "approval: policy.yaml\n", project
						if tc.sandbox {
							conf += "sandbox: workspace-write\n"
							cwd = filepath.Join(project, "work")
							os.MkdirAll(cwd, 0o700)
						}
						os.WriteFile(filepath.Join(wh, "hooks.yaml"), []byte(conf), 0o600)
						os.WriteFile(filepath.Join(wh, "policy.yaml"), []byte(tc.policy), 0o600)
						if host.name == "codex" && tc.scope == "project" {
							tc.scope = "user" // project hooks need a trusted project
						}
						h, _ := hook.Lookup(host.name)
						p := install.Place{Scope: tc.scope, Home: home, Project: cwd, CodexHome: filepath.Join(home, ".codex"),
							Command: shell.Quote(binary(t)) + " hook " + host.name}
						if runner == "warden-hook" {
							p.Command = shell.Quote(fastBinary(t)) + " " + host.name
						}
						if _, err := install.Install(h, p, false); err != nil {
							t.Fatal(err)
						}
						out, reqs := host.run(t, bin, dir, cwd, wh, "rm "+shell.Quote(victim))
						_, err := os.Stat(victim)
						if survives := err == nil; survives != tc.survives {
							t.Fatalf("important.txt survives: %v, want %v\n%s:\n%s", survives, tc.survives, host.name, out)
						}
						if tc.survives && !tc.sandbox && (len(reqs) < 2 || !strings.Contains(reqs[len(reqs)-1], "no deleting here")) {
							t.Fatalf("the model did not receive warden's reason: %v", reqs)
						}
						if tc.sandbox && (len(reqs) < 2 || !strings.Contains(reqs[len(reqs)-1], "sandbox")) {
							t.Fatalf("the sandbox's hint did not reach the model in the tool's output: %v", reqs[len(reqs)-1])
						}
						if strings.Contains(out, "hook error") || strings.Contains(out, "could not decide") {
							t.Fatalf("a hook failed (warden could not read what %s sent):\n%s", host.name, out)
						}
						runs, _ := filepath.Glob(filepath.Join(wh, "runs", host.name+"-*.jsonl"))
						if len(runs) != 1 {
							t.Fatalf("runs %v, want the session's", runs)
						}
						if code, o, e := runWith(t, wh, "transcript", "verify", runs[0]); code != 0 {
							t.Fatalf("verify: %s %s", o, e)
						}
						_, shown, _ := runWith(t, wh, "transcript", "show", runs[0])
						want := []string{`turn      "delete important.txt"`, "(command='rm "}
						if !tc.survives {
							want = append(want, "tool ")
						}
						for _, w := range want {
							if !strings.Contains(shown, w) {
								t.Fatalf("the transcript lacks %q:\n%s", w, shown)
							}
						}
					})
				}
			}
		})
	}
}

// TestX1_RealHostsOnAFailedHook shows what each real host does when its
// hook crashes (killed by a signal, as the kernel's OOM killer would) or
// outlives the host's timeout, for docs/hooks.md: none of Claude Code
// 2.1.197, Gemini CLI 0.61.0 and Codex 0.171.0 has a switch that makes a
// failed hook block, and each lets the call run (the file is deleted):
// Claude Code goes on to its own permission check, which here lets every
// call run (--permission-mode bypassPermissions; in -p mode without it or
// an allow rule, that check denies a shell call, and the file survives).
// warden's hook itself never fails that way by its own doing: every error
// is the host's deny (TestX1_NeverFailsOpen), a Go panic exits 2 (a block),
// and install gives each handler a timeout above warden's own.
func TestX1_RealHostsOnAFailedHook(t *testing.T) {
	scripts := map[string]string{
		"crash":   "#!/bin/sh\ncat >/dev/null\nkill -KILL $$\n",
		"timeout": "#!/bin/sh\ncat >/dev/null\nexec sleep 20\n",
	}
	// survives says whether the file a failed hook was to guard survives.
	survives := map[string]bool{}
	for _, host := range realHosts {
		t.Run(host.name, func(t *testing.T) {
			bin := hostBinary(t, host.bin, host.env)
			for _, failure := range []string{"crash", "timeout"} {
				t.Run(failure, func(t *testing.T) {
					dir := t.TempDir()
					home, project, wh, victim := hostDirs(dir)
					fake := filepath.Join(dir, "bin", "warden")
					os.MkdirAll(filepath.Dir(fake), 0o700)
					os.WriteFile(fake, []byte(scripts[failure]), 0o755)
					h, _ := hook.Lookup(host.name)
					p := install.Place{Scope: "user", Home: home, Project: project, CodexHome: filepath.Join(home, ".codex"),
						Command: shell.Quote(fake) + " hook " + host.name}
					if failure == "timeout" {
						p.Timeout = 2
						if host.name == "gemini" {
							p.Timeout = 2000 // milliseconds
						}
					}
					if _, err := install.Install(h, p, false); err != nil {
						t.Fatal(err)
					}
					start := time.Now()
					out, _ := host.run(t, bin, dir, project, wh, "rm "+shell.Quote(victim), "--permission-mode", "bypassPermissions")
					_, err := os.Stat(victim)
					if err == nil != survives[host.name+"/"+failure] {
						t.Fatalf("%s, hook %s: important.txt survives: %v, want %v (docs/hooks.md) after %v:\n%s", host.name, failure, err == nil, survives[host.name+"/"+failure], time.Since(start), out)
					}
				})
			}
		})
	}
}

// hostDirs makes a real host's directories in dir: its home (with Gemini
// CLI's settings for an API key), the project with the model's scripted
// target important.txt, warden's home and tmp.
func hostDirs(dir string) (home, project, wh, victim string) {
	home, project, wh = filepath.Join(dir, "home"), filepath.Join(dir, "proj"), filepath.Join(dir, "warden")
	for _, d := range []string{home, project, wh, filepath.Join(dir, "tmp"), filepath.Join(home, ".gemini")} {
		os.MkdirAll(d, 0o700)
	}
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},"general":{"disableAutoUpdate":true}}`), 0o600)
	victim = filepath.Join(project, "important.txt")
	os.WriteFile(victim, []byte("keep me\n"), 0o600)
	return home, project, wh, victim
}

// hostPlace prepares a real host's directories in dir (home, proj, warden
// state) with the model's scripted target important.txt, writes warden's
// hooks.yaml (conf) and the files it names, and installs the hooks at user
// scope. It returns the project, warden's home and the file.
func hostPlace(t *testing.T, host, dir, conf string, files map[string]string) (project, wh, victim string) {
	t.Helper()
	home, project, wh, victim := hostDirs(dir)
	os.WriteFile(filepath.Join(wh, "hooks.yaml"), []byte(conf), 0o600)
	for name, text := range files {
		os.WriteFile(filepath.Join(wh, name), []byte(text), 0o600)
	}
	h, _ := hook.Lookup(host)
	p := install.Place{Scope: "user", Home: home, Project: project, CodexHome: filepath.Join(home, ".codex"),
		Command: shell.Quote(binary(t)) + " hook " + host}
	if _, err := install.Install(h, p, false); err != nil {
		t.Fatal(err)
	}
	return project, wh, victim
}

// TestX1_RealHostsReadEveryRow drives the rows of the table that
// TestX1_RealHostsKeepAFileWardenRejects does not through the real Claude
// Code, Gemini CLI and Codex, offline, through the hooks install wrote:
//   - terminate: the file survives; Gemini CLI ends the turn (the model is
//     not asked again); Codex, which has no stop, and Claude Code 2.1.197,
//     which in -p mode goes on after a PreToolUse's continue: false, deny
//     the call and the reason reaches the model (the rest of the turn is
//     denied by warden: TestX1_TerminateEndsTheTurnsCalls);
//   - review terminate: the call ran (the file is gone) and the review's
//     reason reaches the model in place of going on as if nothing happened;
//   - escalate with a person on the store's queue (none of the three has a
//     usable ask in headless mode): the hook blocks, the file is there while
//     the request is pending, and once the person approves, the call runs.
func TestX1_RealHostsReadEveryRow(t *testing.T) {
	for _, host := range realHosts {
		t.Run(host.name, func(t *testing.T) {
			bin := hostBinary(t, host.bin, host.env)
			t.Run("terminate", func(t *testing.T) {
				dir := t.TempDir()
				project, wh, victim := hostPlace(t, host.name, dir, "approval: policy.yaml\n", map[string]string{"policy.yaml": "approvers:\n  - name: auto\n    decision: terminate\n    explanation: stop right there\n"})
				out, reqs := host.run(t, bin, dir, project, wh, "rm "+shell.Quote(victim))
				if _, err := os.Stat(victim); err != nil {
					t.Fatalf("the file is gone after a terminate:\n%s", out)
				}
				if host.name == "gemini" {
					if !strings.Contains(out, "stop_execution") || len(reqs) != 2 { // the routing call, then the turn's one
						t.Fatalf("Gemini CLI did not end the turn: %d model requests\n%s", len(reqs), out)
					}
				} else if len(reqs) < 2 || !strings.Contains(reqs[len(reqs)-1], "stop right there") {
					t.Fatalf("the model did not receive the denial: %v", reqs)
				}
			})
			t.Run("review-terminate", func(t *testing.T) {
				dir := t.TempDir()
				project, wh, victim := hostPlace(t, host.name, dir, "approval: policy.yaml\nreview: review.yaml\n", map[string]string{
					"policy.yaml": "approvers:\n  - name: auto\n    decision: approve\n",
					"review.yaml": "reviewers:\n  - name: auto\n    decision: terminate\n    explanation: that deleted a file it should not have\n"})
				out, reqs := host.run(t, bin, dir, project, wh, "rm "+shell.Quote(victim))
				if _, err := os.Stat(victim); err == nil {
					t.Fatalf("the approved call did not run:\n%s", out)
				}
				if len(reqs) < 2 || !strings.Contains(reqs[len(reqs)-1], "that deleted a file it should not have") {
					t.Fatalf("the review's reason did not reach the model: %v\n%s", reqs, out)
				}
			})
			t.Run("escalate", func(t *testing.T) {
				dir := t.TempDir()
				db := filepath.Join(dir, "q.db")
				project, wh, victim := hostPlace(t, host.name, dir, "approval: policy.yaml\ndb: sqlite:"+db+"\n", map[string]string{"policy.yaml": "approvers:\n  - name: human\n"})
				decided := make(chan error, 1)
				go func() { decided <- approveWhenPending(db, victim) }()
				out, _ := host.run(t, bin, dir, project, wh, "rm "+shell.Quote(victim))
				if err := <-decided; err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				if _, err := os.Stat(victim); err == nil {
					t.Fatalf("the call the person approved did not run:\n%s", out)
				}
			})
		})
	}
}

// approveWhenPending approves, as a person would, the first request pending
// in the store at db, after checking that the file the call would delete is
// still there: the host is blocked on the hook.
func approveWhenPending(db, victim string) error {
	ctx := context.Background()
	for start := time.Now(); time.Since(start) < 90*time.Second; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(db); err != nil {
			continue
		}
		st, err := store.Open(ctx, "sqlite:"+db)
		if err != nil {
			return err
		}
		rs, err := st.Requests(ctx, "pending")
		if err == nil && len(rs) > 0 {
			if _, serr := os.Stat(victim); serr != nil {
				st.Close()
				return errors.New("the call ran while its request was pending")
			}
			_, err = st.Decide(ctx, rs[0].ID, store.Answer{Decision: "approve", DecidedBy: "alice"})
			st.Close()
			return err
		}
		st.Close()
	}
	return errors.New("no request became pending")
}
