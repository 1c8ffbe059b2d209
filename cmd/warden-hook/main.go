// Command warden-hook is `warden hook` for the coding agents' tool calls
// without what a hook decided by its policies does not need: it links no
// model, store, server client, first pass, reviewer agent or sandbox, so
// that it starts about as fast as any Go program. `warden-hook HOST
// [flags]` takes the flags and configuration of `warden hook HOST` and
// answers the same, byte for byte; a hook whose decision may need what it
// does not link (auto-review, the first pass, --db, --server) it hands to
// the full warden (beside it, else on $PATH; none found is the host's
// deny), as it does `install` and `doctor`. See docs/hooks.md.
package main

import (
	"os"

	"github.com/wardenhq/warden/internal/hookcmd"
	"github.com/wardenhq/warden/internal/runtoken"
	"github.com/wardenhq/warden/internal/wardenhome"
)

func main() {
	// As warden does (SPEC G16): a secret of warden's state with another
	// name is replaced before anything uses it.
	_ = wardenhome.RetireExposed(runtoken.Path(), wardenhome.KeyPath())
	os.Exit(hookcmd.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, hookcmd.Options{Full: hookcmd.FindFull}))
}
