package triage

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/vocab"
)

// typicalActions are what an agent typically asks: a status, a test run,
// a compound build script, a scoped cleanup, an install, a search and an
// MCP read.
var typicalActions = []action.Action{
	{Kind: action.Shell, Command: []string{"bash", "-lc", "git status"}, Cwd: "/home/dev/project"},
	{Kind: action.Shell, Command: []string{"bash", "-lc", "go test -race ./..."}, Cwd: "/home/dev/project"},
	{Kind: action.Shell, Command: []string{"bash", "-lc", "cd web && npm ci && npm run build 2>&1 | tail -20"}, Cwd: "/home/dev/project"},
	{Kind: action.Shell, Command: []string{"bash", "-lc", "rm -rf ./build ./dist && make -j8 test"}, Cwd: "/home/dev/project"},
	{Kind: action.Shell, Command: []string{"bash", "-lc", "find . -name '*.go' -not -path './vendor/*' | xargs grep -n 'TODO' | head -50"}, Cwd: "/home/dev/project"},
	{Kind: action.Shell, Command: []string{"bash", "-lc", "pip install -r requirements.txt && pytest -q tests/"}, Cwd: "/home/dev/project"},
	{Kind: action.MCP, Server: "github", ToolName: "get_pull_request_files", Arguments: json.RawMessage(`{"owner":"acme","repo":"ledger","pull_number":512}`)},
	{Kind: action.MCP, Server: "filesystem", ToolName: "edit_file", Arguments: json.RawMessage(`{"path":"/home/dev/project/internal/config/load.go","edits":[{"oldText":"pasre","newText":"parse"}]}`)},
}

// BenchmarkJudgeTypical measures deciding one typical action (target:
// 50 µs or less).
func BenchmarkJudgeTypical(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		v := Judge(typicalActions[i%len(typicalActions)], nil)
		if v.Decision != vocab.Allow {
			b.Fatalf("%v: %+v", typicalActions[i%len(typicalActions)].Command, v)
		}
	}
}

// BenchmarkJudgeEach measures each typical action alone, to find which one
// a change made slower.
func BenchmarkJudgeEach(b *testing.B) {
	for i, a := range typicalActions {
		name := a.ToolName
		if a.Kind == action.Shell {
			name = a.Command[len(a.Command)-1]
			if len(name) > 24 {
				name = name[:24]
			}
		}
		b.Run(fmt.Sprintf("%d-%s", i, name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Judge(a, nil)
			}
		})
	}
}
