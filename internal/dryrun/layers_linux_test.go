//go:build linux

package dryrun

import (
	"path"
	"testing"
)

func TestG17_ParseLayers(t *testing.T) {
	got, err := parseLayers("0\t\"/usr\"\n1\t\"/home/me\"\n")
	if err != nil || len(got) != 2 || got[1] != (layer{upper: "1/u", host: "/home/me"}) {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, bad := range []string{"x\t\"/usr\"\n", "0\t\"usr\"\n", "0 \"/usr\"\n", "0\t\"/usr/../etc\"\n", "-1\t\"/\"\n", "0\t/usr\n"} {
		if _, err := parseLayers(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParseLayers(f *testing.F) {
	f.Add("0\t\"/usr\"\n1\t\"/home/me\"\n")
	f.Add("0\t\"/\"\n")
	f.Add("12\t\"/a\\tb/c\\n\"\n")
	f.Fuzz(func(t *testing.T, data string) {
		ls, err := parseLayers(data)
		if err != nil {
			return
		}
		for _, l := range ls {
			if !path.IsAbs(l.host) || path.Clean(l.host) != l.host || path.Base(l.upper) != "u" || path.IsAbs(l.upper) {
				t.Fatalf("bad layer %+v from %q", l, data)
			}
		}
	})
}
