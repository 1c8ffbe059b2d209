package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/wardenhq/warden/internal/callscript"
	"github.com/wardenhq/warden/internal/safetext"
	"github.com/wardenhq/warden/internal/shell"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/rules"
	"github.com/wardenhq/warden/tool"
)

// This file holds two checks a decision goes through on the server (issue
// 21 items 3 and 4): an approval acts only on the request as the person
// saw it whole (its digest), and "allow this exact prefix for this run"
// turns an approval into a rule of the run, which approves later calls
// that start with the prefix, in the name of the operator who allowed it.

// Errors of a checked decision.
var (
	// errUnseen is an approval whose digest is not the request's.
	errUnseen = errors.New("not the request as shown whole")
	// errPrefix is a prefix that may not be allowed on the request.
	errPrefix = errors.New("this prefix cannot be allowed")
)

// seenDigest is the digest of what a person must have seen of r to
// approve it: its kind, tool, exact arguments and, for a review, the
// tool's output. The panel puts it in the approve form once the card shows
// all of it; an API client may send it ("seen") to approve only what it
// read. "sha256:" and the hex SHA-256 of the four parts, each preceded by
// its length in decimal and a colon.
func seenDigest(r store.Request) string {
	h := sha256.New()
	for _, part := range []string{r.Kind, r.Call.Function, string(r.Call.Arguments), r.Result} {
		h.Write([]byte(strconv.Itoa(len(part)) + ":" + part))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// approves reports whether decision lets the call (or its result) through
// as it is.
func approves(decision string) bool { return decision == "approve" || decision == "continue" }

// shellCall is a shell call's script and what else the call says.
type shellCall struct {
	// script is the script, from the argument arg (cmd, command or
	// script, as the console and the panel read a shell call).
	script, arg string
	// rest is the call's other arguments, canonical JSON.
	rest json.RawMessage
}

// shellCallOf returns the shell script the call c runs, when it is a
// shell call whose arguments read one way (SPEC A8).
func shellCallOf(c store.Call) (shellCall, bool) {
	call := panelCall(c.Function, c.Arguments)
	if call.ParseError != "" {
		return shellCall{}, false
	}
	if _, ok, _ := callscript.Of(call, tool.View{}); !ok {
		return shellCall{}, false
	}
	for _, k := range []string{"cmd", "command", "script"} {
		raw, ok := call.Argument(k)
		if !ok {
			continue
		}
		var script string
		if json.Unmarshal(raw, &script) != nil {
			return shellCall{}, false
		}
		rest, err := restOf(call.Arguments, k)
		if err != nil {
			return shellCall{}, false
		}
		return shellCall{script: script, arg: k, rest: rest}, true
	}
	return shellCall{}, false
}

// restOf returns the arguments object raw without key, as canonical JSON
// (keys sorted, no space, numbers as written).
func restOf(raw json.RawMessage, key string) (json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	delete(m, key)
	return json.Marshal(m)
}

// prefixOption is one prefix a card offers to allow.
type prefixOption struct {
	// Value is the prefix as a JSON array, Text as shell words.
	Value, Text string
}

// prefixOptions returns the prefixes an operator may allow from r, the
// longest (the most exact) first; none when r is not a pending approval
// of a single plain shell command.
func prefixOptions(r store.Request) []prefixOption {
	if r.Kind != store.KindApproval || r.Status != store.StatusPending || !slices.Contains(r.Choices, "approve") {
		return nil
	}
	sc, ok := shellCallOf(r.Call)
	if !ok {
		return nil
	}
	ps, err := rules.PrefixesOf(sc.script)
	if err != nil {
		return nil
	}
	out := make([]prefixOption, 0, len(ps))
	for i := len(ps) - 1; i >= 0; i-- {
		b, _ := json.Marshal(ps[i])
		out = append(out, prefixOption{Value: string(b), Text: safetext.Escape(shell.Join(ps[i]))})
	}
	return out
}

// servedRun reports whether run id reaches this server through its API
// (its requests come from a run credential's client, which claimed it):
// only such a run's requests are approved by its rules, so only such a
// run is offered one.
func (s *Server) servedRun(ctx context.Context, id string) bool {
	if _, ok := s.owners.get(id); ok {
		return true
	}
	owner, err := s.Store.RunOwner(ctx, id)
	if err != nil {
		return false
	}
	s.owners.put(id, owner)
	return true
}

// ruleOn returns the rule that allowing prefix on the request r makes:
// r must be an approval of a single plain shell command of a run that
// reaches this server through its API, and prefix one of the prefixes
// rules.PrefixesOf offers for it.
func (s *Server) ruleOn(ctx context.Context, r store.Request, prefix []string, by string) (store.RunRule, error) {
	if !s.servedRun(ctx, r.RunID) {
		return store.RunRule{}, fmt.Errorf("%w: run %s does not reach this server through its API (it queues in the store directly, or its requests were submitted with an operator's credential), so no rule of it could approve its calls", errPrefix, r.RunID)
	}
	if r.Kind != store.KindApproval {
		return store.RunRule{}, fmt.Errorf("%w: a prefix is allowed on an approval, not on a %s request", errPrefix, r.Kind)
	}
	sc, ok := shellCallOf(r.Call)
	if !ok {
		return store.RunRule{}, fmt.Errorf("%w: %s is not a shell call", errPrefix, r.Call.Function)
	}
	ps, err := rules.PrefixesOf(sc.script)
	if err != nil {
		return store.RunRule{}, fmt.Errorf("%w: %v", errPrefix, err)
	}
	if !slices.ContainsFunc(ps, func(p []string) bool { return slices.Equal(p, prefix) }) {
		var offered []string
		for _, p := range ps {
			b, _ := json.Marshal(p)
			offered = append(offered, string(b))
		}
		return store.RunRule{}, fmt.Errorf("%w: %q is not one of the call's prefixes (%s)", errPrefix, prefix, strings.Join(offered, ", "))
	}
	return store.RunRule{RunID: r.RunID, Function: r.Call.Function, Arg: sc.arg, Prefix: prefix, Rest: sc.rest, CreatedBy: by, RequestID: r.ID}, nil
}

// ruleNote is what an approval that allowed prefix adds to its
// explanation, so that the run's transcript records the rule.
func ruleNote(prefix []string) string {
	return "allowed the exact prefix `" + shell.Join(prefix) + "` for the rest of this run"
}

// checkedDecision is a decision with what the server checks before
// recording it.
type checkedDecision struct {
	store.Answer
	// seen is the digest the decider sent ("" for none); needSeen says
	// an approval must carry one (the panel's forms do).
	seen     string
	needSeen bool
	// prefix, when set, is the exact prefix to allow for the run.
	prefix []string
}

// decideChecked records d on request id after checking it: an approval
// carrying a digest (or needing one) must carry the request's, and a
// prefix may be allowed only on an approval of a call it is a prefix of.
// With a prefix, the rule is stored once the approval is, and the run's
// other pending requests it covers are approved by it. It returns the
// request as decided and the rule made (nil for none).
func (s *Server) decideChecked(ctx context.Context, id string, d checkedDecision) (store.Request, *store.RunRule, error) {
	if d.prefix != nil && d.Answer.Decision != "approve" {
		return store.Request{}, nil, fmt.Errorf("%w: a prefix goes only with the decision approve", errPrefix)
	}
	var rule *store.RunRule
	if approves(d.Answer.Decision) && (d.needSeen || d.seen != "" || d.prefix != nil) {
		req, err := s.Store.Request(ctx, id)
		if err != nil {
			return store.Request{}, nil, err
		}
		if req.Status != store.StatusPending {
			// No longer pending: the store says so, whatever was sent.
			req, err := s.Store.Decide(ctx, id, d.Answer)
			return req, nil, err
		}
		if (d.needSeen || d.seen != "") && d.seen != seenDigest(req) {
			if d.seen == "" {
				return req, nil, fmt.Errorf("%w: the approval carries no digest of the request (a long call or output must be shown whole first)", errUnseen)
			}
			return req, nil, fmt.Errorf("%w: the approval's digest %s is not the request's", errUnseen, d.seen)
		}
		if d.prefix != nil {
			r, err := s.ruleOn(ctx, req, d.prefix, d.DecidedBy)
			if err != nil {
				return req, nil, err
			}
			rule = &r
			if d.Explanation != "" {
				d.Explanation += "; "
			}
			d.Explanation += ruleNote(d.prefix)
		}
	}
	req, err := s.Store.Decide(ctx, id, d.Answer)
	if err != nil || rule == nil || req.Status != store.StatusDecided || req.Decision != "approve" {
		return req, nil, err
	}
	if err := s.Store.AddRunRule(ctx, rule); err != nil {
		return req, nil, fmt.Errorf("the call was approved, but the rule for its run was not stored: %w", err)
	}
	s.logger().Info("run rule", "run", rule.RunID, "prefix", rule.Prefix, "by", rule.CreatedBy, "request", rule.RequestID)
	s.applyRulesToPending(ctx, rule.RunID)
	return req, rule, nil
}

// applyRulesToPending approves the pending requests of run runID its rules
// cover.
func (s *Server) applyRulesToPending(ctx context.Context, runID string) {
	pending, err := s.Store.PendingOf(ctx, runID)
	if err != nil {
		s.logger().Warn("run rules: pending requests", "run", runID, "err", err)
		return
	}
	for i := range pending {
		s.applyRunRules(ctx, &pending[i])
	}
}

// applyRunRules approves req, a pending request, when the rules of its run
// cover it: an approval of the same tool with the same other arguments,
// whose every simple command starts with a prefix an operator allowed for
// the run (rules.CoveredByPrefixes). The decision names the operators who
// allowed the prefixes (decided_by) and comes via "rule". Anything that
// fails leaves the request pending for a person.
func (s *Server) applyRunRules(ctx context.Context, req *store.Request) {
	if req.Kind != store.KindApproval || req.Status != store.StatusPending || !slices.Contains(req.Choices, "approve") {
		return
	}
	sc, ok := shellCallOf(req.Call)
	if !ok {
		return
	}
	all, err := s.Store.RunRules(ctx, req.RunID)
	if err != nil {
		s.logger().Warn("run rules", "run", req.RunID, "err", err)
		return
	}
	var fit []store.RunRule
	var prefixes [][]string
	for _, r := range all {
		if r.Function == req.Call.Function && r.Arg == sc.arg && bytes.Equal(r.Rest, sc.rest) {
			fit = append(fit, r)
			prefixes = append(prefixes, r.Prefix)
		}
	}
	if len(fit) == 0 {
		return
	}
	by, err := rules.CoveredByPrefixes(sc.script, prefixes)
	if err != nil {
		return
	}
	var names, used []string
	for _, i := range by {
		r := fit[i]
		if !slices.Contains(names, r.CreatedBy) {
			names = append(names, r.CreatedBy)
		}
		u := "`" + shell.Join(r.Prefix) + "` (allowed by " + r.CreatedBy + " on request " + shortID(r.RequestID) + ")"
		if !slices.Contains(used, u) {
			used = append(used, u)
		}
	}
	got, err := s.Store.Decide(ctx, req.ID, store.Answer{
		Decision:    "approve",
		Explanation: "approved without asking by this run's rule: the exact prefix " + strings.Join(used, ", "),
		DecidedBy:   strings.Join(names, ", "),
		DecidedVia:  "rule",
	})
	if err != nil {
		if !errors.Is(err, store.ErrNotPending) {
			s.logger().Warn("run rules: approving", "request", req.ID, "err", err)
		}
		return
	}
	s.logger().Info("decided", "request", got.ID, "run", got.RunID, "decision", got.Decision, "by", got.DecidedBy, "via", "rule")
	*req = got
}

// decisionStatus is the HTTP status of an error of decideChecked that is
// not the store's: 409 for an approval of what was not seen, 400 for a
// prefix that may not be allowed; 0 for others.
func decisionStatus(err error) int {
	switch {
	case errors.Is(err, errUnseen):
		return http.StatusConflict
	case errors.Is(err, errPrefix):
		return http.StatusBadRequest
	}
	return 0
}

// runRules answers GET /api/runs/{id}/rules: {"rules":[…]}, the exact
// prefixes operators allowed for the run, oldest first.
func (s *Server) runRules(w http.ResponseWriter, r *http.Request) {
	rs, err := s.Store.RunRules(r.Context(), r.PathValue("id"))
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	if rs == nil {
		rs = []store.RunRule{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"rules": rs})
}

// ruleViews returns the rules of run id for its page.
func (s *Server) ruleViews(ctx context.Context, id string) []ruleView {
	rs, err := s.Store.RunRules(ctx, id)
	if err != nil {
		s.logger().Warn("panel: run rules", "run", id, "err", err)
		return nil
	}
	out := make([]ruleView, 0, len(rs))
	for _, r := range rs {
		out = append(out, ruleView{Function: safetext.Escape(r.Function), Prefix: safetext.Escape(shell.Join(r.Prefix)), By: safetext.Escape(r.CreatedBy), RequestID: r.RequestID, Created: r.Created})
	}
	return out
}
