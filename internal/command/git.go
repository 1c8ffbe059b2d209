package command

import (
	"strings"
	"sync"
)

// gitBuiltins are the commands built into git (git --list-cmds=builtins of
// git 2.39, and those later releases added). git runs them in its own
// process: an alias of the same name is ignored and no git-NAME helper is
// looked up.
var gitBuiltins = lazySet(`add am annotate apply archive backfill bisect bisect--helper blame branch
	bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout
	checkout--worker checkout-index cherry cherry-pick clean clone column commit commit-graph
	commit-tree config count-objects credential credential-cache credential-cache--daemon
	credential-store describe diagnose diff diff-files diff-index diff-pairs diff-tree difftool
	env--helper fast-export fast-import fetch fetch-pack fmt-merge-msg for-each-ref
	for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc get-tar-commit-id grep
	hash-object help hook index-pack init init-db interpret-trailers last-modified log ls-files
	ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index
	merge-ours merge-recursive merge-recursive-ours merge-recursive-theirs merge-subtree
	merge-tree mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant
	pack-refs patch-id pickaxe prune prune-packed pull push range-diff read-tree rebase
	receive-pack reflog refs remote remote-ext remote-fd repack replace replay repo rerere
	reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch show-index
	show-ref sparse-checkout stage stash status stripspace submodule submodule--helper switch
	symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info
	upload-archive upload-archive--writer upload-pack var verify-commit verify-pack verify-tag
	version whatchanged worktree write-tree`)

// gitShipped are the commands git ships as helper programs in its exec
// path (git-NAME scripts and programs), and git-lfs, installed nearly
// everywhere git is: found there before an alias of the same name, unless
// the exec path is changed.
var gitShipped = lazySet(`archimport citool cvsexportcommit cvsimport cvsserver difftool--helper
	filter-branch gui instaweb lfs mergetool mergetool--lib p4 quiltimport request-pull
	send-email sh-i18n sh-setup subtree svn web--browse`)

// lazySet returns the set of the words of words, built when first asked
// rather than when a process starts.
func lazySet(words string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(words) {
			m[w] = true
		}
		return m
	})
}

// GitBuiltin reports whether name is a command built into git, which no
// alias or helper program can replace.
func GitBuiltin(name string) bool { return gitBuiltins()[name] }

// GitCommand reports whether name is a command git itself provides: a
// builtin, or a helper it ships in its exec path. Any other `git NAME`
// runs an alias or a git-NAME program from the configuration or PATH.
func GitCommand(name string) bool { return gitBuiltins()[name] || gitShipped()[name] }
