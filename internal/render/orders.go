package render

import "github.com/wardenhq/warden/tool"

// Orders are the orders the calls of several tools render in, by tool
// name: what a surface that shows recorded calls (a run's output, a
// transcript, the web panel) needs to show each call as policy patterns
// see it. A tool it does not list renders its arguments sorted by name.
type Orders map[string]tool.Order

// OrdersOf returns the orders of tools' calls. When two tools share a
// name, the first one's order is kept, as a task's tools cannot share one.
func OrdersOf(tools ...tool.Tool) Orders {
	o := make(Orders, len(tools))
	for _, t := range tools {
		name := t.Info().Name
		if _, dup := o[name]; !dup {
			o[name] = tool.OrderOf(t)
		}
	}
	return o
}

// Of returns the order function's calls render in; nil (sorted by name)
// for a tool o does not list.
func (o Orders) Of(function string) tool.Order { return o[function] }
