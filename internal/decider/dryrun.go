package decider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/autoreview"
	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/internal/triage"
	"github.com/wardenhq/warden/internal/triage/effects"
)

// DryRunCommand is a command to run once in a throw-away view (SPEC G17):
// its argv as the sandbox runs it, the directory it runs in and the run's
// writable roots.
type DryRunCommand struct {
	Argv          []string
	Dir           string
	WritableRoots []string
}

// DryRunner runs a command once in a throw-away view — an overlay over
// the file system, the network off, a time budget — and reports what it
// did (SPEC G17). Supported says, before any run, what the kernel lacks
// for it (nil: nothing).
type DryRunner struct {
	Run       func(ctx context.Context, c DryRunCommand) (effect.Report, error)
	Supported func() error
}

// dryRunCheck returns the first pass's dry run of cfg, or nil when there is
// none: no runner, or [auto_review] dry_run = false in the configuration.
// A runner the kernel does not support still makes a check, whose every
// dry run says why it did not run, so that the record says so.
func (cfg Config) dryRunCheck() (*effects.Check, error) {
	if cfg.DryRun == nil || cfg.DryRun.Run == nil {
		return nil, nil
	}
	src := autoreview.DefaultPolicySources()
	if cfg.PolicySources != nil {
		src = *cfg.PolicySources
	}
	resolved, err := autoreview.ResolvePolicy(src)
	if err != nil {
		return nil, fmt.Errorf("auto-review policy: %w", err)
	}
	if resolved.DryRun != nil && !*resolved.DryRun {
		return nil, nil
	}
	// The kernel is asked at the first dry run, not here: assembling a
	// decider (`warden check` does) starts no helper and writes nothing.
	supported := func() error { return nil }
	if cfg.DryRun.Supported != nil {
		supported = sync.OnceValue(cfg.DryRun.Supported)
	}
	roots := slices.Clone(cfg.WritableRoots)
	if cfg.Workdir != "" && !slices.Contains(roots, cfg.Workdir) {
		roots = append([]string{cfg.Workdir}, roots...)
	}
	home, _ := os.UserHomeDir()
	env := effects.Env{Home: home, Roots: roots, Temp: tempDirs()}
	run := cfg.DryRun.Run
	return &effects.Check{Env: env, Run: func(ctx context.Context, req *boundary.Request) *effect.Observed {
		if unsupported := supported(); unsupported != nil {
			return &effect.Observed{Unavailable: "the dry run is not supported here: " + unsupported.Error()}
		}
		rep, err := run(ctx, DryRunCommand{Argv: action.BashArgv(req.Command), Dir: cfg.Workdir, WritableRoots: roots})
		if err != nil {
			return &effect.Observed{Unavailable: "the dry run failed: " + err.Error()}
		}
		return &effect.Observed{Report: &rep}
	}}, nil
}

// withDryRun returns the first pass a, dry-running what it passes on with
// check (triage.WithEffects); a itself when check is nil.
func withDryRun(a approval.Approver, check *effects.Check) approval.Approver {
	if check == nil {
		return a
	}
	return triage.WithEffects(a, check)
}

// tempDirs are the temporary directories private to a run (SPEC G16).
func tempDirs() []string {
	out := []string{"/tmp", "/dev/shm"}
	if t := filepath.Clean(os.TempDir()); !slices.Contains(out, t) {
		out = append(out, t)
	}
	return out
}
