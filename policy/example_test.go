package policy_test

import (
	"fmt"

	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// Patterns match the call's one-line text: strings single-quoted, keys in
// the tool's schema order and then sorted (never the model's order), true,
// false and null as Python writes them.
func ExampleCompile() {
	// The order of each tool's parameters, as its schema lists them
	// (tool.OrderOf gives it for a tool).
	orders := map[string]tool.Order{"bash": {"cmd", "timeout"}, "python": {"code", "args"}}
	calls := []tool.Call{
		tool.NewCall("1", "bash", `{"cmd": "rm -rf build", "timeout": 30}`),
		tool.NewCall("2", "bash", `{"cmd": "ls", "sudo": false, "env": null}`),
		tool.NewCall("3", "bash_session", `{"input": "rm x"}`),
		tool.NewCall("4", "python", `{"code": "print('hi')\nprint(2)", "args": ["-v", 1, true]}`),
		tool.NewCall("5", "bash", `{"cmd": `), // does not parse: matched on its raw text
	}
	for _, c := range calls {
		fmt.Println(policy.NewTarget(&c, orders[c.Function]).Text())
	}
	fmt.Println()

	for _, src := range []string{
		"bash",            // a bare name: that tool only
		"bash(cmd='rm",    // a trailing * is implied
		"*rm*",            // rm anywhere, in any tool's call
		"*print(2)",       // * matches across line breaks too
		"bash(*False*",    // booleans as Python writes them
		"bash(cmd='[a-l]", // a set
	} {
		p, err := policy.Compile(src)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-16s", p)
		for _, c := range calls {
			if p.Match(policy.NewTarget(&c, orders[c.Function])) {
				fmt.Printf(" %s", c.ID)
			}
		}
		fmt.Println()
	}
	// Output:
	// bash(cmd='rm -rf build', timeout=30)
	// bash(cmd='ls', env=None, sudo=False)
	// bash_session(input='rm x')
	// python(code='print('hi')
	// print(2)', args=['-v', 1, True])
	// bash({"cmd": )
	//
	// bash             1 2 5
	// bash(cmd='rm     1
	// *rm*             1 3
	// *print(2)        4
	// bash(*False*     2
	// bash(cmd='[a-l]  2
}

// A list splits at top-level commas, not at those inside parentheses or
// quotes; any of its patterns may match.
func ExampleCompileList() {
	m, err := policy.CompileList([]string{"python, bash(cmd='git status')", "bash(cmd='echo a, b')", "text_editor(command='view"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range m {
		fmt.Println(p)
	}
	fmt.Println()
	for _, c := range []tool.Call{
		tool.NewCall("1", "bash", `{"cmd": "git status"}`),
		tool.NewCall("2", "bash", `{"cmd": "git status --short"}`),
		tool.NewCall("3", "bash", `{"cmd": "echo a, b"}`),
		tool.NewCall("4", "python", `{"code": "1"}`),
		tool.NewCall("5", "text_editor", `{"command": "view", "path": "a.go"}`),
	} {
		fmt.Println(c.Text(), m.Match(policy.NewTarget(&c, nil)))
	}
	// Output:
	// python
	// bash(cmd='git status')
	// bash(cmd='echo a, b')
	// text_editor(command='view
	//
	// bash(cmd='git status') true
	// bash(cmd='git status --short') false
	// bash(cmd='echo a, b') true
	// python(code='1') true
	// text_editor(command='view', path='a.go') true
}

// The structured form matches the tool name and named arguments, each glob
// against the whole value, whatever the order of the arguments.
func ExampleCompileStructured() {
	p, err := policy.CompileStructured("text_*", map[string]string{"command": "create", "path": "*.go"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p)
	for _, c := range []tool.Call{
		tool.NewCall("1", "text_editor", `{"path": "main.go", "command": "create", "file_text": "package main"}`),
		tool.NewCall("2", "text_editor", `{"command": "create", "path": "main.go.orig"}`),
		tool.NewCall("3", "text_editor", `{"command": "view", "path": "main.go"}`),
		tool.NewCall("4", "bash", `{"command": "create", "path": "x.go"}`),
	} {
		fmt.Println(c.ID, p.Match(policy.NewTarget(&c, nil)))
	}
	// Output:
	// tool=text_* command=create path=*.go
	// 1 true
	// 2 false
	// 3 false
	// 4 false
}
