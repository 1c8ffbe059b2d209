package mcp

import (
	"testing"

	"github.com/wardenhq/warden/boundary"
)

func ptr(b bool) *bool { return &b }

func TestG2_MCPModes(t *testing.T) {
	readOnly := Annotations{ReadOnlyHint: ptr(true)}
	safeWrite := Annotations{ReadOnlyHint: ptr(false), DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	destructive := Annotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}
	openWorld := Annotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)}
	none := Annotations{}
	tests := []struct {
		mode Mode
		a    Annotations
		want bool
	}{
		{Auto, readOnly, false},
		{Auto, safeWrite, false},
		{Auto, destructive, true},
		{Auto, openWorld, true},
		{Auto, none, true}, // missing hints: destructive and open-world
		{Writes, readOnly, false},
		{Writes, safeWrite, true},
		{Writes, none, true},
		{Prompt, readOnly, true},
		{Prompt, safeWrite, true},
		{Approve, none, false},
		{Approve, destructive, false},
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
	if m, err := ParseMode(""); err != nil || m != Auto {
		t.Errorf("default mode %q, %v", m, err)
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestG2_MCPAnnotationsOnlyFromTheServer(t *testing.T) {
	var tools Tools
	tools.Declare("fs", "read_file", Annotations{ReadOnlyHint: ptr(true)})
	if req := tools.Check(Auto, "fs", "read_file"); req != nil {
		t.Errorf("declared read-only tool needs approval: %+v", req)
	}
	// A tool the server never declared is judged by the defaults, whatever
	// a call might claim about itself.
	req := tools.Check(Auto, "fs", "delete_file")
	if req == nil || req.Permission != boundary.MCP || req.Tool != "delete_file" {
		t.Fatalf("undeclared tool: %+v", req)
	}
	// The same tool name on another server has its own declaration.
	if tools.Check(Auto, "other", "read_file") == nil {
		t.Error("a declaration leaked to another server")
	}
}
