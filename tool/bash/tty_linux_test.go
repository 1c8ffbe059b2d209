//go:build linux

package bash

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/ptytest"
	"github.com/wardenhq/warden/sandbox"
)

// ttyChildEnv makes the test binary act as warden on a terminal: it runs
// one command with the bash tool under the policy its value names ("none"
// or a mode) and prints the output.
const ttyChildEnv = "WARDEN_BASH_TEST_TTY_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(ttyChildEnv); mode != "" {
		os.Exit(ttyChild(mode))
	}
	os.Exit(m.Run())
}

// ttyCommand tries to reach the terminal of warden: open /dev/tty, and
// type into the terminal on stdin with TIOCSTI.
const ttyCommand = `exec 3<>/dev/tty && echo tty-open || echo no-tty
python3 -c 'import fcntl,termios,sys
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"#"); print("typed")
except OSError as e:
    print("tiocsti", e.errno)' </dev/tty 2>/dev/null || echo no-tiocsti`

func ttyChild(mode string) int {
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err != nil {
		fmt.Println("parent has no terminal:", err)
		return 1
	} else {
		f.Close()
	}
	dir, _ := os.Getwd()
	opts := Options{Dir: dir, Timeout: 20 * time.Second}
	if mode != "none" {
		opts.Sandbox = &sandbox.Policy{Mode: sandbox.Mode(mode), Workdir: dir}
	}
	tl := New(opts)
	out, err := tl.Run(context.Background(), []byte(`{"cmd": `+strconv.Quote(ttyCommand)+`}`))
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Print(out)
	return 0
}

// A tool process, sandboxed or not, cannot reach the person's terminal: it
// runs in a session of its own, without a controlling terminal, so
// /dev/tty does not open and there is no terminal to type into.
func TestToolCannotTypeIntoConsole(t *testing.T) {
	modes := []string{"none", string(sandbox.FullAccess)}
	if sandbox.Namespaces() == nil {
		modes = append(modes, string(sandbox.WorkspaceWrite))
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			_, tty := ptytest.Open(t)
			// The child stands for warden: a session leader on a terminal.
			cmd := exec.Command(exe)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), ttyChildEnv+"="+mode)
			cmd.Stdin = tty
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			got := string(out)
			if !strings.Contains(got, "no-tty") || strings.Contains(got, "tty-open") || strings.Contains(got, "typed") {
				t.Errorf("the tool reached the terminal: %q", got)
			}
		})
	}
}
