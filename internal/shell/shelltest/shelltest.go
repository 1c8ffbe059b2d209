// Package shelltest holds what the tests of the shell parser's consumers
// (policy patterns, the first pass, exec rules) share to prove SPEC G16:
// scripts bash reads differently from the parser, and a way to run them
// under the real bash to check their effect.
package shelltest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Attacks are scripts that, run by bash in a directory, delete its
// subdirectory "victim", while the parser (before SPEC G16) read them as
// something harmless: `ls` with a carriage return, a line continuation
// only the parser sees (after a carriage return, or ending a comment), a
// partial alias expanded by bash, a brace
// expansion across quotes, and arithmetic running a subscript's command
// substitution.
var Attacks = []string{
	"A=1\rls rm -rf victim",
	"ls a\\\r\nrm -rf victim",
	"ls # \\\nrm -rf victim",
	"shopt -s expand_aliases\nalias ls=rm\nls -rf victim",
	"ls victim\nshopt -s expand_aliases\nalias cat='rm -rf'\ncat victim",
	`{rm,"-rf",victim}`,
	"x='a[$(rm -rf victim)]'; ls $((x))",
	"x='a[$(rm -rf victim)]'; [[ $x -eq 0 ]]; ls",
}

// Bash is the bash the tests run.
const Bash = "/bin/bash"

// Victim creates dir/victim holding a file and returns its path.
func Victim(tb testing.TB, dir string) string {
	tb.Helper()
	v := filepath.Join(dir, "victim")
	if err := os.MkdirAll(v, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v, "keep"), []byte("keep"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return v
}

// Exists reports whether path exists.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Run runs script with bash -c in dir, as the bash tool runs a command,
// with only PATH and HOME in its environment. Without bash the test is
// skipped, unless $WARDEN_REQUIRE_BASH is set (CI sets it).
func Run(tb testing.TB, dir, script string) {
	tb.Helper()
	if _, err := os.Stat(Bash); err != nil {
		msg := "no " + Bash + ": " + err.Error()
		if os.Getenv("WARDEN_REQUIRE_BASH") != "" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	cmd := exec.Command(Bash, "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir}
	_ = cmd.Run() // the exit status does not matter, the effect does
}
