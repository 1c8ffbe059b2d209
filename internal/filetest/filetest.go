// Package filetest writes the files a test sets up.
package filetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes content to the file name in dir, creating the directories
// on the way, and returns the file's path; an error fails the test.
func Write(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// WriteAll writes each file of files, by its path relative to dir, with
// its content (see Write).
func WriteAll(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		Write(t, dir, name, content)
	}
}
