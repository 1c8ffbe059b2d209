package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/storetest"
	sealed "github.com/wardenhq/warden/internal/transcript"
)

// The store keeps the transcript's sealed lines, so the same chain (SPEC
// L8): a run written through the transcript and a Buffer verifies, row for
// row the file's lines; a row changed or removed by anything with the
// database's file breaks it at that row.
func TestL8_StoreKeepsTheSameChain(t *testing.T) {
	k, err := seal.NewKey(bytes.Repeat([]byte{9}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	key := k.Derive(seal.LineKeyLabel)
	forEngine(t, func(t *testing.T, e storetest.Engine, s *Store) {
		ctx := context.Background()
		path := filepath.Join(t.TempDir(), "t.jsonl")
		tr, err := sealed.Open(path, key, "")
		if err != nil {
			t.Fatal(err)
		}
		buf := s.Buffer()
		rec := event.NewRecorder("run-l8", event.Tee(tr, buf))
		rec.Emit(event.RunStart{Task: "t"})
		rec.Emit(event.Tool{CallID: "c1", Function: "bash", Result: "SECRET"})
		rec.Emit(event.Review{CallID: "c1", Decision: "terminate"})
		rec.Emit(event.Withheld{CallID: "c1", Reason: eventkind.WithheldTerminated})
		rec.Emit(event.RunEnd{Status: event.StatusLimited})
		if err := buf.Close(); err != nil {
			t.Fatal(err)
		}
		tr.Close()
		lines, err := s.EventLines(ctx, "run-l8", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		var stored []string
		for _, l := range lines {
			stored = append(stored, string(l))
		}
		if strings.Join(stored, "\n")+"\n" != string(data) {
			t.Fatalf("the store's lines are not the transcript's:\n%s\n---\n%s", strings.Join(stored, "\n"), data)
		}
		if err := s.VerifyChain(ctx, "run-l8", key); err != nil {
			t.Fatalf("the stored chain does not verify: %v", err)
		}
		other, _ := seal.NewKey(bytes.Repeat([]byte{8}, seal.KeySize))
		if err := s.VerifyChain(ctx, "run-l8", other.Derive(seal.LineKeyLabel)); err == nil {
			t.Fatal("the chain verifies under another key")
		}
		// Rows swapped in arrival order still form the chain.
		if _, err := s.db.Exec(s.q("UPDATE events SET seq = -seq WHERE run_id = ? AND id = ?"), "run-l8", "run-l8-000003"); err != nil {
			t.Fatal(err)
		}
		if err := s.VerifyChain(ctx, "run-l8", key); err != nil {
			t.Fatalf("rows out of arrival order: %v", err)
		}
		// The review row edited, then removed.
		if _, err := s.db.Exec(s.q("UPDATE events SET line = replace(line, 'terminate', 'continue') WHERE run_id = ? AND id = ?"), "run-l8", "run-l8-000003"); err != nil {
			t.Fatal(err)
		}
		var ce *seal.ChainError
		if err := s.VerifyChain(ctx, "run-l8", key); !errors.As(err, &ce) || !strings.Contains(err.Error(), "run-l8-000003") {
			t.Fatalf("an edited row: %v", err)
		}
		if _, err := s.db.Exec(s.q("DELETE FROM events WHERE run_id = ? AND id = ?"), "run-l8", "run-l8-000003"); err != nil {
			t.Fatal(err)
		}
		if err := s.VerifyChain(ctx, "run-l8", key); !errors.Is(err, seal.ErrBadMAC) {
			t.Fatalf("a removed row: %v", err)
		}
	})
}
