package bash

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/cutreport"
)

// An output cut at the capture limit says so (issue 21 item 6): a command
// that prints more than MaxBytes has its middle dropped, and the call
// reports [bytes printed, bytes kept] to whoever runs it; one that fits
// reports nothing.
func TestL3_OutputCutAtCaptureLimitSaysSo(t *testing.T) {
	tl := newShell(Options{MaxBytes: 1000})
	for _, tc := range []struct {
		cmd  string
		want *[2]int
	}{
		{"head -c 5000 /dev/zero | tr '\\0' x", &[2]int{5000, 1000}},
		{"head -c 1000 /dev/zero | tr '\\0' x", nil},
		{"echo small", nil},
	} {
		ctx, report := cutreport.With(context.Background())
		args, _ := json.Marshal(map[string]string{"cmd": tc.cmd})
		out, err := tl.Run(ctx, args)
		if err != nil {
			t.Fatalf("%s: %v", tc.cmd, err)
		}
		got := report.Cut()
		switch {
		case tc.want == nil && got != nil:
			t.Errorf("%s: reported a cut %v of a whole output", tc.cmd, *got)
		case tc.want != nil && (got == nil || *got != *tc.want):
			t.Errorf("%s: cut %v, want %v", tc.cmd, got, *tc.want)
		case tc.want != nil && !strings.Contains(out, "bytes of output dropped"):
			t.Errorf("%s: output %q does not say it was cut", tc.cmd, out)
		}
	}
	// With no one asking, a cut is not reported and nothing fails.
	if _, err := tl.Run(context.Background(), json.RawMessage(`{"cmd":"head -c 5000 /dev/zero"}`)); err != nil {
		t.Fatal(err)
	}
}
