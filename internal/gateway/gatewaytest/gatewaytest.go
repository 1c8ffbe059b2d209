// Package gatewaytest helps test the MCP gateway with real peers: a call
// through a go-sdk client session, read as a model would read it.
package gatewaytest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Call calls tool with args through cs and returns the result's text
// content and whether it is an error result; a protocol error fails t.
func Call(t testing.TB, cs *sdk.ClientSession, tool string, args any) (text string, isError bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// WriteRefused asks the reference filesystem server's write_file, through
// cs, to write content to path, and fails t unless the answer is an error
// result whose text holds every one of want and nothing is on disk at path
// afterwards: the effect of a write the gateway must refuse.
func WriteRefused(t testing.TB, cs *sdk.ClientSession, path, content string, want ...string) {
	t.Helper()
	text, isErr := Call(t, cs, "write_file", map[string]any{"path": path, "content": content})
	for _, w := range want {
		if !isErr || !strings.Contains(text, w) {
			t.Errorf("write_file %s answered %q (isError %v), want an error saying %q", path, text, isErr, w)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the refused write of %s reached the disk (stat: %v)", path, err)
	}
}
