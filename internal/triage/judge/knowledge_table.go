package judge

import (
	"fmt"
	"slices"
)

// entrySpec is one entry of the embedded programs file, programs.yaml, as
// go generate writes it into programs_gen.go: the file's words, unchecked.
// A test reads programs.yaml with the parser of the users' files and
// checks that the tables build the same knowledge.
type entrySpec struct {
	line                                   int
	names                                  []string
	does, judge, def, operands, valueShort string
	valueLong                              []string
	subs                                   []string // word, effect, word, effect, …
	facts                                  []string // the facts that are true
}

// listSpecWords is one list of the embedded programs file's lists:.
type listSpecWords struct {
	name  string
	words []string
}

// EmbeddedKnowledge builds the knowledge of the embedded programs file from
// the generated tables, with the judges reg.
func EmbeddedKnowledge(reg map[string]func(*Script, *Command)) (*Knowledge, error) {
	names := 0
	for i := range embeddedEntries {
		names += len(embeddedEntries[i].names)
	}
	k := &Knowledge{Programs: make(map[string]*program, names),
		Lists: make(map[string]*wordList, len(embeddedLists)), files: []string{EmbeddedProgramsFile}, fs: &lookups{}, secrets: &pathSecrets{}}
	for i := range embeddedEntries {
		e := &embeddedEntries[i]
		p := &program{at: fmt.Sprintf("%s:%d", EmbeddedProgramsFile, e.line), does: e.does, JudgeName: e.judge,
			def: e.def, operands: e.operands, valueShort: e.valueShort, valueLong: e.valueLong}
		if e.judge != "" {
			if p.Judge = reg[e.judge]; p.Judge == nil {
				return nil, fmt.Errorf("%s: judge %q is not a judge of the first pass", p.at, e.judge)
			}
		}
		if e.subs != nil {
			p.subs = make(map[string]string, len(e.subs)/2)
			for j := 0; j+1 < len(e.subs); j += 2 {
				p.subs[e.subs[j]] = e.subs[j+1]
			}
		}
		for _, f := range e.facts {
			for _, fk := range factKeys {
				if fk.key == f {
					p.facts |= fk.fact
				}
			}
		}
		for _, n := range e.names {
			k.Programs[n] = p
		}
	}
	for _, l := range embeddedLists {
		w := &wordList{Words: make([]string, 0, len(l.words))}
		w.set.Grow(len(l.words))
		for _, word := range l.words {
			w.addWord(word)
		}
		if len(w.Words) == len(l.words) {
			// No word twice: the generated table itself, capped so that
			// a user's words are appended to a copy. The copy made above
			// is garbage at once, and the collector no longer traces
			// 55 kB of string headers at every cycle.
			w.Words = slices.Clip(l.words)
		}
		k.Lists[l.name] = w
	}
	for _, l := range ListSpecs {
		if k.Lists[l.Name] == nil {
			return nil, fmt.Errorf("%s: missing list %s", EmbeddedProgramsFile, l.Name)
		}
	}
	k.named = indexNamed(k.Lists)
	return k, nil
}
