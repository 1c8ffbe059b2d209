package decider

// KernelDryRun returns the dry runner of this build (SPEC G17), for the
// assemblies of `warden run`, `warden hook` and `warden mcp`: nil until
// the kernel runner is in.
func KernelDryRun() *DryRunner { return nil }
