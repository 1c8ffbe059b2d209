// Package toolbox holds the built-in tools a task file can name, and the
// environment they are made for: the working directory and, where set, the
// sandbox and exec rules that bound them.
package toolbox

import (
	"fmt"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/registry"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/sandbox"
	"github.com/wardenhq/warden/tool"
)

// Env is what a built-in tool is configured with when a task names it.
type Env struct {
	// Dir is the working directory of the task. Tools that touch files or
	// run commands work there.
	Dir string
	// Timeout bounds one call; zero means the tool's default.
	Timeout time.Duration
	// Sandbox, when set, bounds what commands and edits may do without
	// asking (SPEC G1); nil runs them without a sandbox.
	Sandbox *sandbox.Policy
	// Rules, when set, are the exec rules commands are judged by (G14).
	Rules *rules.Set
}

// A Factory builds a tool for a task's environment.
type Factory func(env Env) (tool.Tool, error)

// tools holds the built-in tools by name.
var tools = registry.New[Factory]("toolbox: registered twice: ")

// Register makes a built-in tool available to task files under name. It
// panics if name is registered twice.
func Register(name string, f Factory) { tools.Register(name, f) }

// Names returns the registered tool names, sorted.
func Names() []string { return tools.Names() }

// New builds the registered tool called name.
func New(name string, env Env) (tool.Tool, error) {
	f, ok := tools.Get(name)
	if !ok {
		return nil, fmt.Errorf("unknown tool %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return f(env)
}

// Orders returns the orders the registered tools' calls render in, by name
// (tool.OrderOf; a render.Orders): for surfaces that show recorded calls
// without the run's tools at hand, such as `warden transcript show` and the
// web panel. Each
// tool is built for the root directory without sandbox to read its schema;
// a tool that cannot be built so is left out (its calls render sorted).
func Orders() map[string]tool.Order {
	o := map[string]tool.Order{}
	for _, name := range Names() {
		t, err := New(name, Env{Dir: "/"})
		if err != nil {
			continue
		}
		o[name] = tool.OrderOf(t)
	}
	return o
}
