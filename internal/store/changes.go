package store

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/wardenhq/warden/event"
)

// changeBatch bounds the rows one poll of Changes reads.
const changeBatch = 500

// Changes delivers, until ctx ends, every event written and every request
// created or changed after the call, by this process or others sharing the
// database; the channel is closed when ctx ends. A request that changed
// several times between two reads may be delivered once, as it is then. On
// PostgreSQL the changes come from notifications (the rows they name are
// re-read); on SQLite from polling the events' sequence and the requests'
// revisions, backing off from 5 ms to 200 ms while nothing changes.
func (s *Store) Changes(ctx context.Context) <-chan Change {
	out := make(chan Change, 64)
	var lastSeq, lastRev int64
	var sb *sub
	if s.engine == EnginePostgres {
		// Notifications arrive in commit order: those before the marker's
		// were committed before the call.
		marker := "m:"
		if id, err := newID(); err == nil {
			marker += id
		}
		sb = s.hub.subscribe(marker)
		if err := s.notify(ctx, s.db, marker); err != nil {
			sb.ready()
		}
	} else {
		sb = s.hub.subscribe("")
		// Cursors at the call: what is already there is not a change.
		for {
			err := s.db.QueryRowContext(ctx, "SELECT COALESCE((SELECT MAX(seq) FROM events), 0), COALESCE((SELECT MAX(rev) FROM requests), 0)").Scan(&lastSeq, &lastRev)
			if err == nil || ctx.Err() != nil {
				break
			}
			time.Sleep(pollMax)
		}
	}
	go func() {
		defer close(out)
		defer s.hub.unsubscribe(sb)
		backoff := pollMin
		for {
			var cs []Change
			if s.engine == EngineSQLite {
				cs = s.pollChanges(ctx, &lastSeq, &lastRev)
			} else {
				cs = s.resolve(ctx, sb.take())
			}
			for _, c := range cs {
				select {
				case out <- c:
				case <-ctx.Done():
					return
				}
			}
			if len(cs) > 0 {
				backoff = pollMin
				continue
			}
			var tick <-chan time.Time
			var t *time.Timer
			if s.engine == EngineSQLite {
				t = time.NewTimer(backoff)
				tick = t.C
				backoff = min(2*backoff, pollMax)
			}
			select {
			case <-ctx.Done():
				return
			case <-sb.sig:
				backoff = pollMin
			case <-tick:
			}
			if t != nil {
				t.Stop()
			}
		}
	}()
	return out
}

// pollChanges reads the events and request revisions after the cursors
// (SQLite, whose writers commit in sequence order) and advances them.
func (s *Store) pollChanges(ctx context.Context, lastSeq, lastRev *int64) []Change {
	var cs []Change
	// Both reads stop at what one statement saw, so that a request is
	// not delivered before an event committed ahead of it that the
	// reading of events missed.
	var maxSeq, maxRev int64
	if err := s.db.QueryRowContext(ctx, "SELECT COALESCE((SELECT MAX(seq) FROM events), 0), COALESCE((SELECT MAX(rev) FROM requests), 0)").Scan(&maxSeq, &maxRev); err != nil {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, "SELECT seq, line FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?", *lastSeq, maxSeq, changeBatch)
	if err == nil {
		for rows.Next() {
			var seq int64
			var line string
			if rows.Scan(&seq, &line) != nil {
				break
			}
			*lastSeq = seq
			if c, ok := eventChange(line); ok {
				cs = append(cs, c)
			}
		}
		rows.Close()
	}
	rs, err := s.requests(ctx, "SELECT "+requestColumns+" FROM requests WHERE rev > ? AND rev <= ? ORDER BY rev LIMIT ?", *lastRev, maxRev, changeBatch)
	if err == nil {
		for _, r := range rs {
			*lastRev = r.rev
			req := r.Request
			cs = append(cs, Change{Request: &req})
		}
	}
	return cs
}

// resolve re-reads the rows that notification payloads name (PostgreSQL),
// in the order of the notifications.
func (s *Store) resolve(ctx context.Context, items []string) []Change {
	var cs []Change
	var seqs []any
	flush := func() {
		if len(seqs) == 0 {
			return
		}
		in := strings.TrimSuffix(strings.Repeat("?, ", len(seqs)), ", ")
		rows, err := s.db.QueryContext(ctx, s.q("SELECT line FROM events WHERE seq IN ("+in+") ORDER BY seq"), seqs...)
		seqs = seqs[:0]
		if err != nil {
			return
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if rows.Scan(&line) != nil {
				return
			}
			if c, ok := eventChange(line); ok {
				cs = append(cs, c)
			}
		}
	}
	for _, it := range items {
		if v, ok := strings.CutPrefix(it, "e:"); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				seqs = append(seqs, n)
				if len(seqs) >= changeBatch {
					flush()
				}
			}
			continue
		}
		flush()
		if id, ok := strings.CutPrefix(it, "r:"); ok {
			if r, err := s.Request(ctx, id); err == nil {
				cs = append(cs, Change{Request: &r})
			}
		}
	}
	flush()
	return cs
}

func eventChange(line string) (Change, bool) {
	var e event.Event
	if e.UnmarshalJSON([]byte(line)) != nil {
		return Change{}, false
	}
	return Change{Event: &e}, true
}
