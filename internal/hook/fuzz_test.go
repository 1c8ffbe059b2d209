package hook

import (
	"bytes"
	"encoding/json"
	"testing"
)

// fuzzParse checks what host accepts: an event of a phase, of a session,
// whose tool input (when it has one) is one JSON object; and that any
// verdict on it answers with an exit code the host reads as intended (0
// or 2, never 1) and JSON output.
func fuzzParse(f *testing.F, host string, seeds ...string) {
	h, err := Lookup(host)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := h.Parse(data)
		if err != nil {
			if e != nil {
				t.Fatalf("an error with an event: %v", err)
			}
			if a := h.Fail(err.Error()); a.Code != 2 {
				t.Fatalf("the deny exits %d", a.Code)
			}
			return
		}
		if e.SessionID == "" || e.Phase < PreTool || e.Phase > Prompt {
			t.Fatalf("accepted %q as %+v", data, e)
		}
		if e.Phase != Prompt {
			if e.Tool == "" || !json.Valid(e.Input) || !bytes.HasPrefix(bytes.TrimSpace(e.Input), []byte("{")) {
				t.Fatalf("accepted %q with tool %q input %q", data, e.Tool, e.Input)
			}
		}
		for _, d := range []Reply{Pass, Allow, Modify, Deny, Stop, Ask, Block} {
			a := h.Answer(e, Verdict{Decision: d, Input: json.RawMessage(`{"command":"ls"}`), Reason: "r"})
			if a.Code != 0 && a.Code != 2 {
				t.Fatalf("%s answered with exit %d", d, a.Code)
			}
			if len(a.Stdout) > 0 && !json.Valid(a.Stdout) {
				t.Fatalf("%s answered %q", d, a.Stdout)
			}
		}
	})
}

func FuzzX1_ParseClaudeCode(f *testing.F) {
	fuzzParse(f, "claude-code", payload("claude-code", "ls"),
		`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},"tool_use_id":"t","duration_ms":26,"effort":{"level":"high"}}`,
		`{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"ls"},"error":"boom","is_interrupt":false}`,
		`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Write","tool_input":{"file_path":"/a","content":"x"},"permission_suggestions":[]}`,
		`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"hi","prompt_id":"p"}`)
}

func FuzzX1_ParseCodex(f *testing.F) {
	fuzzParse(f, "codex", payload("codex", "ls"),
		`{"session_id":"s","turn_id":"u","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"out","tool_use_id":"c"}`,
		`{"session_id":"s","turn_id":"u","cwd":"/w","model":"m","permission_mode":"default","transcript_path":null,"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls","description":"d"}}`,
		`{"session_id":"s","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"hi"}`)
}

func FuzzX1_ParseGemini(f *testing.F) {
	fuzzParse(f, "gemini", payload("gemini", "ls"),
		`{"session_id":"s","hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_response":{"llmContent":"a","returnDisplay":"a"}}`,
		`{"session_id":"s","hook_event_name":"BeforeAgent","prompt":"hi","timestamp":"t"}`)
}

func FuzzX1_ParseCursor(f *testing.F) {
	fuzzParse(f, "cursor", payload("cursor", "ls"),
		`{"conversation_id":"s","generation_id":"g","hook_event_name":"preToolUse","tool_name":"Write","tool_input":{"file_path":"/a","content":"x"}}`,
		`{"conversation_id":"s","hook_event_name":"beforeMCPExecution","tool_name":"create_issue","tool_input":"{\"title\":\"x\"}","url":"https://mcp.example"}`,
		`{"conversation_id":"s","hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":"ls"},"tool_output":"a"}`,
		`{"conversation_id":"s","hook_event_name":"beforeSubmitPrompt","prompt":"hi","attachments":[]}`)
}
