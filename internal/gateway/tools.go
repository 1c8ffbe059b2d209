package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/boundary"
	"github.com/wardenhq/warden/internal/mcp"
	"github.com/wardenhq/warden/tool"
)

// listed is one tool as the upstream listed it (tools/list): what warden
// judges its calls by.
type listed struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations mcp.Annotations `json:"annotations"`
	// changed says the description, schema or annotations differ from the
	// first listing of the tool in this session.
	changed bool
	first   []byte
	schema  *jsonschema.Resolved
	err     error
}

// toolList is the result of tools/list, as far as warden reads it.
type toolList struct {
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations json.RawMessage `json:"annotations"`
	} `json:"tools"`
	NextCursor string `json:"nextCursor"`
}

// catalog is what one upstream declared for its tools in a session.
type catalog struct {
	mu    sync.Mutex
	tools map[string]*listed
}

// learn reads one page of tools/list and records what it declares. It
// returns the tools whose description, schema or annotations changed since
// their first listing.
func (c *catalog) learn(result json.RawMessage) (changed []string, next string, err error) {
	var l toolList
	if err := json.Unmarshal(result, &l); err != nil {
		return nil, "", fmt.Errorf("tools/list result: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tools == nil {
		c.tools = map[string]*listed{}
	}
	for _, t := range l.Tools {
		if t.Name == "" {
			continue
		}
		n := &listed{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if len(t.Annotations) > 0 && string(t.Annotations) != "null" {
			// A hint of the wrong type is not declared: the defaults apply.
			_ = json.Unmarshal(t.Annotations, &n.Annotations)
		}
		n.first = fingerprint(t.Description, t.InputSchema, t.Annotations)
		if old, ok := c.tools[t.Name]; ok {
			n.first = old.first
			n.changed = old.changed || !bytes.Equal(old.first, fingerprint(t.Description, t.InputSchema, t.Annotations))
			if n.changed && !old.changed {
				changed = append(changed, t.Name)
			}
		}
		c.tools[t.Name] = n
	}
	return changed, l.NextCursor, nil
}

// fingerprint is what a tool's listing says, compacted, to compare
// listings.
func fingerprint(desc string, schema, ann json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString(desc)
	b.WriteByte(0)
	_ = json.Compact(&b, schema)
	b.WriteByte(0)
	_ = json.Compact(&b, ann)
	return b.Bytes()
}

// get returns what the upstream listed for tool name.
func (c *catalog) get(name string) (*listed, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tools[name]
	return t, ok
}

// validate checks args against the tool's input schema (a modified call
// must fit what the server accepts).
func (t *listed) validate(args json.RawMessage) error {
	if t.schema == nil && t.err == nil {
		if len(t.InputSchema) == 0 {
			t.err = errors.New("the server listed no input schema")
		} else {
			var s jsonschema.Schema
			if err := json.Unmarshal(t.InputSchema, &s); err != nil {
				t.err = fmt.Errorf("the tool's input schema: %w", err)
			} else if t.schema, err = s.Resolve(nil); err != nil {
				t.err = fmt.Errorf("the tool's input schema: %w", err)
			}
		}
	}
	if t.err != nil {
		return t.err
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return err
	}
	return t.schema.Validate(v)
}

// mcpTool is an upstream's tool as policies and judges see it: named as
// the client calls it, described as the server listed it (the description
// is data for the reviewer, never instructions), its calls MCP actions.
type mcpTool struct {
	server string
	// name is the tool's name as the client calls it, bare its name in
	// its server (they differ with several upstreams: NAME__tool).
	name, bare string
	l          *listed
}

var (
	_ tool.Tool        = (*mcpTool)(nil)
	_ action.Describer = (*mcpTool)(nil)
)

// Info implements tool.Tool.
func (t *mcpTool) Info() tool.Info {
	info := tool.Info{Name: t.name}
	if t.l != nil {
		info.Description, info.Parameters = t.l.Description, t.l.InputSchema
	}
	return info
}

// Run implements tool.Tool: the upstream runs the tool, never warden.
func (t *mcpTool) Run(context.Context, json.RawMessage) (string, error) {
	return "", errors.New("an MCP tool runs in its server")
}

// DescribeAction implements action.Describer: an MCP call with its
// arguments.
func (t *mcpTool) DescribeAction(call tool.Call, _ *boundary.Request) (action.Action, bool) {
	return action.Action{Kind: action.MCP, Server: t.server, ToolName: t.bare, Arguments: call.Arguments}, true
}
