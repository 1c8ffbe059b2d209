package agent

import (
	"context"
	"testing"

	"github.com/wardenhq/warden/approval"
	"github.com/wardenhq/warden/chat"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/tool"
)

func TestG12_DenialLogKeepsTheLastTen(t *testing.T) {
	var turns []chat.Message
	for i := 0; i < 12; i++ {
		turns = append(turns, turn("", tc("c", "write", `{}`)))
	}
	r, _ := newRun(&script{turns: turns})
	r.Breaker = Breaker{Consecutive: 100, Denials: 100, Window: 100}
	r.Boundary = approval.New(arule(t, "auto_review", reviewed(event.ReviewDenied), "*"))
	must(t, r.Execute(context.Background(), &Agent{Tools: []tool.Tool{crossing()}}, user("go")), event.StatusCompleted)
	ds := r.Denials()
	if len(ds) != MaxDenials || ds[0].ID != "r1-d3" || ds[9].ID != "r1-d12" {
		t.Fatalf("denials = %d, first %s", len(ds), ds[0].ID)
	}
	if err := r.Override("r1-d1", "dana", ""); err == nil {
		t.Error("an override of a forgotten denial was accepted")
	}
	if err := r.Override("r1-d12", "dana", "fine"); err != nil {
		t.Fatal(err)
	}
}

func TestG12_OverrideIsSingleUseAndExact(t *testing.T) {
	if !sameJSON([]byte(`{"a":">","b":[1]}`), []byte("{ \"b\": [1], \"a\": \"\\u003e\" }")) {
		t.Error("equal actions compare unequal")
	}
	if sameJSON([]byte(`{"a":"x"}`), []byte(`{"a":"y"}`)) {
		t.Error("different actions compare equal")
	}
	var l denialLog
	d := l.add("r", Denial{Action: []byte(`{"command":"rm x"}`)})
	l.grants = append(l.grants, grant{denial: d})
	if _, ok := l.take([]byte(`{"command":"rm y"}`)); ok {
		t.Error("an override applied to a similar action")
	}
	if _, ok := l.take([]byte(`{"command": "rm x"}`)); !ok {
		t.Error("the override did not apply to the exact action")
	}
	if _, ok := l.take([]byte(`{"command":"rm x"}`)); ok {
		t.Error("an override applied twice")
	}
}
