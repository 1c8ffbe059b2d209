package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"time"
)

// Cover changes cmd, not yet started, so that it runs outside the sandbox
// — with full access: the host's file system, writable wherever its user
// may write, and the host's network — yet with warden's state and the
// person's terminal out of its reach (SPEC G16). It is for full-access
// commands, approved escalations and the tools of a task without a
// sandbox:
//
//   - warden's state is covered: its home directories ($WARDEN_HOME,
//     ~/.warden: keys, token, transcripts, the store with its -wal and
//     -shm files) show as empty directories no one may read or write, and
//     the managed configuration is read-only;
//   - /dev is the command's own: the host's devices, GPUs, /dev/kvm,
//     /dev/fuse and /dev/net/tun included, but no block device (reading
//     one would read past every cover) and no terminal but /dev/tty and
//     ptys the command makes itself (a devpts instance of its own): it
//     cannot open the person's /dev/pts/N and draw a fake prompt there;
//   - it runs, as Contain's commands do, as the only child of a helper
//     that is init of a PID namespace of its own, so that what it leaves
//     behind ends with it, without warden's controlling terminal, and
//     TIOCSTI is refused.
//
// The command runs in a user namespace (root stays root, with every
// capability, over its own namespaces; its other IDs are the host's) and
// a mount namespace nested in the helper's, in which the covers cannot be
// unmounted, moved or made writable. What that costs a full-access
// command: privileges only the host's namespaces give (loading modules,
// changing the host's network configuration or sysctls, mounting block
// devices, opening files by handle), and, for a non-root warden,
// set-user-ID programs such as sudo, since root is not mapped; its own
// mounts stay in its namespace.
//
// Where user namespaces are missing, Cover leaves cmd unchanged and
// returns an error wrapping ErrUnsupported that says why and what it
// cannot protect: callers fail closed for escalations, and say so for
// full-access commands (Contain still ends their process trees where it
// can). Outside Linux, Cover always returns such an error.
func Cover(cmd *exec.Cmd) error { return cover(cmd) }

// uncoveredText says what a command run outside the sandbox can reach
// where Cover cannot protect it.
const uncoveredText = "a command run outside the sandbox can read and change warden's state (its keys, token, transcripts and store), open the person's terminals and read block devices"

// WatchState records which of warden's state paths are missing before a
// command runs outside the sandbox, for Sweep to move away what it
// planted there once it has ended: Cover covers what exists, and the
// managed configuration, when it does not exist yet, has nothing to cover
// it with (its directory is the system's).
//
// Warden's home directories are made first where missing, as Cover makes
// them to cover them, so that they are not taken for ones the command
// made.
func WatchState() *Watch {
	_ = ensureState([]string{"/"}) // Cover fails if it cannot
	w := &Watch{before: map[string]fileKey{}, start: time.Now()}
	for _, sp := range statePaths() {
		if _, err := os.Lstat(sp); errors.Is(err, fs.ErrNotExist) {
			w.absent = append(w.absent, sp)
		}
	}
	return w
}
