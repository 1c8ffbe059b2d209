package wordset

import (
	"fmt"
	"reflect"
	"testing"
)

// TestSetHoldsWhatWasAdded: every word added is found at its position,
// words not added are not found, and a clone grows apart from its
// original.
func TestSetHoldsWhatWasAdded(t *testing.T) {
	var s Set
	if s.Has("") || s.Has("a") || s.Len() != 0 {
		t.Fatal("the zero Set holds a word")
	}
	var words []string
	for i := range 3000 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	words = append(words, "", "a+b", "a b", "w1x")
	for i, w := range words {
		if p, added := s.Add(w); !added || p != i {
			t.Fatalf("Add(%q) = %d, %v; want %d, true", w, p, added, i)
		}
	}
	if p, added := s.Add("w17"); added || p != 17 {
		t.Fatalf("Add of a word held = %d, %v; want 17, false", p, added)
	}
	if s.Len() != len(words) {
		t.Fatalf("Len %d, want %d", s.Len(), len(words))
	}
	for i, w := range words {
		if p, ok := s.Index(w); !ok || p != i {
			t.Fatalf("Index(%q) = %d, %v; want %d", w, p, ok, i)
		}
	}
	for _, w := range []string{"w", "w3000", "w1 ", "a", "b", "w12w", "A+B"} {
		if s.Has(w) {
			t.Fatalf("Has(%q) of a word never added", w)
		}
	}
	c := s.Clone()
	c.Add("new")
	if s.Has("new") || !c.Has("new") || !c.Has("w2999") {
		t.Fatal("a clone and its original share what is added")
	}
	s.Add("other")
	if c.Has("other") || !c.Has("new") || !s.Has("other") {
		t.Fatal("an original and its clone share what is added")
	}
	i := 0
	for w := range s.All() {
		if w != words[i] || s.Word(i) != w {
			t.Fatalf("All: word %d is %q, want %q", i, w, words[i])
		}
		if i++; i == len(words) {
			break
		}
	}
}

// TestSetsOfTheSameWordsAreEqual: the first pass compares the lists its
// generated tables build with those its parser reads (reflect.DeepEqual).
func TestSetsOfTheSameWordsAreEqual(t *testing.T) {
	var a, b Set
	a.Grow(3)
	for _, w := range []string{"x", "y", "z"} {
		a.Add(w)
	}
	b.Grow(3)
	for _, w := range []string{"x", "y", "z", "y"} {
		b.Add(w)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two sets of the same words differ")
	}
	b.Add("w")
	if reflect.DeepEqual(a, b) {
		t.Fatal("two sets of different words are equal")
	}
}

// BenchmarkHas measures finding a word among 500, and missing one.
func BenchmarkHas(b *testing.B) {
	var s Set
	for i := range 500 {
		s.Add(fmt.Sprintf("word%d", i))
	}
	for b.Loop() {
		if !s.Has("word250") || s.Has("absent") {
			b.Fatal("wrong")
		}
	}
}
