package filepos

import (
	"errors"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestParseYAML: a document is read with its positions; bytes that are
// not UTF-8 and syntax errors are errors at their file:line:col.
func TestParseYAML(t *testing.T) {
	for _, tc := range []struct {
		name, data, err string
	}{
		{"mapping", "a: 1\nb: [x]\n", ""},
		{"empty", "", ""},
		{"not UTF-8", "a: 1\nb: \xff\n", "f.yaml:2:4: invalid UTF-8 (byte 0xFF): the file must be UTF-8 text"},
		{"syntax", "a: [1\nb: 2\n", "f.yaml:2:1: did not find expected"},
	} {
		doc, err := ParseYAML("f.yaml", []byte(tc.data))
		if tc.err == "" {
			if err != nil || doc == nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var pe *Error
		if err == nil || !errors.As(err, &pe) || len(err.Error()) < len(tc.err) || err.Error()[:len(tc.err)] != tc.err {
			t.Errorf("%s: error %v, want one starting %q", tc.name, err, tc.err)
		}
	}
	doc, err := ParseYAML("f.yaml", []byte("a: 1\nb: [x]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if root := doc.Content[0]; root.Kind != yaml.MappingNode || root.Content[2].Line != 2 {
		t.Errorf("the document lost its shape or positions: %+v", root)
	}
}
