// Package stores opens the stores tests above the store use. It stands
// apart from storetest, which the store's own tests import.
package stores

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wardenhq/warden/internal/store"
)

// Open opens the store at the database URL u, closed when the test ends;
// an error fails the test.
func Open(t testing.TB, u string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Temp opens a new SQLite store in a temporary directory, closed when the
// test ends; an error fails the test.
func Temp(t testing.TB) *store.Store {
	t.Helper()
	return Open(t, "sqlite:"+filepath.Join(t.TempDir(), "warden.db"))
}
