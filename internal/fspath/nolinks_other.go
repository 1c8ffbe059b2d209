//go:build !linux

package fspath

// withoutLinks is the kernel's one-call answer of nolinks_linux.go, which
// other systems do not give: the caller walks p.
func withoutLinks(string) (exists, ok bool) { return false, false }
