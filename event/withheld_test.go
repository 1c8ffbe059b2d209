package event

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/policy"
	"github.com/wardenhq/warden/tool"
)

// The new events round-trip through JSON Lines and never repeat a header
// field (their text rendering is tested in internal/render).
func TestR2_WithheldAndHandoffEventsRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	rec := NewRecorder("run-1", NewWriter(&buf))
	te := &tool.Error{Type: tool.ErrLimit, Message: "the run was stopped at this call"}
	entries := []policy.Entry{{Name: "auto", Tools: []string{"*"}}}
	rec.Emit(RunStart{Task: "t", Agents: []AgentPolicies{{Agent: "main", ApprovalFrom: eventkind.FromRun, ReviewFrom: eventkind.FromRun},
		{Agent: "helper", Parent: "main", Approval: []policy.Entry{}, ApprovalFrom: "agent:helper", ReviewFrom: eventkind.FromRun}}, PinPolicy: true})
	rec.For("helper", "h1").Emit(Handoff{CallID: "h1", From: "main", Approval: entries, ApprovalFrom: eventkind.FromRun, ReviewFrom: eventkind.FromRun, PinPolicy: true})
	rec.Emit(Withheld{CallID: "c1", Function: "bash", Reason: eventkind.WithheldTerminated, Result: te.Error(), Error: te})
	var got []Event
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &fields); err != nil {
			t.Fatal(err)
		}
		if strings.Count(line, `"agent":`) != 1+strings.Count(line, `{"agent":`) {
			t.Errorf("a header field repeated: %s", line)
		}
		var e Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	rs := got[0].Data.(RunStart)
	if !rs.PinPolicy || len(rs.Agents) != 2 || rs.Agents[1].Approval == nil || rs.Agents[0].Approval != nil {
		t.Errorf("run_start = %+v", rs)
	}
	h := got[1].Data.(Handoff)
	if got[1].Agent != "helper" || h.From != "main" || len(h.Approval) != 1 || !h.PinPolicy {
		t.Errorf("handoff = %+v %+v", got[1], h)
	}
	w := got[2].Data.(Withheld)
	if w.Reason != eventkind.WithheldTerminated || w.Error == nil || w.Error.Type != tool.ErrLimit || w.Result != te.Error() {
		t.Errorf("withheld = %+v", w)
	}
}
