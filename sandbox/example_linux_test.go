//go:build linux

package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/wardenhq/warden/sandbox"
)

// A command run in workspace-write mode may create a .git the person
// would later run git in; Sweep moves it away once the command has ended.
func ExamplePolicy_WatchAndWrap() {
	work, err := os.MkdirTemp("/var/tmp", "warden-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(work)
	// Quarantine under the example's own directory, not ~/.warden.
	if old, ok := os.LookupEnv("WARDEN_HOME"); ok {
		defer os.Setenv("WARDEN_HOME", old)
	} else {
		defer os.Unsetenv("WARDEN_HOME")
	}
	os.Setenv("WARDEN_HOME", filepath.Join(work, "home"))

	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: work}
	cmd := exec.Command("/bin/sh", "-c", "mkdir -p .git/hooks && echo built > out && cat out")
	cmd.Dir = work
	watch, err := p.WatchAndWrap(cmd)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := cmd.CombinedOutput()
	fmt.Printf("%s%v\n", out, err)
	moved, err := watch.Sweep()
	for _, q := range moved {
		rel, _ := filepath.Rel(work, q.Path)
		fmt.Println("moved away:", rel)
	}
	fmt.Println(err)
	// Output:
	// built
	// <nil>
	// moved away: .git
	// <nil>
}
