package serve

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/serveclient"
)

// A backlog of events is never refused whole (issue 21 item 6): a run
// that queued more than a body limit's worth of events while its server
// was away sends them in batches under it, and a server whose limit is
// smaller than the client's batches (413) gets halves until they fit;
// every event is stored. limit is the body limit of the server in front.
func TestS3_EventBacklogSplitBySize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int64
	}{
		{"1MiB", 1 << 20},
		{"100KiB", 100 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, "")
			var mu sync.Mutex
			var posts, refused int
			var largest int64
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && r.URL.Path == "/api/events" {
					mu.Lock()
					posts++
					largest = max(largest, r.ContentLength)
					tooBig := r.ContentLength > tc.limit
					if tooBig {
						refused++
					}
					mu.Unlock()
					if tooBig {
						writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", tc.limit))
						return
					}
				}
				ts.Server.Handler().ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)
			c := &serveclient.Client{URL: front.URL, Token: testToken}
			// 400 events of 8 KB: 3.3 MB in all, more than one body.
			big := strings.Repeat("x", 8<<10)
			for i := range 400 {
				if err := c.Write(event.Event{ID: fmt.Sprintf("e-%03d", i), Time: time.Now().UTC(), RunID: "backlog", Agent: "main", Data: event.Info{Message: big}}); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), bound(30*time.Second))
			defer cancel()
			if err := c.Flush(ctx); err != nil {
				t.Fatalf("the backlog was refused: %v", err)
			}
			lines, err := ts.Store.EventLines(ctx, "backlog", "", 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != 400 {
				t.Fatalf("stored %d of 400 events", len(lines))
			}
			mu.Lock()
			defer mu.Unlock()
			if posts < 7 {
				t.Errorf("%d posts for 3.3 MB of events: the batches were not split by size", posts)
			}
			if tc.limit >= 1<<20 && refused > 0 {
				t.Errorf("%d batches over the server's 1 MiB limit (largest %d bytes)", refused, largest)
			}
			t.Logf("%d posts, %d refused as too large, largest body %d bytes", posts, refused, largest)
		})
	}
}
