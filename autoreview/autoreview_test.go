package autoreview_test

import (
	"testing"

	"github.com/wardenhq/warden/approval"
	_ "github.com/wardenhq/warden/autoreview"
)

// TestRegistersAutoReview: importing the public package for its side
// effect registers the "auto_review" approver.
func TestRegistersAutoReview(t *testing.T) {
	if !approval.Registered("auto_review") {
		t.Fatal(`importing autoreview did not register the "auto_review" approver`)
	}
}
