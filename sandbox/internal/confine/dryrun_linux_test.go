//go:build linux

package confine

import (
	"path"
	"strings"
	"testing"
)

func TestG17_ParseMountinfo(t *testing.T) {
	data := `22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
23 22 0:5 / /dev rw,nosuid master:2 - devtmpfs devtmpfs rw
40 22 0:40 / /mnt/a\040b ro,nosuid,nodev - tmpfs none ro,size=4k
`
	got, err := ParseMountinfo(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []Mount{{"/", "ext4", false}, {"/dev", "devtmpfs", false}, {"/mnt/a b", "tmpfs", true}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i+1, got[i], want[i])
		}
	}
	for _, bad := range []string{"1 2 3", "1 2 0:1 / rel rw - ext4 x rw", "1 2 0:1 / /x rw ext4 x rw", `1 2 0:1 / /a\04 rw - ext4 x rw`} {
		if _, err := ParseMountinfo(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add("22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n")
	f.Add(`40 22 0:40 / /mnt/a\040b ro - tmpfs none ro` + "\n")
	f.Add("1 2 3 4 5 6 - \n")
	f.Fuzz(func(t *testing.T, data string) {
		ms, err := ParseMountinfo(data)
		if err != nil {
			return
		}
		for _, m := range ms {
			if !path.IsAbs(m.Point) || path.Clean(m.Point) != m.Point || m.FSType == "" || strings.Contains(m.FSType, " ") {
				t.Fatalf("bad mount %+v from %q", m, data)
			}
		}
	})
}
