package argjson

import (
	"encoding/json"
	"testing"
)

func TestA8_SchemaCaseVariantsAreFound(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"},"opts":{"type":"object","properties":{"path":{}}},"list":{"type":"array","items":{"type":"object","properties":{"file_text":{}}}}},"additionalProperties":false}`)
	for _, s := range []string{`{"CMD":"touch x"}`, `{"cmd":"ls","opts":{"Path":"/"}}`, `{"list":[{"file_text":""},{"File_Text":"x"}]}`} {
		if msg := CheckSchemaNames(schema, json.RawMessage(s)); msg == "" {
			t.Errorf("%s: accepted", s)
		}
	}
	for _, s := range []string{`{"cmd":"ls"}`, `{"cmd":"ls","other":1}`, `{"opts":{"path":"/","x":1}}`} {
		if msg := CheckSchemaNames(schema, json.RawMessage(s)); msg != "" {
			t.Errorf("%s: %s", s, msg)
		}
	}
}
