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
		Cover: true, Dev: DevAll,
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
	} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}

// FuzzSpec checks that whatever Spec encodes, Parse decodes to the same
// Spec and the same command, whatever the strings hold.
func FuzzSpec(f *testing.F) {
	f.Add("workspace-write", "/bin/true", "/work", "/work/.git", "user:[1]", "1000:1000", 7, true, "--")
	f.Add("", "", "", "", "", "", 0, false, "")
	f.Fuzz(func(t *testing.T, mode, path, root, protected, userns, idmap string, landlock int, network bool, arg string) {
		s := Spec{Mode: mode, Path: path, Roots: []string{root}, Protected: []string{protected}, Network: network,
			Landlock: landlock, UserNS: userns, IDMap: idmap}
		got, argv, err := Parse(append(s.Args(), arg))
		if err != nil {
			t.Fatalf("Parse(Args(%+v)): %v", s, err)
		}
		if !reflect.DeepEqual(got, s) || !slices.Equal(argv, []string{arg}) {
			t.Fatalf("Parse(Args(%+v)) = %+v, %q", s, got, argv)
		}
	})
}
