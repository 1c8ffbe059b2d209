package event_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/tool"
)

// G13: the reviewer's tool calls are events of their own kind,
// auto_review_tool, which read back as what was written; the auto_review
// record names its review, and its Tools never reach its line.
func TestG13_AutoReviewToolEvents(t *testing.T) {
	for _, d := range []event.Data{
		event.AutoReviewTool{ReviewID: "review-1", CallID: "c1", ToolCallID: "r1", Function: "bash",
			Arguments: json.RawMessage(`{"cmd":"cat x"}`), ResultBytes: 42,
			Error: &tool.Error{Type: tool.ErrPermission, Message: "refused"}, Refused: true},
		event.AutoReviewTool{ReviewID: "review-1", CallID: "c1", ToolCallID: "r2", Function: "list_dir",
			Arguments: json.RawMessage(`{}`), NotRun: true},
		event.AutoReview{CallID: "c1", ReviewID: "review-1", Status: "denied", Action: json.RawMessage(`{}`),
			Tools: []event.AutoReviewTool{{ReviewID: "review-1"}}},
	} {
		b, err := json.Marshal(event.Event{ID: "1", RunID: "r", Agent: "main", Data: d})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"tools"`) || strings.Contains(string(b), "denial_id") {
			t.Errorf("line %s", b)
		}
		var back event.Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		want := d
		if ar, ok := d.(event.AutoReview); ok {
			ar.Tools = nil
			want = ar
		}
		if back.Kind() != (event.Event{Data: d}).Kind() || !reflect.DeepEqual(back.Data, want) {
			t.Errorf("read back %#v, want %#v", back.Data, want)
		}
	}
}
