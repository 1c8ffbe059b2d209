package gateway

import (
	"context"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wardenhq/warden/internal/mcp"
)

// Everything other than tools/call passes through unchanged: prompts,
// resources with their pagination, the server's requests to the client
// (sampling, elicitation), progress — against the reference server that
// exercises every protocol feature, @modelcontextprotocol/server-everything.
func TestX2_EverythingElsePassesThrough(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything", "WARDEN_TEST_MCP_EVERYTHING")
	cfg := testConfig(t, "approvers:\n  - name: auto\n    decision: approve\n", "")
	var progress, sampled, elicited atomic.Int32
	p := connect(t, &Gateway{Config: cfg, Server: "everything", Mode: mcp.Approve}, &sdk.CommandTransport{Command: exec.Command(bin, "stdio")}, &sdk.ClientOptions{
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			sampled.Add(1)
			return &sdk.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &sdk.TextContent{Text: "sampled-by-the-client"}}, nil
		},
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			elicited.Add(1)
			return &sdk.ElicitResult{Action: "decline"}, nil
		},
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { progress.Add(1) },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	prompts, err := p.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) == 0 {
		t.Fatalf("prompts/list: %v, %v", prompts, err)
	}
	if got, err := p.GetPrompt(ctx, &sdk.GetPromptParams{Name: "simple-prompt"}); err != nil || len(got.Messages) == 0 {
		t.Errorf("prompts/get: %v, %v", got, err)
	}
	var uris []string
	for r, err := range p.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		uris = append(uris, r.URI)
	}
	if len(uris) == 0 {
		t.Fatal("no resources")
	}
	if got, err := p.ReadResource(ctx, &sdk.ReadResourceParams{URI: uris[0]}); err != nil || len(got.Contents) == 0 {
		t.Errorf("resources/read %s: %v, %v", uris[0], got, err)
	}

	if text, isErr := p.call(t, "echo", map[string]any{"message": "through warden"}); isErr || !strings.Contains(text, "through warden") {
		t.Errorf("echo: %q (isError %v)", text, isErr)
	}
	longRunning(ctx, t, p.ClientSession, "trigger-long-running-operation", &progress)
	// The tools that depend on the client's capabilities are listed after
	// initialization.
	for deadline := time.Now().Add(10 * time.Second); ; {
		tools, err := p.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if hasTool(tools.Tools, "trigger-sampling-request") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if text, _ := p.call(t, "trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 5}); sampled.Load() != 1 || !strings.Contains(text, "sampled-by-the-client") {
		t.Errorf("sampling: %q, sampled %d times", text, sampled.Load())
	}
	if _, isErr := p.call(t, "trigger-elicitation-request", map[string]any{}); isErr || elicited.Load() != 1 {
		t.Errorf("elicitation: elicited %d times (isError %v)", elicited.Load(), isErr)
	}
}

func hasTool(tools []*sdk.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// longRunning calls the everything server's long-running operation, named
// tool, with a progress token, and fails t unless a progress notification
// of it reached the client (progress counts them).
func longRunning(ctx context.Context, t *testing.T, cs *sdk.ClientSession, tool string, progress *atomic.Int32) {
	t.Helper()
	params := &sdk.CallToolParams{Name: tool, Arguments: map[string]any{"duration": 1, "steps": 2}}
	params.SetProgressToken("progress-1")
	if _, err := cs.CallTool(ctx, params); err != nil {
		t.Errorf("%s: %v", tool, err)
	}
	if progress.Load() == 0 {
		t.Errorf("%s: no progress notification reached the client", tool)
	}
}
