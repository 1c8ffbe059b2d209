package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// SPEC G14 and issue 20 item 8: warden rules check and warden check warn of
// an allow rule on a bare shell or interpreter, at the rule's position, on
// stderr; the decision, the exit code and "ok" are unchanged, and a narrow
// rule is not warned of.
func TestG14_CheckWarnsOfBroadAllowRules(t *testing.T) {
	dir := t.TempDir()
	broad := write(t, dir, "broad.rules", "prefix_rule(pattern = [\"cargo\", \"test\"])\nprefix_rule(pattern = [\"python3\"])\n")
	narrow := write(t, dir, "narrow.rules", "prefix_rule(pattern = [\"python3\", \"-m\", \"pytest\"])\n")
	const script = `python3 -c 'import shutil; shutil.rmtree("/home")'`
	warning := broad + ":2:1: warning: the allow rule [\"python3\"] allows every python3 command"

	// rules check: the warning is true — the broad rule allows the
	// destructive inline code (exit 0), the narrow one does not (10).
	code, stdout, stderr := runBinary(t, nil, "", "rules", "check", "--rules", broad, "--", script)
	if code != 0 || !strings.Contains(stderr, warning) || strings.Contains(stdout, "warning") {
		t.Errorf("rules check, broad rule: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, _, stderr = runBinary(t, nil, "", "rules", "check", "--rules", narrow, "--", script)
	if code != 10 || strings.Contains(stderr, "warning") {
		t.Errorf("rules check, narrow rule: exit %d\n%s", code, stderr)
	}

	// warden check: the task's rules: and --rules are both looked at.
	model := write(t, dir, "m.yaml", "- content: done\n")
	withRules := write(t, dir, "task.yaml", "input: hi\nmodel: scripted:m.yaml\nrules: [broad.rules]\n")
	plain := write(t, dir, "plain.yaml", "input: hi\nmodel: scripted:"+filepath.Base(model)+"\n")
	for _, tc := range []struct {
		args []string
		warn bool
	}{
		{[]string{"check", withRules}, true},
		{[]string{"check", plain, "--rules", broad}, true},
		{[]string{"check", plain, "--rules", narrow}, false},
		{[]string{"check", plain}, false},
	} {
		code, stdout, stderr := runBinary(t, noKeyEnv(t, dir), "", tc.args...)
		if code != exitOK || !strings.Contains(stdout, ": ok (") {
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, stdout, stderr)
		}
		if got := strings.Contains(stderr, warning); got != tc.warn {
			t.Errorf("%v: warned %v, want %v\n%s", tc.args, got, tc.warn, stderr)
		}
	}
}
