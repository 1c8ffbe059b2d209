package decider

import (
	"context"

	"github.com/wardenhq/warden/internal/dryrun"
	"github.com/wardenhq/warden/internal/effect"
	"github.com/wardenhq/warden/sandbox"
)

// KernelDryRun returns the kernel's dry runner (internal/dryrun, SPEC G17)
// for the assemblies of `warden run`, `warden hook` and `warden mcp`: the
// command runs in an overlay view of the file system with the network
// off, within dryrun's time and memory budgets. Where the kernel lacks
// what it needs, its Supported says so and no dry run runs.
func KernelDryRun() *DryRunner {
	return &DryRunner{
		Run: func(ctx context.Context, c DryRunCommand) (effect.Report, error) {
			return dryrun.Run(ctx, dryrun.Request{Argv: c.Argv, Dir: c.Dir,
				Policy: sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workdir: c.Dir, WritableRoots: c.WritableRoots}})
		},
		Supported: dryrun.Supported,
	}
}
