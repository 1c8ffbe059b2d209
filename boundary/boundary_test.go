package boundary

import (
	"context"
	"errors"
	"testing"
)

func ptr(b bool) *bool { return &b }

func TestG2_MCPModes(t *testing.T) {
	readOnly := Annotations{ReadOnlyHint: ptr(true)}
	safeWrite := Annotations{ReadOnlyHint: ptr(false), DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	destructive := Annotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}
	openWorld := Annotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)}
	none := Annotations{}
	tests := []struct {
		mode MCPMode
		a    Annotations
		want bool
	}{
		{MCPAuto, readOnly, false},
		{MCPAuto, safeWrite, false},
		{MCPAuto, destructive, true},
		{MCPAuto, openWorld, true},
		{MCPAuto, none, true}, // missing hints: destructive and open-world
		{MCPWrites, readOnly, false},
		{MCPWrites, safeWrite, true},
		{MCPWrites, none, true},
		{MCPPrompt, readOnly, true},
		{MCPPrompt, safeWrite, true},
		{MCPApprove, none, false},
		{MCPApprove, destructive, false},
	}
	for _, tt := range tests {
		got, why := tt.mode.NeedsApproval(tt.a)
		if got != tt.want || (got && why == "") {
			t.Errorf("%s %+v: needs approval %v (%q), want %v", tt.mode, tt.a, got, why, tt.want)
		}
	}
}

func TestG2_MCPMissingHintsDefaults(t *testing.T) {
	var a Annotations
	if a.ReadOnly() || !a.Destructive() || !a.OpenWorld() {
		t.Errorf("defaults: read-only %v destructive %v open-world %v", a.ReadOnly(), a.Destructive(), a.OpenWorld())
	}
	if m, err := ParseMCPMode(""); err != nil || m != MCPAuto {
		t.Errorf("default mode %q, %v", m, err)
	}
	if _, err := ParseMCPMode("sometimes"); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestG2_MCPAnnotationsOnlyFromTheServer(t *testing.T) {
	var tools MCPTools
	tools.Declare("fs", "read_file", Annotations{ReadOnlyHint: ptr(true)})
	if req := tools.Check(MCPAuto, "fs", "read_file"); req != nil {
		t.Errorf("declared read-only tool needs approval: %+v", req)
	}
	// A tool the server never declared is judged by the defaults, whatever
	// a call might claim about itself.
	req := tools.Check(MCPAuto, "fs", "delete_file")
	if req == nil || req.Kind != MCP || req.Tool != "delete_file" {
		t.Fatalf("undeclared tool: %+v", req)
	}
	// The same tool name on another server has its own declaration.
	if tools.Check(MCPAuto, "other", "read_file") == nil {
		t.Error("a declaration leaked to another server")
	}
}

func TestG2_AskFailsClosedWithoutDecider(t *testing.T) {
	dec, err := Ask(context.Background(), &Request{Kind: Write, Reason: "outside roots"})
	if dec.Approved || !errors.Is(err, ErrNoDecider) {
		t.Errorf("decision %+v, err %v", dec, err)
	}
	failing := DeciderFunc(func(context.Context, *Request) (Decision, error) {
		return Decision{Approved: true}, errors.New("reviewer crashed")
	})
	dec, err = Ask(WithDecider(context.Background(), failing), &Request{Kind: Exec})
	if dec.Approved || err == nil {
		t.Errorf("a failing decider approved: %+v, %v", dec, err)
	}
	ok := DeciderFunc(func(_ context.Context, r *Request) (Decision, error) {
		return Decision{Approved: r.Kind == Network, By: "test"}, nil
	})
	if dec, err := Ask(WithDecider(context.Background(), ok), &Request{Kind: Network}); !dec.Approved || err != nil {
		t.Errorf("approved request: %+v, %v", dec, err)
	}
}
