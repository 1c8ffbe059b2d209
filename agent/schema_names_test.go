package agent

import (
	"encoding/json"
	"testing"

	"github.com/wardenhq/warden/tool"
)

// The call is refused with a parsing error, as the model is told (the
// names themselves are checked in internal/argjson).
func TestA8_SchemaCaseVariantsAreParsingErrors(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"},"opts":{"type":"object","properties":{"path":{}}},"list":{"type":"array","items":{"type":"object","properties":{"file_text":{}}}}},"additionalProperties":false}`)
	for _, s := range []string{`{"CMD":"touch x"}`, `{"cmd":"ls","opts":{"Path":"/"}}`, `{"list":[{"file_text":""},{"File_Text":"x"}]}`} {
		if e := checkSchema(tool.Info{Name: "bash", Parameters: schema}, tool.Call{Function: "bash", Arguments: json.RawMessage(s)}); e == nil || e.Type != tool.ErrParsing {
			t.Errorf("%s: %v", s, e)
		}
	}
}
