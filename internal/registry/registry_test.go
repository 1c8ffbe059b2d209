package registry

import (
	"slices"
	"testing"
)

// A name is registered once, found by Get, and listed sorted; a
// second registration of a name panics with its name.
func TestRegistryKeepsEachNameOnce(t *testing.T) {
	r := New[int]("test: registered twice: ")
	r.Register("b", 2)
	r.Register("a", 1)
	if v, ok := r.Get("b"); !ok || v != 2 {
		t.Fatalf("Get(b) = %d, %v; want 2, true", v, ok)
	}
	if _, ok := r.Get("c"); ok {
		t.Fatal("Get(c) found an unregistered name")
	}
	if got := r.Names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Names() = %v; want [a b]", got)
	}
	defer func() {
		if p := recover(); p != "test: registered twice: a" {
			t.Fatalf("second Register(a) panicked with %v", p)
		}
		if v, _ := r.Get("a"); v != 1 {
			t.Fatalf("second Register(a) replaced the value: %d", v)
		}
	}()
	r.Register("a", 3)
}
