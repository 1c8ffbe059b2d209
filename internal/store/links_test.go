package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// G16: the store refuses to open a database file with another name (a
// hard link, which the sandbox does not hide), with an error that says so.
func TestG16_StoreRefusesLinkedDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "state", "warden.db")
	s, err := Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(db, filepath.Join(dir, "planted.db")); err != nil {
		t.Skipf("no hard links: %v", err)
	}
	s, err = Open(context.Background(), "sqlite:"+db)
	if err == nil {
		s.Close()
		t.Fatal("a database with two names was opened")
	}
	if !strings.Contains(err.Error(), "2 names (hard links)") {
		t.Errorf("error %v", err)
	}
}
