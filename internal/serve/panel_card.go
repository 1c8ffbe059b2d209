package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/wardenhq/warden/action"
	"github.com/wardenhq/warden/event"
	"github.com/wardenhq/warden/internal/callscript"
	"github.com/wardenhq/warden/internal/eventkind"
	"github.com/wardenhq/warden/internal/safetext"
	"github.com/wardenhq/warden/internal/store"
	"github.com/wardenhq/warden/internal/triage"
	"github.com/wardenhq/warden/internal/vocab"
	"github.com/wardenhq/warden/tool"
)

// This file decides how much of a request's call a card shows at first
// and what it takes to see all of it (SPEC S4: the panel acts only on a
// request that is in view and shown whole), and lists the simple commands
// of a shell call with the risky ones marked.

// Limits of a card's call.
const (
	// longLines and longBytes make a call long: its box shows the first
	// lines, says how long the call is, and Approve waits until the person
	// expanded it.
	longLines = 12
	longBytes = 1500
	// maxIndentDepth and maxIndentBytes bound indented JSON: arguments
	// nested deeper, or larger, are shown compact (indentation by depth
	// made an 18 KB request of nested arrays a 324 MB page).
	maxIndentDepth = 12
	maxIndentBytes = 32 << 10
	// maxJudged bounds the simple commands of one call the first pass
	// marks; the rest are listed unmarked.
	maxJudged = 200
)

// jsonDepth returns how deep arrays and objects nest in the JSON text raw
// (strings skipped), counting no further than limit+1.
func jsonDepth(raw []byte, limit int) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > limit {
					return deepest
				}
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// bulky reports whether raw is too deep or too large to indent.
func bulky(raw []byte) bool {
	return len(raw) > maxIndentBytes || jsonDepth(raw, maxIndentDepth) > maxIndentDepth
}

// compactJSON returns raw without insignificant space; text that is not
// JSON is returned as it is.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return unescapeHTML(b.String())
}

// size says how long a text is, for people: "38 lines · 2.1 KB".
func size(s string) string {
	n := strings.Count(s, "\n") + 1
	var kb string
	switch b := len(s); {
	case b < 1000:
		kb = strconv.Itoa(b) + " bytes"
	case b < 1000*1000:
		kb = strconv.FormatFloat(float64(b)/1000, 'f', 1, 64) + " KB"
	default:
		kb = strconv.FormatFloat(float64(b)/1e6, 'f', 1, 64) + " MB"
	}
	if n == 1 {
		return kb
	}
	return strconv.Itoa(n) + " lines · " + kb
}

// isLong reports whether a call's text needs expanding before approval.
func isLong(s string) bool {
	return len(s) > longBytes || strings.Count(s, "\n") >= longLines
}

// commandView is one simple command of a shell call as a card lists it.
type commandView struct {
	N    int
	Text string
	// Risk is the first pass's risk level when it would not let the
	// command run on its own ("" when it would, or was not asked).
	Risk string
	// Risky marks commands the first pass denies, rates high or
	// critical, or puts in a class of harm (destructive, exfiltration…).
	Risky  bool
	Reason string
}

// commandsList is what commandsView returns, kept per request.
type commandsList struct {
	// Shell reports a shell call; Commands are its simple commands,
	// CommandsError says why its script does not parse, CommandsOpaque
	// what cannot be seen.
	Shell                         bool
	Commands                      []commandView
	CommandsOpaque, CommandsError string
}

// commandCache keeps the commands of the requests last shown, by id (a
// request's call never changes), so that the live queue does not judge
// every command again at each update.
type commandCache struct {
	mu sync.Mutex
	m  map[string]commandsList
}

// maxCachedRequests bounds the cache; beyond it, it starts again.
const maxCachedRequests = 1024

// of returns the commands of r's call.
func (c *commandCache) of(r store.Request) commandsList {
	c.mu.Lock()
	got, ok := c.m[r.ID]
	c.mu.Unlock()
	if ok {
		return got
	}
	got.Commands, got.CommandsOpaque, got.CommandsError, got.Shell = commandsView(r.Call.Function, r.Call.Arguments)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedRequests {
		c.m = map[string]commandsList{}
	}
	c.m[r.ID] = got
	c.mu.Unlock()
	return got
}

// commandsView lists the simple commands of a shell call, numbered, each
// judged alone by the first pass (internal/triage) with no rules: a
// command it would not allow is marked with its risk and reason. The
// splitting is the console's (callscript.Of).
func commandsView(function string, raw json.RawMessage) (list []commandView, opaque, parseErr string, ok bool) {
	call := panelCall(function, raw)
	cmds, ok, err := callscript.Of(call, tool.View{})
	if !ok {
		return nil, "", "", false
	}
	if err != nil {
		return nil, "", safetext.Escape(err.Error()), true
	}
	for i, c := range cmds.List {
		v := commandView{N: i + 1, Text: safetext.Escape(c)}
		if i < maxJudged {
			vd := triage.Judge(action.Action{Kind: action.Shell, Command: []string{"bash", "-c", c}}, nil)
			if vd.Decision != vocab.Allow {
				v.Risk, v.Reason = string(vd.Risk), safetext.Escape(vd.Reason)
				if c := vd.Class; c != vocab.Routine && c != vocab.Benign && c != vocab.Other && c != "" {
					v.Risk = string(vd.Risk) + ", " + strings.ReplaceAll(string(c), "_", " ")
					v.Risky = true
				}
				v.Risky = v.Risky || vd.Decision == vocab.Deny || vd.Risk == action.RiskHigh || vd.Risk == action.RiskCritical
			}
		}
		list = append(list, v)
	}
	return list, safetext.Escape(cmds.Opaque), "", true
}

// cardContext is what a card shows around the call (issue 21 item 4): the
// run's task, working directory and sandbox, who asked from where, warden's
// reason and risk, the model's justification and message, each labelled
// apart, and the last turns of the conversation.
type cardContext struct {
	Task, Workdir, Sandbox, Host string
	Reason, Risk                 string
	Justification, ModelMessage  string
	// Effects is what a dry run of the command observed (SPEC G17).
	Effects string
	Turns   []store.Turn
	// Known reports that the asker sent a context: the model's message is
	// then ModelMessage, apart from warden's words.
	Known bool
}

// runFacts are the facts of a run a card shows, read from its run_start.
type runFacts struct{ task, workdir, sandbox string }

// enrich adds to the cards of reqs their context: the stored request
// context, and the facts of each run (one look-up per run).
func (s *Server) enrich(ctx context.Context, views []requestView, reqs []store.Request) {
	ids := make([]string, len(reqs))
	for i, r := range reqs {
		ids[i] = r.ID
	}
	ctxs, err := s.Store.RequestContexts(ctx, ids)
	if err != nil {
		s.logger().Warn("panel: request contexts", "err", err)
	}
	runs := map[string]runFacts{}
	served := map[string]bool{}
	for i, r := range reqs {
		views[i].commandsList = s.commands.of(r)
		if len(views[i].Prefixes) > 0 {
			ok, known := served[r.RunID]
			if !known {
				ok = s.servedRun(ctx, r.RunID)
				served[r.RunID] = ok
			}
			if !ok {
				views[i].Prefixes = nil // a rule of this run would approve nothing
			}
		}
		f, ok := runs[r.RunID]
		if !ok {
			f = s.runFacts(ctx, r.RunID)
			runs[r.RunID] = f
		}
		v := &views[i]
		c := cardContext{Task: f.task, Workdir: f.workdir, Sandbox: f.sandbox}
		if rc, ok := ctxs[r.ID]; ok {
			c.Known = true
			c.Host, c.Reason, c.Risk = safetext.Escape(rc.Host), safetext.Escape(rc.Reason), safetext.Escape(rc.Risk)
			c.Justification, c.ModelMessage = safetext.Escape(rc.Justification), safetext.Escape(rc.Message)
			c.Effects = safetext.Escape(rc.Effects)
			if rc.Sandbox != "" {
				c.Sandbox = safetext.Escape(rc.Sandbox)
			}
			for _, t := range rc.Turns {
				c.Turns = append(c.Turns, store.Turn{Role: safetext.Escape(t.Role), Text: safetext.Escape(t.Text)})
			}
		}
		if c.Risk == "" {
			for _, cmd := range v.Commands {
				if cmd.Risky {
					c.Risk = cmd.Risk
					if c.Reason == "" {
						c.Reason = "command " + strconv.Itoa(cmd.N) + ": " + cmd.Reason
					}
					break
				}
			}
		}
		v.Ctx = c
		if c.Known {
			v.Message, v.MessageLabel = c.ModelMessage, "the model's message"
		}
		if r.Status == store.StatusDecided && r.Decision == "modify" {
			v.Outcome, v.OutcomeTone = s.callOutcome(ctx, r)
		}
	}
}

// runFacts reads a run's task, working directory and sandbox mode from its
// run_start event; what is missing stays "".
func (s *Server) runFacts(ctx context.Context, runID string) runFacts {
	evs, err := s.Store.Events(ctx, runID, "", 1)
	if err != nil || len(evs) == 0 {
		return runFacts{}
	}
	rs, ok := evs[0].Data.(event.RunStart)
	if !ok {
		return runFacts{}
	}
	f := runFacts{task: safetext.Escape(rs.Task), workdir: safetext.Escape(rs.Workdir)}
	if rs.Settings != nil && rs.Settings.Sandbox != nil {
		f.sandbox = safetext.Escape(rs.Settings.Sandbox.Mode)
	}
	return f
}

// callOutcome says what became of a modified call: the run's tool event
// of the call, once recorded — it ran, it failed, or its arguments were
// refused and it never ran.
func (s *Server) callOutcome(ctx context.Context, r store.Request) (string, string) {
	if r.Call.ID == "" {
		return "", ""
	}
	hits, err := s.Store.Search(ctx, store.Query{Text: r.Call.ID, Kind: eventkind.Tool, RunID: r.RunID, Limit: 20})
	if err != nil {
		return "", ""
	}
	for _, h := range hits {
		t, ok := h.Event.Data.(event.Tool)
		if !ok || t.CallID != r.Call.ID {
			continue
		}
		switch {
		case t.Error != nil && t.Error.Type == tool.ErrParsing:
			return "the modified call was invalid and never ran: " + safetext.Escape(t.Error.Message), "bad"
		case t.Error != nil:
			return "the modified call ran and failed (" + safetext.Escape(string(t.Error.Type)) + "): " + safetext.Escape(t.Error.Message), "bad"
		default:
			return "the modified call ran", "ok"
		}
	}
	if run, err := s.Store.Run(ctx, r.RunID); err == nil && run.Ended != nil {
		return "the run ended without running the modified call", "warn"
	}
	return "the modified call has not run yet", "warn"
}
