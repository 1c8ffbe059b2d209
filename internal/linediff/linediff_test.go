package linediff

import (
	"slices"
	"strings"
	"testing"
)

// sides rebuilds the old and the new text from a diff.
func sides(d []Line) (a, b []string) {
	for _, l := range d {
		if l.Op != '+' {
			a = append(a, l.Text)
		}
		if l.Op != '-' {
			b = append(b, l.Text)
		}
	}
	return a, b
}

func render(d []Line) string {
	var b strings.Builder
	Write(&b, d)
	return b.String()
}

func TestH1_LinesKeepCommonLines(t *testing.T) {
	for _, tc := range []struct {
		name, a, b, want string
	}{
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", " a\n-b\n+B\n c\n"},
		{"all replaced", "x = 1\ny = 2", "x = 3", "-x = 1\n-y = 2\n+x = 3\n"},
		{"deleted", "gone", "", "-gone\n"},
		{"added", "", "new\n", "+new\n"},
		{"inserted in the middle", "a\nc", "a\nb\nc", " a\n+b\n c\n"},
		{"moved line", "a\nb\nc", "b\nc\na", "-a\n b\n c\n+a\n"},
		{"same", "a\nb", "a\nb\n", " a\n b\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(Lines(Split(tc.a), Split(tc.b))); got != tc.want {
				t.Errorf("diff:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestH1_LinesBoundsWork(t *testing.T) {
	a := make([]string, 1000)
	b := make([]string, 1000)
	for i := range a {
		a[i], b[i] = "same", "same"
	}
	d := Lines(a, b)
	if len(d) != 2000 || d[0].Op != '-' || d[1999].Op != '+' {
		t.Fatalf("a diff over MaxCells was matched: %d lines", len(d))
	}
}

// FuzzH1_Lines checks that a diff holds both texts: its context and
// removed lines are the old text, its context and added lines the new one,
// and it is no longer than both together.
func FuzzH1_Lines(f *testing.F) {
	for _, s := range [][2]string{{"a\nb\nc", "a\nB\nc"}, {"", "x"}, {"x\nx\nx", "x"}, {"a\nb", "b\na"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := Split(x), Split(y)
		d := Lines(a, b)
		ga, gb := sides(d)
		if !slices.Equal(ga, a) || !slices.Equal(gb, b) {
			t.Fatalf("diff of %q and %q gives back %q and %q", a, b, ga, gb)
		}
		if len(d) > len(a)+len(b) {
			t.Fatalf("diff of %d and %d lines has %d lines", len(a), len(b), len(d))
		}
	})
}

// editedFile returns the lines of a 500-line file and of the same file
// with every tenth line changed, near the bound of MaxCells.
func editedFile() (a, b []string) {
	a = make([]string, 500)
	b = make([]string, 500)
	for i := range a {
		a[i] = "line " + strings.Repeat("x", i%40) + string(rune('a'+i%26))
		b[i] = a[i]
		if i%10 == 0 {
			b[i] += " changed"
		}
	}
	return a, b
}

// BenchmarkH1_Lines diffs the edit of editedFile.
func BenchmarkH1_Lines(b *testing.B) {
	x, y := editedFile()
	b.ReportAllocs()
	for b.Loop() {
		Lines(x, y)
	}
}
