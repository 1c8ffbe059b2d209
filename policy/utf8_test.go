package policy_test

import (
	"errors"
	"testing"

	"github.com/wardenhq/warden/internal/filepos"
	"github.com/wardenhq/warden/policy"
)

// Issue 10 item 8: the first byte that is not UTF-8 is reported at its
// line and column (in characters), not at 1:1.
func TestNewcomer8_NonUTF8Position(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        string
		line, col int
	}{
		{"first byte", "\xffapprovers: []\n", 1, 1},
		{"third line", "approvers:\n  - name: auto\n    tools: \"x\xe9\"\n", 3, 14},
		{"after multibyte characters", "# héllo wörld\nreviewers: [\xc3]\n", 2, 13},
		{"truncated sequence at the end", "approvers: []\n# \xe2\x82", 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, err := range []error{filepos.CheckUTF8("p.yaml", []byte(tc.in)), func() error { _, err := policy.Parse([]byte(tc.in), "p.yaml"); return err }()} {
				var pe *policy.Error
				if !errors.As(err, &pe) || pe.Pos.Line != tc.line || pe.Pos.Col != tc.col {
					t.Errorf("%v, want p.yaml:%d:%d", err, tc.line, tc.col)
				}
			}
		})
	}
	for _, ok := range []string{"", "approvers: []\n", "# héllo\n", "\xef\xbb\xbfapprovers: []\n", "\xff\xfea\x00"} {
		if err := filepos.CheckUTF8("p.yaml", []byte(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
