package gateway

import (
	"encoding/json"
	"testing"
)

// BenchmarkX2_GovernedCallReading measures warden's own reading of a
// governed call: the strict reading of its parameters (readCall) and the
// reading of its result for the review (resultText), for a small call.
func BenchmarkX2_GovernedCallReading(b *testing.B) {
	params := json.RawMessage(`{"name":"echo","arguments":{"message":"hello","path":"/tmp/x"},"_meta":{"progressToken":7}}`)
	result := json.RawMessage(`{"content":[{"type":"text","text":"{\"message\":\"hello\"}"}],"isError":false}`)
	b.Run("readCall", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := readCall(params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("resultText", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if s, _ := resultText(result); s == "" {
				b.Fatal("no text")
			}
		}
	})
}
