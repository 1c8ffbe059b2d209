package safetext

import "testing"

func TestH5_Escape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"overwrite\rApprove? [a/r/t]", `overwrite\x0dApprove? [a/r/t]`},
		{"back\bspace\x7f", `back\x08space\x7f`},
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"rtl \u202egnp.exe", `rtl \u202egnp.exe`},
		{"zero\u200bwidth\u2028sep", `zero\u200bwidth\u2028sep`},
		{"tag \U000E0041", `tag \U000e0041`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"ünïcödé 日本 ✓", "ünïcödé 日本 ✓"},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
