package rules

import "strings"

// unquote removes the quotes of the source text of a non-literal word.
func unquote(s string) string {
	if strings.ContainsAny(s, `"'`) {
		return strings.NewReplacer(`"`, "", `'`, "").Replace(s)
	}
	return s
}
