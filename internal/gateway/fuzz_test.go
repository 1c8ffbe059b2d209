package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/argjson"
	"github.com/wardenhq/warden/internal/mcp"
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

// FuzzX2_ClientLine: whatever one line a client sends after initializing,
// the gateway neither panics nor hangs: the session answers a ping after it
// (or, when the line broke the stream, ends), and it ends when the client
// closes.
func FuzzX2_ClientLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"a":1,"A":2}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`,
		`{"foo":1}`, `{`, `"x"`, `null`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if bytes.ContainsAny([]byte(line), "\n\r") {
			return
		}
		cfg := testConfig(t, "", "")
		up, _ := testServer(t)
		c, done := serveRaw(t, &Gateway{Config: cfg, Server: "test", Mode: mcp.Approve}, up)
		c.send(initialize)
		c.recv()
		// Pipes do not buffer: the test writes and reads at once, as a
		// client on an OS pipe could.
		go func() {
			if _, err := io.WriteString(c.w, line+"\n"); err == nil {
				io.WriteString(c.w, `{"jsonrpc":"2.0","id":"last","method":"ping"}`+"\n")
			}
		}()
		deadline := time.After(5 * time.Second)
		lines := make(chan string)
		go func() {
			for {
				l, err := c.r.ReadString('\n')
				if err != nil {
					close(lines)
					return
				}
				select {
				case lines <- l:
				case <-time.After(10 * time.Second):
					return
				}
			}
		}()
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok || strings.Contains(l, `"id":"last"`) {
					break read
				}
			case err := <-done:
				done <- err // the line broke the stream: the session ended
				break read
			case <-deadline:
				t.Fatalf("no answer to a ping after %q", line)
			}
		}
		c.w.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("the session did not end after %q and the client closing", line)
		}
	})
}

// TestX2_ResultSpellingsAllReachTheReviewer: a result that spells a member
// twice (a duplicate, or two cases of one name) is read one way by
// encoding/json and maybe another by the client; the reviewer reads the
// whole text then, so what any client can show it has been reviewed.
func TestX2_ResultSpellingsAllReachTheReviewer(t *testing.T) {
	for _, data := range []string{
		`{"content":[{"type":"text","text":"SECRET"}],"Content":[{"type":"text","text":"fine"}]}`,
		`{"Content":[{"type":"text","text":"fine"}],"content":[{"type":"text","text":"SECRET"}]}`,
		`{"content":[{"type":"text","text":"SECRET","Text":"fine"}]}`,
		`{"content":[{"type":"text","text":"fine"}],"content":[{"type":"text","text":"SECRET"}]}`,
		`{"content":[{"type":"text","text":"fine"}],"structuredContent":{"a":"SECRET"},"StructuredContent":null}`,
	} {
		text, _ := resultText([]byte(data))
		if !strings.Contains(text, "SECRET") {
			t.Errorf("the reviewer reads %q of %s", text, data)
		}
	}
}

// FuzzX2_ListingCursor: a listing cursor of several upstreams is read as
// warden wrote it, or refused: one read names only upstreams that exist,
// each with a cursor to pass on, and what warden writes reads back the
// same.
func FuzzX2_ListingCursor(f *testing.F) {
	for _, s := range []string{"", makeCursor(map[int]string{0: "abc", 1: "x"}), makeCursor(map[int]string{5: "y"}), "e30", "bm90IGpzb24", `{"0":"a"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		const n = 3
		got, err := readCursor(raw, n)
		if err != nil {
			return
		}
		for i, c := range got {
			if i < 0 || i >= n || raw != "" && c == "" {
				t.Fatalf("%q read as %v", raw, got)
			}
		}
		if raw == "" {
			return
		}
		again, err := readCursor(makeCursor(got), n)
		if err != nil || len(again) != len(got) {
			t.Fatalf("%v written and read back as %v, %v", got, again, err)
		}
	})
}

// FuzzX2_UpstreamToolName: a tool of one of several upstreams, named
// NAME__tool, routes to that upstream and that tool whatever the tool's own
// name holds, for every name ValidName accepts.
func FuzzX2_UpstreamToolName(f *testing.F) {
	for _, s := range [][2]string{{"fs", "write_file"}, {"a-b", "x__y"}, {"a_b", "_z"}, {"fs__x", "t"}, {"", "t"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, tool string) {
		if ValidName(name) != nil || tool == "" || ValidName("other") != nil || name == "other" {
			return
		}
		s := &session{ups: []*upstream{{name: "other"}, {name: name}}}
		u, bare, ok := s.route(name + nameSep + tool)
		if !ok || u.name != name || bare != tool {
			t.Fatalf("%s__%s routed to %v %q %v", name, tool, u, bare, ok)
		}
	})
}

// FuzzX2_CallReadingAgrees: the reading of a call's parameters and of its
// result without encoding/json's decoder (readCallFast, readFast,
// contentText) reads every text as encoding/json does: the same call, the
// same errors, the same text for the reviewer (SPEC A8: one text, one
// reading).
func FuzzX2_CallReadingAgrees(f *testing.F) {
	for _, s := range []string{
		`{"name":"write_file","arguments":{"path":"/tmp/x","content":"y"}}`,
		`{"name":"echo","arguments":null,"_meta":{"progressToken":"p"}}`,
		`{"name":"echo","_meta":null}`, `{"name":"ech\"o"}`, `{"name":5}`, `{"name":null,"arguments":{}}`,
		`{"Name":"echo"}`, `{"name":"echo","ARGUMENTS":{}}`, `{"name":"echo","task":{}}`, `{"name":"\u0065cho"}`,
		`{"content":[{"type":"text","text":"hello"}],"isError":false}`,
		`{"content":[{"type":"text","text":"a\nb\u00e9"},{"type":"image","data":"AAAA"}],"isError":true}`,
		`{"Content":[{"type":"text","text":"x"}]}`, `{"content":[{"Type":"text","TEXT":"x"}]}`,
		`{"content":[{"type":"te\u0078t","text":"x"},7,null,"s",[]]}`, `{"content":[{"type":"text","text":null}]}`,
		`{"content":null,"isError":null,"structuredContent":null}`, `{"content":{},"structuredContent":{"a":[1]}}`,
		`{"_meta":{},"content":[],"isError":1}`, `{"ſtructuredContent":1,"content":[{"typé":"x"}]}`,
		`[]`, `"x"`, ` {"name" : "echo" , "arguments" : { } } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// readCall as it read before the fast path: encoding/json's
		// decoder alone.
		c, err := readCall(data)
		want, werr := readCallDecoder(data)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("readCall(%q): error %v, encoding/json %v", data, err, werr)
		}
		if err == nil && (c.Name != want.Name || !bytes.Equal(c.Arguments, want.Arguments) || !bytes.Equal(c.Meta, want.Meta)) {
			t.Fatalf("readCall(%q) = %+v, encoding/json %+v", data, c, want)
		}
		text, failed := resultText(data)
		wtext, wfailed := resultTextDecoder(data)
		if text != wtext || failed != wfailed {
			t.Fatalf("resultText(%q) = %q %v, encoding/json %q %v", data, text, failed, wtext, wfailed)
		}
	})
}

// readCallDecoder is readCall with encoding/json's decoder only.
func readCallDecoder(params json.RawMessage) (callParams, error) {
	return readCallWith(params, func(json.RawMessage) (callParams, bool) { return callParams{}, false })
}

// resultTextDecoder is resultText with encoding/json's decoder only.
func resultTextDecoder(result json.RawMessage) (string, bool) {
	return resultTextWith(result, func(*toolResult, json.RawMessage) bool { return false }, func(c json.RawMessage) (string, bool) {
		var t struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &t) == nil && t.Type == "text" {
			return t.Text, true
		}
		return "", false
	})
}
