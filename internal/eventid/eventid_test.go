package eventid

import (
	"fmt"
	"testing"
)

// TestL8_IDsRoundTrip: an id Make gives reads back as its number, as the
// Recorder's ids always have (fmt's %06d); other forms are not numbered.
func TestL8_IDsRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 42, 999999, 1000000, 123456789} {
		id := Make("run-1", n)
		if want := fmt.Sprintf("run-1-%06d", n); id != want {
			t.Errorf("Make(%d) = %q, want %q", n, id, want)
		}
		if got, ok := Number("run-1", id); !ok || got != n {
			t.Errorf("Number(%q) = %d, %v", id, got, ok)
		}
	}
	for _, id := range []string{"run-1", "run-1-", "run-2-000001", "run-1-override-x", "run-1-0000000000001", "run-10-000001", "run-1x000001"} {
		if n, ok := Number("run-1", id); ok {
			t.Errorf("Number(%q) = %d, true; want not numbered", id, n)
		}
	}
}
