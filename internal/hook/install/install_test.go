package install

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/hook/hosttest"
)

// place is an install place in a temporary home and project.
func place(t *testing.T, scope string) Place {
	t.Helper()
	dir := t.TempDir()
	p := Place{Scope: scope, Home: filepath.Join(dir, "home"), Project: filepath.Join(dir, "proj"),
		Command: "/opt/warden/bin/warden hook HOST"}
	p.CodexHome = filepath.Join(p.Home, ".codex")
	return p
}

// TestX1_InstallMergesIdempotentlyWithBackup: install keeps the person's
// own hooks and settings, replaces only warden's, changes nothing the
// second time, backs the file up before changing it, and uninstall removes
// warden's hooks alone.
func TestX1_InstallMergesIdempotentlyWithBackup(t *testing.T) {
	for _, name := range hook.Hosts() {
		for _, scope := range []string{"user", "project"} {
			t.Run(name+"/"+scope, func(t *testing.T) {
				h, _ := hook.Lookup(name)
				p := place(t, scope)
				p.Command = strings.Replace(p.Command, "HOST", name, 1)
				path, err := p.File(h)
				if err != nil {
					t.Fatal(err)
				}
				s := setups[name]
				ev := s.Events[0].Event
				mine := `{"command":"mine.sh"}`
				if !s.Flat {
					mine = `{"matcher":"X","hooks":[{"type":"command","command":"mine.sh"}]}`
				}
				orig := `{"model":"keep-me","hooks":{"` + ev + `":[` + mine + `],"Other":[]}}`
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
					t.Fatal(err)
				}
				if _, err := Install(h, p, false); err != nil {
					t.Fatal(err)
				}
				first, _ := os.ReadFile(path)
				for _, want := range []string{`"keep-me"`, `"mine.sh"`, `"Other"`, p.Command} {
					if !strings.Contains(string(first), want) {
						t.Fatalf("after install, %s lacks %s:\n%s", path, want, first)
					}
				}
				for _, reg := range s.Events {
					if !strings.Contains(string(first), `"`+reg.Event+`"`) {
						t.Fatalf("after install, no %s hook:\n%s", reg.Event, first)
					}
				}
				backups, _ := filepath.Glob(path + ".warden-backup-*")
				if len(backups) != 1 {
					t.Fatalf("backups %v, want one", backups)
				}
				if b, _ := os.ReadFile(backups[0]); string(b) != orig {
					t.Fatalf("backup holds %q", b)
				}
				time.Sleep(time.Millisecond)
				r, err := Install(h, p, false)
				if err != nil {
					t.Fatal(err)
				}
				second, _ := os.ReadFile(path)
				if string(second) != string(first) || !strings.Contains(strings.Join(r.Lines, "\n"), "nothing changed") {
					t.Fatalf("a second install changed the file:\n%s\n%s", first, second)
				}
				if b, _ := filepath.Glob(path + ".warden-backup-*"); len(b) != 1 {
					t.Fatalf("a second install made a backup: %v", b)
				}
				if strings.Count(string(second), p.Command) != len(s.Events) {
					t.Fatalf("warden's command %d times, want %d", strings.Count(string(second), p.Command), len(s.Events))
				}
				if _, err := Install(h, p, true); err != nil {
					t.Fatal(err)
				}
				after, _ := os.ReadFile(path)
				if strings.Contains(string(after), p.Command) || !strings.Contains(string(after), "mine.sh") || !strings.Contains(string(after), "keep-me") {
					t.Fatalf("after uninstall:\n%s", after)
				}
				var v any
				if err := json.Unmarshal(after, &v); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
	// A file that is not JSON is never overwritten.
	h, _ := hook.Lookup("claude-code")
	p := place(t, "project")
	path, _ := p.File(h)
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("{not json"), 0o600)
	if _, err := Install(h, p, false); err == nil {
		t.Fatal("installed into a file that is not JSON")
	}
	if b, _ := os.ReadFile(path); string(b) != "{not json" {
		t.Fatalf("the file changed: %q", b)
	}
}

// TestX1_CodexTrustHash: the hash warden records a Codex hook's trust
// under is the one Codex 0.171.0 computes for it (hooks/list's currentHash
// of this exact hook, read from the real binary).
func TestX1_CodexTrustHash(t *testing.T) {
	hooks := ordered{{"PreToolUse", json.RawMessage(`[{"matcher":"*","hooks":[{"type":"command","command":"warden hook codex","timeout":900}]}]`)}}
	got := codexHandlers("/tmp/i22/ch/hooks.json", hooks)
	if len(got) != 1 || got[0].key != "/tmp/i22/ch/hooks.json:pre_tool_use:0:0" ||
		got[0].hash != "sha256:ad50eea54e4e31228e83178e2570c4f6fa6b9a9eb5989ac640fe5dcfe2056356" {
		t.Fatalf("got %+v", got)
	}
}

// TestX1_InstallLeavesHooksCodexRuns asks the real Codex which hooks it
// finds after `warden hook install codex` and whether it trusts them: every
// one of warden's is trusted (Codex silently skips the others), and
// doctor agrees; a hook changed after install is reported skipped by both.
func TestX1_InstallLeavesHooksCodexRuns(t *testing.T) {
	bin := hosttest.Find("codex", "WARDEN_TEST_CODEX")
	if bin == "" {
		if os.Getenv("WARDEN_REQUIRE_HOSTS") != "" {
			t.Fatal("codex not found (WARDEN_TEST_CODEX)")
		}
		t.Skip("codex not found: set WARDEN_TEST_CODEX")
	}
	h, _ := hook.Lookup("codex")
	p := place(t, "user")
	p.Command = "/opt/warden/bin/warden hook codex"
	os.MkdirAll(p.CodexHome, 0o700)
	os.WriteFile(filepath.Join(p.CodexHome, "config.toml"), []byte("check_for_update_on_startup = false\n\n[analytics]\nenabled = false\n"), 0o600)
	if _, err := Install(h, p, false); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(p.Project, 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, warnings, err := hosttest.CodexHooks(ctx, bin, p.CodexHome, p.Project)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, hk := range list {
		if hk.Command != p.Command {
			continue
		}
		n++
		if hk.TrustStatus != "trusted" || !hk.Enabled {
			t.Errorf("codex: %s is %s (enabled %v)", hk.Key, hk.TrustStatus, hk.Enabled)
		}
	}
	if n != len(setups["codex"].Events) {
		t.Fatalf("codex lists %d of warden's hooks, want %d (warnings %v): %+v", n, len(setups["codex"].Events), warnings, list)
	}
	if r, err := Doctor(h, p); err != nil || !r.OK {
		t.Fatalf("doctor: %v %v", r.Lines, err)
	}
	// The hook changed after install (its timeout): Codex and doctor both
	// say it is skipped.
	path, _ := p.File(h)
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), `"timeout": 900`, `"timeout": 901`, 1)), 0o600)
	list, _, err = hosttest.CodexHooks(ctx, bin, p.CodexHome, p.Project)
	if err != nil {
		t.Fatal(err)
	}
	modified := 0
	for _, hk := range list {
		if hk.TrustStatus == "modified" {
			modified++
		}
	}
	r, _ := Doctor(h, p)
	if modified != 1 || r.OK || !strings.Contains(strings.Join(r.Lines, "\n"), "SKIPS") {
		t.Fatalf("after a change: codex has %d modified; doctor %v %v", modified, r.OK, r.Lines)
	}
}

// TestX1_InstallSetsTheFailClosedSwitch: where a host has a switch that
// makes a hook that crashes or times out block the action (Cursor's
// failClosed), every handler install writes sets it; every handler has a
// timeout above warden's own escalation timeout, so that warden's denial,
// not the host's timeout, ends a wait. (Claude Code 2.1.197, Codex 0.171.0
// and Gemini CLI 0.61.0 have no such switch: TestX1_RealHostsOnAFailedHook
// shows what each does.)
func TestX1_InstallSetsTheFailClosedSwitch(t *testing.T) {
	for _, name := range hook.Hosts() {
		h, _ := hook.Lookup(name)
		p := place(t, "user")
		p.Command = "/opt/warden/bin/warden hook " + name
		if _, err := Install(h, p, false); err != nil {
			t.Fatal(err)
		}
		path, _ := p.File(h)
		var f struct {
			Hooks map[string][]struct {
				Timeout    *int
				FailClosed *bool `json:"failClosed"`
				Hooks      []struct{ Timeout *int }
			}
		}
		data, _ := os.ReadFile(path)
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		for ev, list := range f.Hooks {
			for _, hd := range list {
				timeout := hd.Timeout
				if len(hd.Hooks) > 0 {
					timeout = hd.Hooks[0].Timeout
				}
				unit := 1
				if name == "gemini" {
					unit = 1000
				}
				if timeout == nil || *timeout < 600*unit {
					t.Errorf("%s %s: timeout %v, want above warden's escalation timeout (5m)", name, ev, timeout)
				}
				if name == "cursor" && (hd.FailClosed == nil || !*hd.FailClosed) {
					t.Errorf("cursor %s: failClosed not set:\n%s", ev, data)
				}
			}
		}
	}
}

// TestX1_InstallSwitchesToTheFastHook: installing warden-hook where `warden
// hook` was installed replaces warden's handler (one per event, not two),
// doctor says which of the two the host runs, and uninstall removes
// warden-hook's handlers as it does warden's.
func TestX1_InstallSwitchesToTheFastHook(t *testing.T) {
	for _, name := range hook.Hosts() {
		t.Run(name, func(t *testing.T) {
			h, _ := hook.Lookup(name)
			p := place(t, "user")
			p.Command = "/opt/warden/bin/warden hook " + name
			if _, err := Install(h, p, false); err != nil {
				t.Fatal(err)
			}
			r, err := Doctor(h, p)
			if err != nil || !strings.Contains(strings.Join(r.Lines, "\n"), "runs warden\n") && !strings.HasSuffix(strings.Join(r.Lines, "\n"), "runs warden") {
				t.Fatalf("doctor after installing warden: %v %q", err, r.Lines)
			}
			p.Command = "/opt/warden/bin/" + FastCommand + " " + name
			if _, err := Install(h, p, false); err != nil {
				t.Fatal(err)
			}
			path, _ := p.File(h)
			data, _ := os.ReadFile(path)
			if n := strings.Count(string(data), "/opt/warden/bin/"); n != len(setups[name].Events) || strings.Contains(string(data), "bin/warden hook") {
				t.Fatalf("after switching to warden-hook, %d warden handlers for %d events:\n%s", n, len(setups[name].Events), data)
			}
			r, err = Doctor(h, p)
			if err != nil || !strings.Contains(strings.Join(r.Lines, "\n"), "runs warden-hook (the fast path)") {
				t.Fatalf("doctor after installing warden-hook: %v %q", err, r.Lines)
			}
			if _, err := Install(h, p, true); err != nil {
				t.Fatal(err)
			}
			data, _ = os.ReadFile(path)
			if strings.Contains(string(data), FastCommand) {
				t.Fatalf("uninstall left warden-hook's handlers:\n%s", data)
			}
		})
	}
}
