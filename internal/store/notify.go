package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// hub tells this process's waiters and Changes subscribers of changes:
// those made here at once, and on PostgreSQL those of other processes as
// their notifications arrive.
type hub struct {
	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
	subs    map[*sub]struct{}
}

// sub is one Changes subscriber: the notification payloads not yet read
// (PostgreSQL) and a signal that something changed.
type sub struct {
	mu  sync.Mutex
	q   []string
	sig chan struct{}
	// marker, until its notification arrives, makes the subscriber ignore
	// what was committed before it subscribed.
	marker string
}

func newHub() *hub {
	return &hub{waiters: map[string]map[chan struct{}]struct{}{}, subs: map[*sub]struct{}{}}
}

// wait returns a channel signalled when request id may have changed, and
// a function that stops it.
func (h *hub) wait(id string) (<-chan struct{}, func()) {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	if h.waiters[id] == nil {
		h.waiters[id] = map[chan struct{}]struct{}{}
	}
	h.waiters[id][c] = struct{}{}
	h.mu.Unlock()
	return c, func() {
		h.mu.Lock()
		delete(h.waiters[id], c)
		if len(h.waiters[id]) == 0 {
			delete(h.waiters, id)
		}
		h.mu.Unlock()
	}
}

// wake signals the waiters of request id.
func (h *hub) wake(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.waiters[id] {
		signal(c)
	}
}

// wakeAll signals every waiter and subscriber, for them to re-read: some
// notifications may have been missed.
func (h *hub) wakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, cs := range h.waiters {
		for c := range cs {
			signal(c)
		}
	}
	for s := range h.subs {
		signal(s.sig)
	}
}

// publish hands the payload items to every subscriber (PostgreSQL) or just
// signals them (items nil).
func (h *hub) publish(items ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if len(items) > 0 {
			s.mu.Lock()
			for _, it := range items {
				switch {
				case s.marker == "":
					s.q = append(s.q, it)
				case it == s.marker:
					s.marker = ""
				}
			}
			s.mu.Unlock()
		}
		signal(s.sig)
	}
}

func (h *hub) subscribe(marker string) *sub {
	s := &sub{sig: make(chan struct{}, 1), marker: marker}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

func (h *hub) unsubscribe(s *sub) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// ready drops the subscriber's marker: its notification will not come.
func (s *sub) ready() {
	s.mu.Lock()
	s.marker = ""
	s.mu.Unlock()
}

// take returns and clears the subscriber's pending payload items.
func (s *sub) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q
	s.q = nil
	return q
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// handle takes one NOTIFY payload: "r:ID" (a request changed), "e:SEQ,…"
// (events were written) or "m:…" (a subscriber's marker).
func (h *hub) handle(payload string) {
	if id, ok := strings.CutPrefix(payload, "r:"); ok {
		h.wake(id)
	}
	if seqs, ok := strings.CutPrefix(payload, "e:"); ok {
		items := strings.Split(seqs, ",")
		for i := range items {
			items[i] = "e:" + items[i]
		}
		h.publish(items...)
		return
	}
	h.publish(payload)
}

// startListener opens the store's LISTEN connection (PostgreSQL): it is
// listening when this returns, so that Changes and Wait miss nothing
// committed after.
func (s *Store) startListener(ctx context.Context) error {
	var schema string
	if err := s.db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return fmt.Errorf("reading the current schema: %w", err)
	}
	s.channel = listenChannel(schema)
	conn, err := s.listen(ctx)
	if err != nil {
		return err
	}
	lctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.listened.Add(1)
	go s.listenLoop(lctx, conn)
	return nil
}

// listen opens a dedicated connection listening on the store's channel.
func (s *Store) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, s.url)
	if err != nil {
		return nil, fmt.Errorf("opening the notification connection: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("listening for notifications: %w", err)
	}
	return conn, nil
}

// listenLoop hands every notification to the hub until ctx ends,
// reconnecting when the connection fails; after a reconnection every
// waiter re-reads, since notifications may have been missed.
func (s *Store) listenLoop(ctx context.Context, conn *pgx.Conn) {
	defer s.listened.Done()
	backoff := 50 * time.Millisecond
	for {
		if conn == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 5*time.Second)
			c, err := s.listen(ctx)
			if err != nil {
				continue
			}
			conn, backoff = c, 50*time.Millisecond
			s.hub.wakeAll()
		}
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			conn.Close(context.Background())
			conn = nil
			if ctx.Err() != nil {
				return
			}
			continue
		}
		s.hub.handle(n.Payload)
	}
}

// notify sends payload on the store's channel in tx (PostgreSQL), so that
// it is delivered once tx commits; on SQLite it does nothing.
func (s *Store) notify(ctx context.Context, tx execer, payload string) error {
	if s.engine != EnginePostgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, "SELECT pg_notify($1, $2)", s.channel, payload)
	return err
}
