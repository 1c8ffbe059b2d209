package gateway

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/wardenhq/warden/internal/argjson"
)

// FuzzX2_ReadCall: tools/call's parameters are read strictly (A8): what
// readCall accepts is an object with a tool name and an arguments object
// whose names are never given twice or in two cases, and nothing it reads
// panics.
func FuzzX2_ReadCall(f *testing.F) {
	for _, s := range []string{
		`{"name":"write_file","arguments":{"path":"/tmp/x","content":"y"}}`,
		`{"name":"echo","arguments":{"a":1,"A":2}}`,
		`{"name":"echo","arguments":{"a":{"b":1,"b":2}}}`,
		`{"name":"echo","arguments":[1]}`,
		`{"name":"echo","arguments":null,"_meta":{"progressToken":"p"}}`,
		`{"name":"echo","task":{}}`,
		`{"Name":"echo"}`,
		`{"name":"echo","name":"other"}`,
		`[]`, `null`, `{`, `{"name":"\u0065cho"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := readCall(data)
		if err != nil {
			return
		}
		if c.Name == "" {
			t.Fatalf("accepted %q without a tool name", data)
		}
		args := bytes.TrimSpace(c.Arguments)
		if len(args) == 0 || args[0] != '{' || !json.Valid(args) {
			t.Fatalf("accepted %q with arguments %q", data, args)
		}
		if err := argjson.CheckNames(data); err != nil {
			t.Fatalf("accepted %q, whose names are ambiguous: %v", data, err)
		}
	})
}

// FuzzX2_ResultText: whatever a server answers, the text the reviewer
// reads of it is produced without panicking, and a result's text content
// is in it.
func FuzzX2_ResultText(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hello"}]}`,
		`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}],"isError":true}`,
		`{"content":[],"structuredContent":{"a":1}}`,
		`{"content":"nope"}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, _ := resultText(data)
		var r struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(data, &r) != nil {
			return
		}
		for _, c := range r.Content {
			if c.Type == "text" && !bytes.Contains([]byte(text), []byte(c.Text)) {
				t.Fatalf("text %q of %q lacks %q", text, data, c.Text)
			}
		}
	})
}
