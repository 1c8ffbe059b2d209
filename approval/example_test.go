package approval_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// Registering an approver by name makes it usable in policy files, in task
// files and on the command line (--approval no-rm-rf).
func init() {
	approval.Register("no-rm-rf", func(params map[string]any) (approval.Approver, error) {
		return approval.Func(func(_ context.Context, req *approval.Request) (approval.Approval, error) {
			var args struct {
				Cmd string `json:"cmd"` // names match exactly (SPEC A8)
			}
			if err := req.Call.Unmarshal(&args); err != nil {
				return approval.Approval{}, err
			}
			if strings.Contains(args.Cmd, "-rf") {
				return approval.Approval{Decision: approval.Reject, Explanation: "recursive deletion needs a person"}, nil
			}
			return approval.Approval{Decision: approval.Escalate, Explanation: "not recursive; next approver"}, nil
		}), nil
	})
}

// A policy asks the approvers whose patterns match a call, in order, until
// one does not escalate. A call no approver decides is rejected.
func ExamplePolicy_Decide() {
	p, err := approval.Compile([]policy.Entry{
		{Name: "no-rm-rf", Tools: []string{"bash(cmd='rm"}},
		{Name: "auto", Tools: []string{"bash(cmd='rm"}, Params: map[string]any{"decision": "escalate"}},
		{Name: "auto", Tools: []string{"bash(cmd='ls", "bash(cmd='cat"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, call := range []tool.Call{
		tool.NewCall("1", "bash", `{"cmd": "rm -rf build"}`),
		tool.NewCall("2", "bash", `{"cmd": "rm notes.txt"}`),
		tool.NewCall("3", "bash", `{"cmd": "ls -l"}`),
		tool.NewCall("4", "python", `{"code": "print(1)"}`),
	} {
		fmt.Println(call.Text())
		out, err := p.Decide(context.Background(), &approval.Request{Call: call}, func(r approval.Record) {
			fmt.Printf("  %s: %s (%s)\n", r.Approver, r.Approval.Decision, r.Approval.Explanation)
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("  => %s by %s\n", out.Decision, out.Approver)
	}
	// Output:
	// bash(cmd='rm -rf build')
	//   no-rm-rf: reject (recursive deletion needs a person)
	//   => reject by no-rm-rf
	// bash(cmd='rm notes.txt')
	//   no-rm-rf: escalate (not recursive; next approver)
	//   auto: escalate (auto escalate)
	//   policy: reject (no approver approved this call (approval is deny by default))
	//   => reject by policy
	// bash(cmd='ls -l')
	//   auto: approve (auto approve)
	//   => approve by auto
	// python(code='print(1)')
	//   policy: reject (no approver approved this call (approval is deny by default))
	//   => reject by policy
}
