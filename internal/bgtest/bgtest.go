// Package bgtest runs a call in the background of a test, as a run asks an
// approver while the test plays the person, and hands over what it
// returned.
package bgtest

import "testing"

// Result is what a call made in the background returned.
type Result[T any] struct {
	Value T
	Err   error
}

// Must returns the result's value, failing the test on its error.
func (r Result[T]) Must(t testing.TB) T {
	t.Helper()
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	return r.Value
}

// Go calls f in a goroutine; the channel, buffered, receives what it
// returned.
func Go[T any](f func() (T, error)) <-chan Result[T] {
	done := make(chan Result[T], 1)
	go func() {
		v, err := f()
		done <- Result[T]{v, err}
	}()
	return done
}
