package bash

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/internal/shell/shelltest"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// TestG14_IndirectionCannotRunAForbiddenCommand runs, through the bash
// tool under a sandbox and exec rules forbidding rm -rf, commands that
// reach rm -rf through xargs, a git alias, a shell or an interpreter
// reading its program from a file or a here-string, a start-up file, and
// wrappers that run their arguments (issue 18 item 6). Each is first run
// with no rules and approval granted, to prove it deletes the victim
// directory here; under the rules, with every request denied, the victim
// is still there.
func TestG14_IndirectionCannotRunAForbiddenCommand(t *testing.T) {
	set := &rules.Set{}
	for _, r := range []rules.Rule{
		{Pattern: [][]string{{"rm"}, {"-rf"}}, Decision: rules.Forbidden},
		{Pattern: [][]string{{"git"}, {"push"}}, Decision: rules.Forbidden},
	} {
		if err := set.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	attacks := []struct{ name, script, file string }{
		{"xargs sh -c", `printf 'rm -rf victim' | xargs -0 sh -c`, ""},
		{"xargs rm", `echo -rf victim | xargs rm`, ""},
		{"git alias", `git -c 'alias.p=!rm -rf victim' p`, ""},
		{"git config alias", `git config --file cfg alias.p '!rm -rf victim'; GIT_CONFIG_GLOBAL=cfg git p`, ""},
		{"sh < f", `sh < f`, "rm -rf victim\n"},
		{"bash f", `bash f`, "rm -rf victim\n"},
		{"cat f | sh", `cat f | sh`, "rm -rf victim\n"},
		{"BASH_ENV", `BASH_ENV=./f bash -c true`, "rm -rf victim\n"},
		{"tclsh here-string", `tclsh <<< 'exec rm -rf victim'`, ""},
		{"perl here-string", `perl <<< 'system "rm -rf victim"'`, ""},
		{"python dynamic", `python3 -c 'import os; getattr(os, "sys"+"tem")("rm -rf victim")'`, ""},
		{"dbus-run-session", `dbus-run-session -- rm -rf victim`, ""},
		{"setpriv", `setpriv --no-new-privs rm -rf victim`, ""},
		{"prlimit", `prlimit --nofile=64 rm -rf victim`, ""},
		{"script -c", `script -qc 'rm -rf victim' /dev/null`, ""},
		{"flock", `flock lock rm -rf victim`, ""},
		{"sh -c positional", `env -- nice sh -c '$0 $1 $2' rm -rf victim`, ""},
	}
	proved := 0
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			// The control: no rules, every request approved.
			open, work := sandboxed(t, sandbox.WorkspaceWrite, nil)
			victim := plant(t, work, a.file)
			if _, err := runWith(t, open, &asker{approve: true}, map[string]any{"cmd": a.script}); err != nil {
				t.Logf("control: %v", err)
			}
			if _, err := os.Stat(victim); err == nil {
				t.Skipf("%s does not delete the victim here, even unruled", a.script)
			}
			proved++

			tl, work := sandboxed(t, sandbox.WorkspaceWrite, set)
			victim = plant(t, work, a.file)
			deny := &asker{}
			_, err := runWith(t, tl, deny, map[string]any{"cmd": a.script})
			var te *tool.Error
			if !errors.As(err, &te) || te.Type != tool.ErrPermission && te.Type != tool.ErrApproval {
				t.Errorf("%s: %v, want refused or denied", a.script, err)
			}
			if _, err := os.Stat(victim); err != nil {
				t.Errorf("%s deleted the victim under rules forbidding rm -rf: %v", a.script, err)
			}
		})
	}
	if proved < len(attacks)/2 {
		t.Errorf("only %d of %d attacks work here unruled: the test proves too little", proved, len(attacks))
	}
}

// plant makes the victim directory (shelltest.Victim) in work, and the
// file f holding text when text is not empty.
func plant(t *testing.T, work, text string) string {
	t.Helper()
	victim := shelltest.Victim(t, work)
	if text != "" {
		if err := os.WriteFile(filepath.Join(work, "f"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return victim
}
