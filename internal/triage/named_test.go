package triage

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/internal/triage/judge"
	"github.com/wardenhq/warden/internal/vocab"
)

// TestFirstPass1_ListIndexHidesNoEntry checks the index that lets a tool's
// words skip the lists that cannot name them (Knowledge.MayName): every
// entry of every list, given as its words, is one the index says the list
// may name, so no entry is skipped; words no list holds are skipped.
func TestFirstPass1_ListIndexHidesNoEntry(t *testing.T) {
	k := judge.DefaultKnowledge()
	entries := 0
	for _, l := range judge.ListSpecs {
		for _, w := range k.Words(l.Name) {
			ws := strings.FieldsFunc(w, func(r rune) bool { return r == '+' || r == ' ' })
			if k.Names(l.Name, ws) == "" {
				continue // an entry Names reads differently (a pair whose parts repeat)
			}
			entries++
			if !k.MayName([]string{l.Name}, ws) {
				t.Errorf("list %s: the index hides the entry %q", l.Name, w)
			}
		}
	}
	if entries < 1000 {
		t.Errorf("only %d entries checked", entries)
	}
	for _, ws := range [][]string{{"zzqx"}, {"frobnicate", "widgets"}, nil} {
		if names := judge.ListNames(); k.MayName(names, ws) {
			t.Errorf("the index says %v may be named", ws)
		}
	}
}

// TestFirstPass1_UsersToolWordsAreIndexed: words a user's programs file
// adds to the lists of what a tool's name touches are found however the
// embedded lists are indexed: a call to a tool named after them is passed
// on, as it is not without the file.
func TestFirstPass1_UsersToolWordsAreIndexed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "programs.yaml")
	if err := os.WriteFile(path, []byte("version: 1\nlists:\n  tool_credential_words: [grimoire, \"spell+scroll\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mine, err := judge.DefaultKnowledge().WithFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"get_grimoire_files", "get_spell_scroll"} {
		a := action.Action{Kind: action.MCP, Server: "github", ToolName: name, Arguments: json.RawMessage(`{"owner":"acme","repo":"ledger"}`)}
		if v := judge.DefaultKnowledge().Judge(a, nil); v.Decision != vocab.Allow {
			t.Fatalf("%s without the file: %s (%s); the test needs a tool allowed by default", name, v.Decision, v.Reason)
		}
		v := mine.Judge(a, nil)
		if v.Decision != vocab.Escalate || !strings.Contains(v.Reason, "touches credentials") {
			t.Errorf("%s with the file: %s (%s), want it passed on as touching credentials", name, v.Decision, v.Reason)
		}
	}
}
