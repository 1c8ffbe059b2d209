package scripted_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/model/scripted"
)

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
			var se *scripted.Error
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 || se.File != "fuzz.yaml" {
				t.Fatalf("error %q is not a positioned *scripted.Error", err)
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
