package human

import "github.com/wardenhq/warden/approval"

// Test helpers for the external tests of this package (package human_test),
// which put a console and a queue (package internal/queue, which imports this one)
// side by side.
var (
	NewScreen     = newScreen
	NewTestTerm   = newTerminal
	BashRequest   = bashRequest
	WaitForScreen = waitFor
	Drain         = drain
)

// SurfaceApprover returns the approver the registered "human" builds, on
// console c: it asks on the context's Surface too.
func SurfaceApprover(c *Console) approval.Approver {
	return surfaceApprover{con: c, console: c.Approver(nil, 0)}
}
