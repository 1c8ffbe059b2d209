package human_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/human"
	"github.com/wardenhq/warden/tool"
)

// A person at the console first gives an answer that is not on offer, then
// rejects the call.
func ExampleConsole_Approver() {
	in := strings.NewReader("maybe\nr\n")
	console := human.NewConsole(in, os.Stdout)
	approver := console.Approver(nil, 0) // approve, reject, terminate; no timeout

	call := tool.NewCall("call_1", "bash", `{"cmd":"rm -rf build"}`)
	a, err := approver.Approve(context.Background(), &approval.Request{
		Message: "Cleaning up.",
		Call:    call,
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println()
	fmt.Println(a.Decision+":", a.Explanation)
	// Output:
	// ── approval requested: bash ──
	// assistant message:
	//   │ Cleaning up.
	// commands (1, as the shell splits them):
	//   1 │ rm -rf build
	// call:
	//   │ bash(cmd='rm -rf build')
	// Decide:  [a] Approve  [r] Reject  [t] Terminate > "maybe" is not an answer here; answer one of: a/approve, r/reject, t/terminate
	// Decide:  [a] Approve  [r] Reject  [t] Terminate > → reject
	//
	// reject: rejected by a person at the console
}
