package scripted

import (
	"errors"
	"io/fs"
	"testing"
)

// TestLoadMissingFile: a script file that does not exist is a not-exist
// error (model.Open("scripted:PATH") gives the same, in TestLoad).
func TestLoadMissingFile(t *testing.T) {
	_, err := load("testdata/missing.yaml")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want a not-exist error", err)
	}
}
