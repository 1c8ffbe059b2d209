// Package wordset is a set of words built once and then only read, in a
// form the garbage collector does not trace: the words in one byte array
// and an open-addressed table of their positions, with no pointer in it.
//
// The first pass keeps about 3,000 words in its lists for as long as a
// process runs. As maps of strings they were 340 kB of memory the
// collector scanned at every cycle: in BenchmarkJudgeTypical, which
// allocates as a judgement does, that tracing cost about 7k instructions a
// judgement (docs/performance.md); as Sets it is skipped.
package wordset

import (
	"iter"
	"slices"
	"unsafe"
)

// Set is a set of words, each with its position: the order in which Add
// first saw it. The zero Set is empty and ready to use. A Set is safe for
// concurrent reads once no one adds to it. Two Sets built by adding the
// same words in the same order are equal (reflect.DeepEqual).
type Set struct {
	// text holds the words one after another. Bytes once written are
	// never changed (Add only appends, Clone copies), so the strings
	// Word and All return may point into it.
	text  []byte
	ends  []uint32 // the end of word i in text; it starts at the end of word i-1
	slots []uint32 // 0 for an empty slot, else the position of a word plus one
}

// Len returns the number of words in s.
func (s *Set) Len() int { return len(s.ends) }

// Has reports whether w is in s.
func (s *Set) Has(w string) bool {
	_, ok := s.Index(w)
	return ok
}

// Index returns the position of w in s, and whether w is in it.
func (s *Set) Index(w string) (int, bool) {
	if len(s.slots) == 0 {
		return 0, false
	}
	mask := uint32(len(s.slots) - 1)
	for h := hash(w) & mask; ; h = (h + 1) & mask {
		i := s.slots[h]
		if i == 0 {
			return 0, false
		}
		if s.Word(int(i-1)) == w {
			return int(i - 1), true
		}
	}
}

// Word returns the word at position i.
func (s *Set) Word(i int) string {
	start := uint32(0)
	if i > 0 {
		start = s.ends[i-1]
	}
	if start == s.ends[i] {
		return ""
	}
	return unsafe.String(&s.text[start], int(s.ends[i]-start))
}

// All yields the words of s in the order they were added.
func (s *Set) All() iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range s.ends {
			if !yield(s.Word(i)) {
				return
			}
		}
	}
}

// Add adds w to s and returns its position, and whether it was new. A
// word already in s keeps its position.
func (s *Set) Add(w string) (int, bool) {
	if i, ok := s.Index(w); ok {
		return i, false
	}
	s.text = append(s.text, w...)
	s.ends = append(s.ends, uint32(len(s.text)))
	if n := len(s.ends); 2*n > len(s.slots) {
		s.rehash(4 * n)
	} else {
		s.place(n - 1)
	}
	return len(s.ends) - 1, true
}

// Grow makes room for n more words.
func (s *Set) Grow(n int) {
	s.ends = slices.Grow(s.ends, n)
	if need := 2 * (len(s.ends) + n); need > len(s.slots) {
		s.rehash(need)
	}
}

// rehash rebuilds the table with at least n slots.
func (s *Set) rehash(n int) {
	size := 8
	for size < n {
		size *= 2
	}
	s.slots = make([]uint32, size)
	for i := range s.ends {
		s.place(i)
	}
}

// place puts the word at position i in the table.
func (s *Set) place(i int) {
	mask := uint32(len(s.slots) - 1)
	h := hash(s.Word(i)) & mask
	for s.slots[h] != 0 {
		h = (h + 1) & mask
	}
	s.slots[h] = uint32(i + 1)
}

// Clone returns a copy of s that can grow without changing s.
func (s *Set) Clone() *Set {
	return &Set{text: append([]byte(nil), s.text...), ends: append([]uint32(nil), s.ends...), slots: append([]uint32(nil), s.slots...)}
}

// hash is FNV-1a, mixed so that the low bits, which pick a slot, depend
// on every byte. It is not seeded: the table holds the programs files'
// words, which the agent does not choose, so the words it looks up can
// only probe the runs those words made.
func hash(w string) uint32 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		h ^= uint64(w[i])
		h *= 1099511628211
	}
	return uint32(h ^ h>>32)
}
