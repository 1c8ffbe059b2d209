//go:build linux

package dryrun

import (
	"encoding/binary"
	"path"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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

// fanotifyEvent builds one event with a DFID_NAME record naming name.
func fanotifyEvent(name string) []byte {
	handle := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	rec := make([]byte, 20, 64)
	rec[0] = unix.FAN_EVENT_INFO_TYPE_DFID_NAME
	binary.NativeEndian.PutUint32(rec[12:16], uint32(len(handle)))
	rec = append(append(append(rec, handle...), name...), 0)
	binary.NativeEndian.PutUint16(rec[2:4], uint16(len(rec)))
	ev := make([]byte, unix.FAN_EVENT_METADATA_LEN)
	binary.NativeEndian.PutUint16(ev[6:8], unix.FAN_EVENT_METADATA_LEN)
	ev = append(ev, rec...)
	binary.NativeEndian.PutUint32(ev[0:4], uint32(len(ev)))
	return ev
}

func TestG17_FanotifyNames(t *testing.T) {
	got, ok := fanotifyNames(append(fanotifyEvent("id_rsa"), fanotifyEvent("config")...))
	if !ok || !slices.Equal(got, []string{"id_rsa", "config"}) {
		t.Fatalf("got %q, %v", got, ok)
	}
	if got, ok := fanotifyNames(fanotifyEvent("../x")); !ok || len(got) != 0 {
		t.Errorf("a name with a slash: %q", got)
	}
	if _, ok := fanotifyNames(fanotifyEvent("id_rsa")[:30]); ok {
		t.Error("a cut event parsed")
	}
}

func FuzzFanotifyNames(f *testing.F) {
	f.Add(fanotifyEvent("id_rsa"))
	f.Add(append(fanotifyEvent("a"), fanotifyEvent("credentials")...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, buf []byte) {
		names, _ := fanotifyNames(buf)
		for _, n := range names {
			if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\x00") {
				t.Fatalf("bad name %q", n)
			}
		}
	})
}
