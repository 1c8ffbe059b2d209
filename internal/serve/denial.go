package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/ledger"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/task"
	"github.com/wardenhq/warden/internal/transcript"
)

// Errors of an override that cannot be granted.
var (
	// errOverridden: the denial already has an override (approved or used).
	errOverridden = errors.New("the denial already has its one retry")
	// errUnverified: the denial is not warden's own record.
	errUnverified = errors.New("the denial is not warden's own record (its MAC does not verify under this server's key), so it cannot be overridden")
	// errNoKey: the server has no Sealer.
	errNoKey = errors.New("this server has no key to seal overrides with")
)

// runIDPattern is what a run id may look like: it names a transcript file.
var runIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// denialRun returns the run of a denial id "<run>-dN".
func denialRun(id string) (string, bool) {
	i := strings.LastIndex(id, "-d")
	if i <= 0 {
		return "", false
	}
	run := id[:i]
	if !runIDPattern().MatchString(run) || strings.Contains(run, "..") {
		return "", false
	}
	return run, true
}

// approveDenial answers POST /api/denials/{id}/approve {"note"?}: one retry
// of exactly the denied action, from the person's channel (SPEC G12).
func (s *Server) approveDenial(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Note string `json:"note"`
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", maxBody))
		return
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &in); err != nil {
			writeError(w, http.StatusBadRequest, "the body is not the JSON expected: "+err.Error())
			return
		}
	}
	d, err := s.approve(r.Context(), r.PathValue("id"), s.who(r), in.Note)
	switch {
	case errors.Is(err, errOverridden), errors.Is(err, errUnverified):
		writeError(w, http.StatusConflict, err.Error())
	case errors.Is(err, errNoKey):
		writeError(w, http.StatusServiceUnavailable, err.Error())
	case err != nil:
		s.storeError(w, r, err)
	default:
		writeJSON(w, http.StatusOK, d)
	}
}

// approve grants one retry of exactly the action of denial id (SPEC G12):
// it checks the denial is warden's own record and not yet overridden,
// seals the override with the Server's Sealer (ledger.NewOverride), appends
// it to the run's transcript at task.TranscriptPath when that file exists,
// stores it, and returns the denial, now approved. by and note say who
// approved and why. It is the person's channel: call it only for a person
// (the API's bearer token or the panel's session).
func (s *Server) approve(ctx context.Context, id, by, note string) (store.Denial, error) {
	runID, ok := denialRun(id)
	if !ok {
		return store.Denial{}, fmt.Errorf("denial %q: %w", id, store.ErrNotFound)
	}
	if s.Sealer == nil {
		return store.Denial{}, errNoKey
	}
	s.approveMu.Lock()
	defer s.approveMu.Unlock()
	sd, err := s.findDenial(ctx, runID, id)
	if err != nil {
		return store.Denial{}, err
	}
	if sd.Status != store.DenialDenied {
		return store.Denial{}, fmt.Errorf("denial %s is %s: %w", id, sd.Status, errOverridden)
	}
	// Read the run's events as a resume would: only a denial whose MAC
	// verifies can be overridden (SPEC G15).
	events, err := s.Store.Events(ctx, runID, "", 0)
	if err != nil {
		return store.Denial{}, err
	}
	l := ledger.NewLedger(runID, s.Sealer)
	for _, e := range events {
		l.Read(e)
	}
	gd, ok := l.FindDenial(id)
	if !ok {
		return store.Denial{}, fmt.Errorf("denial %s: %w", id, errUnverified)
	}
	if by == "" {
		by = "person"
	}
	o, err := ledger.NewOverride(s.Sealer, runID, gd, by, note)
	if err != nil {
		return store.Denial{}, fmt.Errorf("override of %s: %w", id, err)
	}
	// The id is the run's and the override's own, never a number a live
	// run could also give one of its events.
	e := event.Event{ID: runID + "-override-" + o.Nonce, Time: time.Now().UTC(), RunID: runID, Agent: "main", Data: o}
	if e, err = appendTranscript(task.TranscriptPath(runID), e); err != nil {
		return store.Denial{}, fmt.Errorf("override of %s: %w", id, err)
	}
	if err := s.Store.Write(e); err != nil {
		return store.Denial{}, fmt.Errorf("override of %s: %w", id, err)
	}
	s.logger().Info("override granted", "denial", id, "run", runID, "by", by)
	if after, err := s.findDenial(ctx, runID, id); err == nil && after.Status != store.DenialDenied {
		return after, nil
	}
	sd.Status = store.DenialApproved
	return sd, nil
}

// findDenial returns denial id of run runID as the store lists it.
func (s *Server) findDenial(ctx context.Context, runID, id string) (store.Denial, error) {
	ds, err := s.Store.Denials(ctx, runID)
	if err != nil {
		return store.Denial{}, err
	}
	for _, d := range ds {
		if d.ID == id {
			return d, nil
		}
	}
	return store.Denial{}, fmt.Errorf("denial %q among the last %d of run %s: %w", id, ledger.MaxDenials, runID, store.ErrNotFound)
}

// appendTranscript appends e to the transcript at path when that file
// exists (the run's JSONL transcript stays the contract: a resume reads the
// override there), sealed and chained after the run's last line (SPEC L8),
// and returns it as sealed, for the store to keep the same line. A
// transcript that does not verify is not appended to.
func appendTranscript(path string, e event.Event) (event.Event, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return e, nil
	}
	key, err := task.TranscriptKey()
	if err != nil {
		return e, fmt.Errorf("the run's transcript: %w", err)
	}
	t, err := transcript.Open(path, key, task.Heads())
	if err != nil {
		return e, fmt.Errorf("the run's transcript: %w", err)
	}
	if e, err = t.WriteSealed(e); err != nil {
		t.Close()
		return e, fmt.Errorf("the run's transcript: %w", err)
	}
	if err := t.Sync(); err != nil {
		t.Close()
		return e, fmt.Errorf("the run's transcript: %w", err)
	}
	return e, t.Close()
}
