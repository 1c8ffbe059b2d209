package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/internal/govern"
	"github.com/wardenhq/warden/internal/hook"
	"github.com/wardenhq/warden/internal/hookcmd"
)

// hookCmd implements `warden hook`: install and doctor here, a hook in
// internal/hookcmd, which warden-hook runs too.
func hookCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "install":
			return hookInstallCmd(args[1:], stdout, stderr, false)
		case "doctor":
			return hookInstallCmd(args[1:], stdout, stderr, true)
		}
	}
	return hookcmd.Run(args, stdin, stdout, stderr, hookcmd.Options{Plane: planes})
}

// isHookConfig reports whether `warden check` reads path as warden hook's
// configuration file (hooks.yaml) rather than a task.
func isHookConfig(path string) bool {
	b := filepath.Base(path)
	return b == "hooks.yaml" || b == "hooks.yml"
}

// checkHookConfig checks warden hook's configuration file at path as a
// hook would resolve it, reporting problems at file:line:col.
func checkHookConfig(path string, stdout, stderr io.Writer) int {
	f, err := govern.LoadFile(path, false)
	if err == nil {
		var cfg *hook.Config
		if cfg, err = hookcmd.Resolve(f); err == nil {
			if _, err = cfg.Boundary(filepath.Dir(path), approval.Auto(approval.Escalate, "check")); err != nil {
				err = f.At("approvals_reviewer", err)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s: ok (warden hook configuration)\n", path)
	return exitOK
}
