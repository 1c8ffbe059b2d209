package review_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/review"
	"github.com/wardenhq/warden/tool"
)

// Registering a reviewer by name makes it usable in policy files, in task
// files and on the command line (--review secrets).
func init() {
	review.Register("secrets", func(params map[string]any) (review.Reviewer, error) {
		return review.Func(func(_ context.Context, req *review.Request) (review.Review, error) {
			// Output is the untruncated output; req.Result is what the
			// model would receive.
			if strings.Contains(req.Output, "PRIVATE KEY") {
				return review.Review{Decision: review.Terminate, Explanation: "the output holds a private key"}, nil
			}
			return review.Review{Decision: review.Escalate, Explanation: "no secret seen"}, nil
		}), nil
	})
}

// A review policy asks the reviewers whose patterns match a call that has
// run, in order, until one does not escalate. A result no reviewer decides
// continues to the model.
func ExamplePolicy_Decide() {
	p, err := review.Compile([]policy.Entry{
		{Name: "secrets", Tools: []string{"bash"}},
		{Name: "auto", Tools: []string{"bash(cmd='cat"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	results := []struct {
		call   tool.Call
		output string
	}{
		{tool.NewCall("1", "bash", `{"cmd": "cat ~/.ssh/id_ed25519"}`), "-----BEGIN OPENSSH PRIVATE KEY-----\n..."},
		{tool.NewCall("2", "bash", `{"cmd": "cat README.md"}`), "# warden\n"},
		{tool.NewCall("3", "bash", `{"cmd": "ls"}`), "README.md\n"},
		{tool.NewCall("4", "text_editor", `{"command": "view", "path": "README.md"}`), "# warden\n"},
	}
	for _, r := range results {
		fmt.Println(r.call.Text())
		req := &review.Request{Call: r.call, Result: tool.Result{Content: r.output}, Output: r.output}
		out, err := p.Decide(context.Background(), req, func(rec review.Record) {
			fmt.Printf("  %s: %s (%s)\n", rec.Reviewer, rec.Review.Decision, rec.Review.Explanation)
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("  => %s by %s\n", out.Decision, out.Reviewer)
	}
	// Output:
	// bash(cmd='cat ~/.ssh/id_ed25519')
	//   secrets: terminate (the output holds a private key)
	//   => terminate by secrets
	// bash(cmd='cat README.md')
	//   secrets: escalate (no secret seen)
	//   auto: continue (auto continue)
	//   => continue by auto
	// bash(cmd='ls')
	//   secrets: escalate (no secret seen)
	//   policy: continue (every matching reviewer escalated; review continues by default)
	//   => continue by policy
	// text_editor(command='view', path='README.md')
	//   => continue by policy
}
