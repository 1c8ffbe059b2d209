package triage_test

import (
	"testing"

	"github.com/wardenhq/warden/approval"
	_ "github.com/wardenhq/warden/triage"
)

// TestRegistersRules: importing the public package for its side effect
// registers the "rules" approver, as README's library example relies on.
func TestRegistersRules(t *testing.T) {
	if !approval.Registered("rules") {
		t.Fatal(`importing triage did not register the "rules" approver`)
	}
}
