package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/store"
)

// countChanges makes ts read the store's changes through a wrapper that
// counts the readings started and the changes read.
func countChanges(ts *testServer) (readings, read *atomic.Int64) {
	readings, read = new(atomic.Int64), new(atomic.Int64)
	ts.changes = func(ctx context.Context) <-chan store.Change {
		readings.Add(1)
		in := ts.Store.Changes(ctx)
		out := make(chan store.Change)
		go func() {
			defer close(out)
			for c := range in {
				read.Add(1)
				select {
				case out <- c:
				case <-ctx.Done():
					return
				}
			}
		}()
		return out
	}
	return readings, read
}

// openStream subscribes to the event stream and sends the ids of the
// events it delivers on the returned channel, closed when the stream ends.
func openStream(t testing.TB, ctx context.Context, ts *testServer) <-chan string {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("stream: %d", resp.StatusCode)
	}
	ids := make(chan string, 1024)
	go func() {
		defer close(ids)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var e struct{ ID string }
			if json.Unmarshal([]byte(data), &e) == nil && strings.HasPrefix(e.ID, "fan-") {
				ids <- e.ID
			}
		}
	}()
	return ids
}

// writeFanEvents stores n events of run "fan" with messages of size bytes.
func writeFanEvents(t testing.TB, st *store.Store, n, size int) {
	t.Helper()
	msg := strings.Repeat("x", size)
	for i := range n {
		e := event.Event{ID: fmt.Sprintf("fan-%06d", i), Time: time.Now().UTC(), RunID: "fan", Agent: "main", Data: event.Info{Message: msg}}
		if err := st.Write(e); err != nil {
			t.Fatal(err)
		}
	}
}

// waitSubscribers waits up to 20 s for ts to have n stream subscribers
// and returns how many it has.
func waitSubscribers(ts *testServer, n int) int {
	deadline := time.Now().Add(20 * time.Second)
	for ts.fanout.count() != n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return ts.fanout.count()
}

// Many subscribers each get every event exactly once, in order, while the
// store's changes are read once for all of them.
func TestS2_StreamFanoutReadsOnce(t *testing.T) {
	ts := startServer(t, "")
	readings, read := countChanges(ts)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	const subs, events = 40, 25
	streams := make([]<-chan string, subs)
	for i := range streams {
		streams[i] = openStream(t, ctx, ts)
	}
	if n := ts.fanout.count(); n != subs {
		t.Fatalf("%d subscribers, want %d", n, subs)
	}
	writeFanEvents(t, ts.Store, events, 100)
	var wg sync.WaitGroup
	for i, ids := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range events {
				select {
				case id := <-ids:
					if want := fmt.Sprintf("fan-%06d", j); id != want {
						t.Errorf("subscriber %d: got %s, want %s", i, id, want)
						return
					}
				case <-ctx.Done():
					t.Errorf("subscriber %d: %d of %d events", i, j, events)
					return
				}
			}
			select {
			case id := <-ids:
				t.Errorf("subscriber %d: %s delivered again or extra", i, id)
			case <-time.After(300 * time.Millisecond):
			}
		}()
	}
	wg.Wait()
	if n := readings.Load(); n != 1 {
		t.Errorf("%d readings of the store's changes for %d subscribers, want 1", n, subs)
	}
	if n := read.Load(); n != events {
		t.Errorf("%d changes read from the store for %d events and %d subscribers", n, events, subs)
	}
	cancel()
	if n := waitSubscribers(ts, 0); n != 0 {
		t.Fatalf("%d subscribers after every client left", n)
	}
}

// A subscriber that never reads is dropped, and the server's memory does
// not grow with what it did not read; a subscriber that reads gets every
// event all the same.
func TestS2_StreamDropsStuckReader(t *testing.T) {
	ts := startServer(t, "")
	ts.streamWriteTimeout = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	reader := openStream(t, ctx, ts)

	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	fmt.Fprintf(conn, "GET /api/events/stream HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", strings.TrimPrefix(ts.URL, "http://"), testToken)
	if n := waitSubscribers(ts, 2); n != 2 {
		t.Fatalf("%d subscribers, want 2", n)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	const events, size = 200, 64 << 10 // 12.8 MB in all
	got := make(chan int, 1)
	go func() {
		n := 0
		for range reader {
			if n++; n == events {
				break
			}
		}
		got <- n
	}()
	writeFanEvents(t, ts.Store, events, size)
	select {
	case n := <-got:
		if n != events {
			t.Fatalf("the reading subscriber got %d of %d events", n, events)
		}
	case <-ctx.Done():
		t.Fatal("the reading subscriber did not get every event")
	}
	if n := waitSubscribers(ts, 1); n != 1 {
		t.Fatalf("%d subscribers: the one that never reads was not dropped", n)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > events*size/2 {
		t.Errorf("the heap grew by %d bytes for %d sent", grew, events*size)
	}
	// What reaches the stuck client is short of everything written: it was
	// dropped, not delayed. (The server closed its end; the kernel may
	// still be handing over what its socket buffer held.)
	conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	n, _ := io.Copy(io.Discard, conn)
	if n >= events*size {
		t.Fatalf("the stuck stream received %d bytes of %d: delayed, not dropped", n, events*size)
	}
}

// BenchmarkStreamFanout200 writes one event per iteration and waits until
// each of 200 stream subscribers has it: ns/op is the delivery to all of
// them; readings/op how often the store's changes were read.
func BenchmarkStreamFanout200(b *testing.B) {
	ts := startServer(b, "")
	readings, _ := countChanges(ts)
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	const subs = 200
	streams := make([]<-chan string, subs)
	for i := range streams {
		streams[i] = openStream(b, ctx, ts)
	}
	msg := strings.Repeat("x", 200)
	b.ResetTimer()
	for i := range b.N {
		e := event.Event{ID: fmt.Sprintf("fan-%06d", i), Time: time.Now().UTC(), RunID: "fan", Agent: "main", Data: event.Info{Message: msg}}
		if err := ts.Store.Write(e); err != nil {
			b.Fatal(err)
		}
		for _, ids := range streams {
			if id := <-ids; id != e.ID {
				b.Fatalf("got %s, want %s", id, e.ID)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(readings.Load()), "readings")
}
