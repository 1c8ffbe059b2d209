package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/model/internal/providertest"
	"github.com/wardenhq/warden/model/scripted"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

func generate(t *testing.T, m model.Model, msgs ...chat.Message) model.Response {
	t.Helper()
	resp, err := m.Generate(context.Background(), model.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Role != chat.Assistant {
		t.Errorf("role %q, want assistant", resp.Message.Role)
	}
	return resp
}

// texts returns the call texts of msg.
func texts(msg chat.Message) []string {
	var out []string
	for _, c := range msg.ToolCalls {
		out = append(out, c.ID+" "+providertest.InModelOrder(c))
	}
	return out
}

func parse(t *testing.T, script string) *scripted.Model {
	t.Helper()
	m, err := scripted.Parse([]byte(script), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOrder(t *testing.T) {
	m := parse(t, `
- content: first
  tool_calls:
    - {id: a1, function: f, arguments: {x: 1}}
    - {function: g}
- content: second
- tool_calls:
    - function: h
      arguments: {}
`)
	if m.Remaining() != 3 {
		t.Errorf("Remaining %d, want 3", m.Remaining())
	}
	r := generate(t, m)
	if r.Message.Content != "first" || strings.Join(texts(r.Message), "; ") != "a1 f(x=1); call_1_2 g()" {
		t.Errorf("turn 1: %q %q", r.Message.Content, texts(r.Message))
	}
	r = generate(t, m)
	if r.Message.Content != "second" || r.Message.ToolCalls != nil {
		t.Errorf("turn 2: %+v", r.Message)
	}
	r = generate(t, m)
	if r.Message.Content != "" || strings.Join(texts(r.Message), "; ") != "call_3_1 h()" {
		t.Errorf("turn 3: %q %q", r.Message.Content, texts(r.Message))
	}
	if m.Remaining() != 0 {
		t.Errorf("Remaining %d, want 0", m.Remaining())
	}
}

func TestArgumentOrder(t *testing.T) {
	m := parse(t, `
- tool_calls:
    - function: f
      arguments: {b: 1, a: 'x'}
    - function: g
      arguments:
        zeta: [3, 2, {y: true, x: null}]
        alpha: "<a & b>"
        mid: "123"
        n: 1.0
        e: 1e3
        h: 0x1F
        o: 0o17
        u: 1_000
        big: 123456789012345678901234567890
        neg: -0.5
        f: 1.5e+300
        ts: 2001-12-14
        multi: |
          two
          lines
`)
	calls := generate(t, m).Message.ToolCalls
	if len(calls) != 2 {
		t.Fatalf("calls %+v", calls)
	}
	if got, want := providertest.InModelOrder(calls[0]), "f(b=1, a='x')"; got != want {
		t.Errorf("Text %q, want %q", got, want)
	}
	if got, want := string(calls[0].Arguments), `{"b":1,"a":"x"}`; got != want {
		t.Errorf("Arguments %s, want %s", got, want)
	}
	want := `{"zeta":[3,2,{"y":true,"x":null}],"alpha":"<a & b>","mid":"123","n":1.0,"e":1e3,"h":31,"o":15,"u":1000,` +
		`"big":123456789012345678901234567890,"neg":-0.5,"f":1.5e+300,"ts":"2001-12-14","multi":"two\nlines\n"}`
	if got := string(calls[1].Arguments); got != want {
		t.Errorf("Arguments\n got %s\nwant %s", got, want)
	}
	if calls[1].ParseError != "" || !json.Valid(calls[1].Arguments) {
		t.Errorf("call %+v does not parse", calls[1])
	}
	if got, want := providertest.InModelOrder(calls[1]), "g(zeta=[3, 2, {'x': None, 'y': True}], alpha='<a & b>', mid='123', n=1.0, e=1e3, h=31, o=15, u=1000, big=123456789012345678901234567890, neg=-0.5, f=1.5e+300, ts='2001-12-14', multi='two\nlines\n')"; got != want {
		t.Errorf("Text\n got %q\nwant %q", got, want)
	}
}

func TestArgumentsRaw(t *testing.T) {
	m := parse(t, `
- tool_calls:
    - id: bad
      function: run
      arguments_raw: '{"cmd": "ls'
    - function: list
      arguments_raw: '[1, 2]'
    - function: ok
      arguments_raw: '{"z": 1, "a": 2}'
`)
	calls := generate(t, m).Message.ToolCalls
	if len(calls) != 3 {
		t.Fatalf("calls %+v", calls)
	}
	for _, c := range calls[:2] {
		if c.ParseError == "" || c.Arguments != nil {
			t.Errorf("call %+v: want a parse error", c)
		}
	}
	if calls[0].ArgumentsRaw != `{"cmd": "ls` || calls[0].ID != "bad" {
		t.Errorf("call %+v", calls[0])
	}
	if got, want := calls[0].Text(), `run({"cmd": "ls)`; got != want {
		t.Errorf("Text %q, want %q", got, want)
	}
	var v any
	var te *tool.Error
	if err := calls[0].Unmarshal(&v); !errors.As(err, &te) || te.Type != tool.ErrParsing {
		t.Errorf("Unmarshal error %v, want a parsing error", err)
	}
	// Raw text that happens to be an object parses like a model's would.
	if calls[2].ParseError != "" || providertest.InModelOrder(calls[2]) != "ok(z=1, a=2)" {
		t.Errorf("call %+v", calls[2])
	}
}

func TestExhausted(t *testing.T) {
	m := parse(t, `[{content: only}]`)
	if got := generate(t, m).Message.Content; got != "only" {
		t.Fatalf("content %q", got)
	}
	for range 3 {
		msg := generate(t, m).Message
		if msg.Content != "" || len(msg.ToolCalls) != 0 {
			t.Errorf("after the script: %+v, want an empty message", msg)
		}
	}
	for _, script := range []string{"", "# nothing\n", "~", "[]"} {
		m := parse(t, script)
		if msg := generate(t, m).Message; msg.Content != "" || msg.ToolCalls != nil || m.Remaining() != 0 {
			t.Errorf("script %q: %+v", script, msg)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   string // prefix of the error
		says   string // and what it says
	}{
		{"- content: hi\n  contnet: typo\n", "f.yaml:2:3: ", `unknown key "contnet" in turn`},
		{"- tool_calls:\n    - function: f\n      args: {a: 1}\n", "f.yaml:3:7: ", `unknown key "args" in tool call`},
		{"- tool_calls:\n    - function: f\n      arguments: [1]\n", "f.yaml:3:18: ", "want a mapping"},
		{"- tool_calls:\n    - function: f\n      arguments: 'x'\n", "f.yaml:3:18: ", "use arguments_raw"},
		{"- tool_calls:\n    - function: f\n      arguments: {}\n      arguments_raw: x\n", "f.yaml:3:7: ", "both arguments and arguments_raw"},
		{"- tool_calls:\n    - id: x\n      arguments: {}\n", "f.yaml:2:7: ", "no function"},
		{"- tool_calls: {function: f}\n", "f.yaml:1:15: ", "want a list of calls"},
		{"- tool_calls:\n  - f\n", "f.yaml:2:5: ", "want a mapping"},
		{"content: hi\n", "f.yaml:1:1: ", "list of assistant turns"},
		{"- hello\n", "f.yaml:1:3: ", "turn 1"},
		{"- content: [a]\n", "f.yaml:1:12: ", "content: want text"},
		{"- content: a\n  content: b\n", "f.yaml:2:3: ", `duplicate key "content"`},
		{"- tool_calls:\n    - function: f\n      arguments: {a: 1, a: 2}\n", "f.yaml:3:25: ", `duplicate key "a"`},
		{"- tool_calls:\n    - function: f\n      arguments: {a: .inf}\n", "f.yaml:3:22: ", "no JSON form"},
		{"- tool_calls:\n    - function: f\n      arguments: {[a]: 1}\n", "f.yaml:3:19: ", "keys must be text"},
		{"- tool_calls:\n    - function: f\n      arguments: {<<: {a: 1}}\n", "f.yaml:3:19: ", "merge keys"},
		{"- role: user\n", "f.yaml:1:9: ", "role can only be assistant"},
		{"- content: a\n---\n- content: b\n", "f.yaml:2:1: ", "one YAML document"},
		{"- content: a\n  tool_calls: [\n", "f.yaml:3:1: ", "did not find expected"},
		{"- content: a\n\tcontent: b\n", "f.yaml:2:1: ", "tab character"},
		{"- tool_calls:\n    - function: f\n      arguments: &a {x: *a}\n", "f.yaml:3:", "nested more than"},
		{`- tool_calls:
    - function: f
      arguments:
        a: &a [x, x, x, x, x, x, x, x, x, x]
        b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
        c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
        d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
        e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
        f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
        g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
`, "f.yaml:", "too many values"},
	} {
		_, err := scripted.Parse([]byte(tc.script), "f.yaml")
		if err == nil {
			t.Errorf("%q: no error", tc.script)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q:\n error %q\n want %q...%q", tc.script, err, tc.want, tc.says)
		}
		var se *policy.Error
		if !errors.As(err, &se) || se.Pos.File != "f.yaml" || se.Pos.Line < 1 || se.Pos.Col < 1 {
			t.Errorf("%q: error %#v is not a positioned *policy.Error", tc.script, err)
		}
	}
}

func TestLoad(t *testing.T) {
	for _, path := range []string{"testdata/demo.yaml", "testdata/demo.json"} {
		m, err := model.Open("scripted:"+path, model.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := generate(t, m)
		if r.Message.Content != "I'll look at the directory first." {
			t.Errorf("%s: content %q", path, r.Message.Content)
		}
		if got, want := strings.Join(texts(r.Message), "; "), "call_ls list_files(path='/tmp', recursive=True, depth=2); call_1_2 read_file(path='/tmp/notes.txt', limit=100)"; got != want {
			t.Errorf("%s: calls\n got %s\nwant %s", path, got, want)
		}
		r = generate(t, m)
		if c := r.Message.ToolCalls; len(c) != 1 || c[0].ParseError == "" || c[0].ArgumentsRaw != `{"cmd": "rm -rf /tmp/build` || c[0].ID != "call_2_1" {
			t.Errorf("%s: turn 2 %+v", path, r.Message)
		}
		if got := generate(t, m).Message.Content; got != "Done." {
			t.Errorf("%s: turn 3 %q", path, got)
		}
	}

	_, err := model.Open("scripted:testdata/missing.yaml", model.Options{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("opening a missing file: %v, want a not-exist error", err)
	}
}

func TestUsage(t *testing.T) {
	m := parse(t, `
- content: "0123456789abcdef0123"
- tool_calls: [{function: f, arguments_raw: "x"}]
`)
	resp, err := m.Generate(context.Background(), model.Request{Messages: []chat.Message{
		{Role: chat.System, Content: strings.Repeat("s", 100)},
		{Role: chat.User, Content: strings.Repeat("u", 300)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != (model.Usage{InputTokens: 100, OutputTokens: 5}) {
		t.Errorf("usage %+v, want 100 in, 5 out", resp.Usage)
	}
	resp = generate(t, m) // no input, tiny output: at least one each
	if resp.Usage != (model.Usage{InputTokens: 1, OutputTokens: 1}) {
		t.Errorf("usage %+v, want 1 in, 1 out", resp.Usage)
	}
	// Tool calls in the input count.
	big := tool.NewCall("c", "write", `{"text": "`+strings.Repeat("x", 390)+`"}`)
	resp = generate(t, m, chat.Message{Role: chat.Assistant, ToolCalls: []tool.Call{big}})
	if resp.Usage.InputTokens != 101 {
		t.Errorf("input tokens %d, want 101", resp.Usage.InputTokens)
	}
}

func TestNew(t *testing.T) {
	turns := []chat.Message{
		{Content: "a", ToolCalls: []tool.Call{tool.NewCall("", "f", `{"k": "v"}`), tool.NewCall("mine", "g", "")}},
		{Role: chat.Assistant, Content: "b"},
	}
	m := scripted.New(turns...)
	turns[0].Content = "changed"
	turns[0].ToolCalls[0].Arguments[2] = 'X'

	r := generate(t, m)
	if r.Message.Content != "a" || strings.Join(texts(r.Message), "; ") != "call_1_1 f(k='v'); mine g()" {
		t.Errorf("turn 1: %q %q", r.Message.Content, texts(r.Message))
	}
	if generate(t, m).Message.Content != "b" {
		t.Error("turn 2")
	}
	if msg := generate(t, m).Message; msg.Content != "" || msg.ToolCalls != nil {
		t.Errorf("after the script: %+v", msg)
	}

	if scripted.New().Remaining() != 0 {
		t.Error("empty model has turns")
	}
}

func TestCancelled(t *testing.T) {
	m := parse(t, `[{content: a}]`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Generate(ctx, model.Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if m.Remaining() != 1 {
		t.Error("a cancelled call consumed a turn")
	}
}

func TestConcurrent(t *testing.T) {
	const turns, workers = 200, 8
	var script strings.Builder
	for i := range turns {
		script.WriteString("- content: t")
		script.WriteString(strings.Repeat("x", i))
		script.WriteString("\n  tool_calls: [{function: f, arguments: {i: 1}}]\n")
	}
	m := parse(t, script.String())

	var (
		mu   sync.Mutex
		seen = map[string]int{}
		wg   sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for range turns + 1 { // bounded, so a broken model fails rather than hangs
				resp, err := m.Generate(context.Background(), model.Request{})
				if err != nil {
					t.Error(err)
					return
				}
				if resp.Message.Content == "" {
					return
				}
				mu.Lock()
				seen[resp.Message.Content]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != turns {
		t.Errorf("%d distinct turns replayed, want %d", len(seen), turns)
	}
	for content, n := range seen {
		if n != 1 {
			t.Errorf("turn %q replayed %d times", content, n)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"",
		"[]",
		"- content: hi\n",
		"- tool_calls: [{function: f, arguments: {b: 1, a: 'x'}}]\n",
		"- tool_calls: [{function: f, arguments_raw: '{\"a\": '}]\n",
		"- tool_calls: [{function: f, arguments: &a {x: *a}}]\n",
		"&a [*a]",
		"- tool_calls: [{function: f, arguments: {n: 0x1F, m: .5, k: 1e400, s: !!binary aGk=, t: !custom x}}]\n",
		"- content: a\n---\n- content: b\n",
		"- tool_calls: [{function: f, arguments: {<<: {a: 1}}}]\n",
		"[{\"content\": \"x\", \"tool_calls\": [{\"function\": \"f\", \"arguments\": {\"a\": [1, {\"b\": null}]}}]}]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := scripted.Parse(data, "fuzz.yaml")
		if err != nil {
			var se *policy.Error
			if !errors.As(err, &se) || se.Pos.Line < 1 || se.Pos.Col < 1 || se.Pos.File != "fuzz.yaml" {
				t.Fatalf("error %q is not a positioned *policy.Error", err)
			}
			return
		}
		for n := m.Remaining(); n >= 0; n-- {
			resp, err := m.Generate(context.Background(), model.Request{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range resp.Message.ToolCalls {
				if c.ID == "" || c.Function == "" {
					t.Fatalf("call %+v lacks an id or function", c)
				}
				if c.ParseError == "" && (!json.Valid(c.Arguments) || c.Arguments[0] != '{') {
					t.Fatalf("call %+v: arguments are not a JSON object", c)
				}
				_ = c.Text()
			}
		}
		if m.Remaining() != 0 {
			t.Fatalf("%d turns left after replaying all", m.Remaining())
		}
	})
}
