// Package sealtest helps tests of sealed transcripts (SPEC L8): it seals a
// transcript file again, as warden would have written it, with warden's
// key — what the agent, without that key, cannot do. Tests whose point is
// how a transcript of some shape is read (a crash's, a forged record's
// behind the chain) give the file that shape, then reseal it.
package sealtest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/wardenhq/warden/internal/seal"
)

// Reseal seals every line of the transcript at path again under key,
// dropping the MACs it had, and rewrites the head records of its runs in
// heads.
func Reseal(path string, key seal.MACKey, heads seal.Heads) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	c := seal.NewChain(key)
	var out []string
	for n, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if i := strings.LastIndex(l, `,"line_mac":"`); i > 0 {
			l = l[:i] + "}"
		}
		var h struct {
			RunID string `json:"run_id"`
		}
		if err := json.Unmarshal([]byte(l), &h); err != nil {
			return fmt.Errorf("line %d: %w", n+1, err)
		}
		sealed, err := c.Seal(h.RunID, []byte(l))
		if err != nil {
			return fmt.Errorf("line %d: %w", n+1, err)
		}
		out = append(out, string(sealed))
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	for id, end := range c.Runs() {
		if err := heads.Write(id, end); err != nil {
			return err
		}
	}
	return nil
}
