package shelltest_test

import (
	"testing"

	"github.com/wardenhq/warden/internal/shell/shelltest"
)

// TestG16_AttacksAreReal: every attack, run by bash, deletes the victim, so
// the consumers' tests that check the victim survives can fail.
func TestG16_AttacksAreReal(t *testing.T) {
	for _, a := range shelltest.Attacks {
		dir := t.TempDir()
		v := shelltest.Victim(t, dir)
		shelltest.Run(t, dir, a)
		if shelltest.Exists(v) {
			t.Errorf("bash -c %q left the victim: not an attack", a)
		}
	}
}
