//go:build linux

package confine

import (
	"reflect"
	"slices"
	"testing"
)

func TestSpecRoundTrip(t *testing.T) {
	s := Spec{
		Mode: "workspace-write", Path: "/bin/odd=name", Roots: []string{"/a=b", "/new\nline"}, Protected: []string{"/a=b/.git"},
		Network: true, Landlock: 7, UserNS: "user:[1]", NetNS: "", IDMap: "1000:1000", ParentMaps: true, MountNS: true,
		Temps: []Temp{{Path: "/tmp", Source: "/h/tmp/r=1/tmp"}, {Path: "/dev/shm"}},
		Cover: true, Dev: DevAll, ViewFD: 3, TraceFD: 4, ResolvConf: "/r/resolv.conf",
	}
	args := append(s.Args(), "prog", "--", "x=y")
	got, argv, err := Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) || !reflect.DeepEqual(argv, []string{"prog", "--", "x=y"}) {
		t.Errorf("Parse = %+v, %q", got, argv)
	}
	for _, bad := range [][]string{
		{"warden_sandbox=2", "--"},
		{Marker, "mode=read-only"},
		{Marker, "bogus=1", "--"},
		{Marker, "landlock=x", "--"},
		{Marker, "noequals", "--"},
		{Marker, "tempsrc=/x", "--"},
		{Marker, "viewfd=2", "--"},
		{Marker, "tracefd=x", "--"},
	} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}

// FuzzSpec checks that whatever Spec encodes, Parse decodes to the same
// Spec and the same command, whatever the strings hold.
func FuzzSpec(f *testing.F) {
	f.Add("workspace-write", "/bin/true", "/work", "/work/.git", "user:[1]", "1000:1000", 7, true, "--", "/tmp", "/h/tmp/r/tmp", DevMinimal)
	f.Add("", "", "", "", "", "", 0, false, "", "", "", "")
	f.Add("full-access", "/bin/sh", "", "/etc/warden/managed.toml", "user:[1]", "", 0, true, "-c", "", "", DevAll)
	f.Fuzz(func(t *testing.T, mode, path, root, protected, userns, idmap string, landlock int, network bool, arg, temp, tempsrc, dev string) {
		s := Spec{Mode: mode, Path: path, Roots: []string{root}, Protected: []string{protected}, Network: network,
			Landlock: landlock, UserNS: userns, IDMap: idmap, Temps: []Temp{{Path: temp, Source: tempsrc}}, Cover: network, Dev: dev}
		got, argv, err := Parse(append(s.Args(), arg))
		if err != nil {
			t.Fatalf("Parse(Args(%+v)): %v", s, err)
		}
		if !reflect.DeepEqual(got, s) || !slices.Equal(argv, []string{arg}) {
			t.Fatalf("Parse(Args(%+v)) = %+v, %q", s, got, argv)
		}
	})
}

// FuzzParseIdentityMap checks that whatever a uid_map holds, the parser
// either refuses it or maps IDs to themselves within the 32-bit ID space.
func FuzzParseIdentityMap(f *testing.F) {
	f.Add("         0          0 4294967295\n")
	f.Add("      1000       1000          1\n")
	f.Add("0 0 10\n5 5 10\n")
	f.Add("x y z\n")
	f.Add("0 0 0\n4294967295 0 2\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, data string) {
		m, err := ParseIdentityMap("uid_map", data)
		if err != nil {
			return
		}
		if len(m) == 0 {
			t.Fatal("an empty map accepted")
		}
		for _, e := range m {
			if e.ContainerID != e.HostID || e.Size <= 0 || e.ContainerID < 0 || uint64(e.ContainerID)+uint64(e.Size) > 1<<32 {
				t.Fatalf("%q: bad map %+v", data, e)
			}
		}
	})
}
