package wire

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/model"
	"github.com/wardenhq/warden/tool"
)

func TestL6_SchemaAndToolText(t *testing.T) {
	for _, tc := range []struct {
		params, want string
		bad          bool
	}{
		{"", emptySchema, false},
		{" null ", emptySchema, false},
		{`{"type":"object","properties":{"z":{},"a":{}}}`, `{"type":"object","properties":{"z":{},"a":{}}}`, false},
		{`"x"`, "", true},
		{`[1]`, "", true},
		{`{"a":`, "", true},
	} {
		got, err := Schema(tool.Info{Name: "t", Parameters: json.RawMessage(tc.params)})
		if tc.bad != (err != nil) || (!tc.bad && string(got) != tc.want) {
			t.Errorf("Schema(%q) = %s, %v", tc.params, got, err)
		}
	}
	failed := chat.Message{Role: chat.Tool, Error: tool.Errorf(tool.ErrParsing, "bad arguments")}
	if got := ToolText(failed); got != failed.Error.Error() || got == "" {
		t.Errorf("ToolText of a failed call = %q", got)
	}
	if got := ToolText(chat.Message{Role: chat.Tool, Content: "out", Error: failed.Error}); got != "out" {
		t.Errorf("ToolText kept %q, want the content", got)
	}
}

// ClientOptions makes an option for each setting given, none for the
// others, and none for a negative number of retries.
func TestClientOptions(t *testing.T) {
	mk := func(kind string) func(string) string { return func(v string) string { return kind + "=" + v } }
	retries := func(n int) string { return "retries=" + strconv.Itoa(n) }
	zero, neg := 0, -1
	for _, tc := range []struct {
		opts model.Options
		want string
	}{
		{model.Options{}, ""},
		{model.Options{BaseURL: "http://x", APIKey: "k", MaxRetries: &zero}, "base=http://x key=k retries=0"},
		{model.Options{APIKey: "k", MaxRetries: &neg}, "key=k"},
	} {
		if got := strings.Join(ClientOptions(tc.opts, mk("base"), mk("key"), retries), " "); got != tc.want {
			t.Errorf("ClientOptions(%+v) = %q, want %q", tc.opts, got, tc.want)
		}
	}
}
