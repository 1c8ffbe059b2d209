package argument

import (
	"slices"
	"testing"
)

// TestG14_Words checks how names of tools, servers and keys split into
// words: at anything that is not a letter or digit and at lower-to-upper
// case changes, in lower case.
func TestG14_Words(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"get_pull-requestFiles", []string{"get", "pull", "request", "files"}},
		{"HrGetEmployeeRecord", []string{"hr", "get", "employee", "record"}},
		{"mcp__bitwarden__get_item", []string{"mcp", "bitwarden", "get", "item"}},
		{"", nil},
	} {
		if got := Words(tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
