package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/seal"
	"github.com/wardenhq/warden/internal/storetest"
	"github.com/wardenhq/warden/internal/transcript"
)

// A run that sends its events to `warden serve` (--server) has them stored
// as its transcript's sealed lines, byte for byte, so the store keeps the
// same chain (SPEC L8), escapes and all.
func TestL8_PostedEventsKeepTheirSealedLines(t *testing.T) {
	for _, e := range storetest.Engines(t) {
		t.Run(e.Name, func(t *testing.T) {
			ts := startServer(t, e.URL)
			k, _ := seal.NewKey(bytes.Repeat([]byte{5}, seal.KeySize))
			key := k.Derive(seal.LineKeyLabel)
			path := filepath.Join(t.TempDir(), "t.jsonl")
			tr, err := transcript.Open(path, key, "")
			if err != nil {
				t.Fatal(err)
			}
			var sent []event.Event
			run := "20260102T150405Z-5ea1ed00"
			rec := event.NewRecorder(run, event.Tee(tr, event.SinkFunc(func(e event.Event) error { sent = append(sent, e); return nil })))
			rec.Emit(event.RunStart{Task: "t & <b>"})
			rec.Emit(event.Tool{CallID: "c1", Function: "bash", Arguments: json.RawMessage(`{"cmd":"echo '<&>' \u2028"}`), Result: "a\u2028b <tag> & \"q\""})
			rec.Emit(event.RunEnd{Status: event.StatusCompleted})
			tr.Close()
			body, _ := json.Marshal(sent)
			if code, b, _ := call(t, "POST", ts.URL+"/api/events", string(body), nil); code != 204 {
				t.Fatalf("POST /api/events: %d %s", code, b)
			}
			lines, err := ts.Store.EventLines(context.Background(), run, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range lines {
				got = append(got, string(l))
			}
			data, _ := os.ReadFile(path)
			if strings.Join(got, "\n")+"\n" != string(data) {
				t.Fatalf("stored lines differ from the transcript:\n%s\n---\n%s", strings.Join(got, "\n"), data)
			}
			if err := ts.Store.VerifyChain(context.Background(), run, key); err != nil {
				t.Fatal(err)
			}
		})
	}
}
